"""Check-your-understanding questions, in every form the book needs.

The questions are written once, in chapters/questions.yml. A chapter cell
labelled quiz-<section>, with `output: asis`, prints one section's block
(block()), which holds all three forms, each in a div that only its own
format keeps:

- on the website, each question as Markdown in divs that the widget
  (explorers/quiz.js) turns into a form that answers at once, beside a
  JSON block with only what the checking needs (_page());
- in the PDF, the questions, with each answer and its reason in the
  instructor edition and a short key at the end of the chapter otherwise
  (key(), in a cell labelled quiz-key-<chapter>);
- in a notebook, markdown with the answer in a collapsed <details> block,
  which the student notebook takes from the cell's output (form()).

Every text in questions.yml is Markdown, as the prose is: code in
backticks, maths in dollars. Each form passes it on as Markdown, so that
Quarto renders it in every format as it renders the chapter around it
(MathML on the site, maths and monospace code in the PDF).

Numeric answers are Python expressions evaluated in the chapter, so a
reader never sees a number that the chapter's code did not compute. This
module reads no environment and keeps no state: what it prints depends on
its arguments only.
"""

import html
import json
import re
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import yaml

from backprop.prose import Prose, count, fixed, sci
from booktools import ROOT

SOURCE = ROOT / "chapters" / "questions.yml"
LETTERS = "abcdefgh"
FENCE = ":::::::"  # deeper than any div inside a form
FORMATS = ("html", "typst", "ipynb")  # Quarto's names for the outputs
# How a number is graded, said beside the questions that ask for one; on
# the page, the widget adds what only it does (explorers/quiz.js, grading:
# "close", and when the hint comes), after this sentence.
RULE = ("A number is right when, rounded to the digits asked, it equals "
        "the answer: more digits are fine, and a count must be exact.")


def load(source=SOURCE):
    """{chapter: {section: [question, ...]}}, in the file's order."""
    return yaml.safe_load(Path(source).read_text())


def _div(fmt, text):
    """text in a div that only the output format fmt keeps."""
    return (f'{FENCE} {{.content-visible when-format="{fmt}"}}\n'
            f"{text}\n{FENCE}")


def form(printed, fmt="ipynb"):
    """The form for one format out of what a quiz cell printed: the
    student notebook takes its questions from here. "" if there is none
    (the answer key has only the typst form)."""
    opening = re.escape(_div(fmt, "").split("\n", 1)[0])
    found = re.search(rf"^{opening}\n(.*?)\n{FENCE}$", printed,
                      re.MULTILINE | re.DOTALL)
    return found.group(1) if found else ""


def numbered(chapter, source=SOURCE):
    """(number, section, question) for every question of a chapter.

    The file lists the right choice first, which is easy to write and to
    check; readers get the choices rotated by the question's number, so
    that the right letter varies.
    """
    n = 0
    for section, questions in load(source)[chapter].items():
        for q in questions:
            n += 1
            if q["kind"] == "choice":
                k = n % len(q["choices"])
                q = dict(q, choices=q["choices"][k:] + q["choices"][:k])
            yield n, section, q


def rounded(q, value):
    """The answer to the digits asked, as a decimal string that quiz.js
    reads exactly: "1.50", "-10.0", "9.54e-7", or "32768" for a count.

    It rounds the value's shortest decimal form (repr), not its binary
    expansion, so that 1.005 rounds to 1.01 as it does by hand; ties go
    away from zero, as quiz.js rounds a reply.
    """
    exact = Decimal(repr(float(value)))
    if "count" in q:  # exact: a count the chapter got as a float, 32768.0
        if exact != exact.to_integral_value():
            raise ValueError(f"{q['id']} is a count, but its answer is "
                             f"{value}")
        return str(int(exact))
    place = -q["digits"]  # the power of ten of the last digit asked
    if q.get("significant"):
        place += exact.adjusted() + 1
    answer = exact.quantize(Decimal(1).scaleb(place), ROUND_HALF_UP)
    if not q.get("significant"):
        return f"{answer:f}"
    if answer.adjusted() > exact.adjusted():  # 9.996 went up to 10.00
        answer = answer.quantize(Decimal(1).scaleb(place + 1))
    return f"{answer.scaleb(-answer.adjusted())}e{answer.adjusted()}"


def shown_answer(q, namespace):
    """A numeric answer as the reader sees it and as quiz.js grades it,
    both rounded once, by rounded(), from the chapter's value; and that
    value in full ("1.503875968992248"), which quiz.js rounds to the digits
    of a reply that gives fewer than asked."""
    value = float(eval(q["answer"], namespace))  # the chapter's code
    answer = rounded(q, value)
    if "count" in q:  # grouped as in the prose
        text = count(int(answer))
    elif q.get("significant"):
        text = sci(float(answer), q["digits"] - 1)
    else:
        text = fixed(float(answer), q["digits"])
    return text, answer, repr(value)


def markdown(text):
    """A prose helper's text as Markdown: sci's power of ten as maths."""
    return getattr(text, "markdown", text)


def _right(q):
    """The index of the right choice."""
    return next(i for i, c in enumerate(q["choices"]) if c.get("correct"))


def _answer_line(q, namespace):
    if q["kind"] == "number":
        return f"{markdown(shown_answer(q, namespace)[0])}. {q['why']}"
    index = _right(q)
    choice = q["choices"][index]
    text = choice["text"].rstrip()
    if text[-1] not in ".?!":
        text += "."
    return f"({LETTERS[index]}) {text} {choice['why']}"


NUMBER_WORDS = ["no", "one", "two", "three", "four", "five", "six"]


def prompt(q):
    """The question, and for a number what precision to give, said from
    the question's own digits (never typed into the prompt too)."""
    if q["kind"] != "number":
        return q["prompt"]
    if "count" in q:
        return f"{q['prompt']} Give the exact number."
    n = q["digits"]
    unit = ("significant digit" if q.get("significant") else "decimal")
    return f"{q['prompt']} Give {NUMBER_WORDS[n]} {unit}{'s' * (n != 1)}."


def _checks(q, namespace):
    """What quiz.js needs to check a reply; the question's texts are
    in the page, rendered."""
    if q["kind"] == "choice":
        return {"id": q["id"], "kind": "choice", "right": _right(q)}
    text, answer, exact = shown_answer(q, namespace)
    return {"id": q["id"], "kind": "number", "answer": answer,
            "exact": exact, "shown": str(text), "digits": q.get("digits", 0),
            "significant": bool(q.get("significant")),
            "count": q.get("count")}


def _raw(markup):
    return f"```{{=html}}\n{markup}\n```"


def _page_question(n, q):
    """One question as Markdown: the prompt, the choices as a lettered
    list, and the hint and reasons hidden until quiz.js shows them."""
    lines = [f':::: {{.quiz-question data-id="{q["id"]}"}}', "",
             f"**Question {n}.** {prompt(q)}", ""]
    if q["kind"] == "choice":
        lines += ["::: {.quiz-choices}", "",
                  *(f"{letter}.  {c['text']}"
                    for letter, c in zip(LETTERS, q["choices"])), "", ":::",
                  ""]
        hidden = [("why", c["why"]) for c in q["choices"]]  # in order
    else:
        hidden = [("hint", q["hint"]), ("why", q["why"])]
    for kind, text in hidden:
        div = [f'::: {{.quiz-{kind} hidden=""}}', "", text, "", ":::", ""]
        if kind == "why":  # the course edition keeps the hints only
            div = ['::: {.content-hidden when-profile="course"}', "", *div,
                   ":::", ""]
        lines += div
    return lines + ["::::", ""]


def _rule(mine, text):
    """text as a paragraph, if a question asks for a number."""
    return [text, ""] if any(q["kind"] == "number" for _, q in mine) else []


def _page(mine, section, namespace):
    """The website's form: Markdown that Quarto renders, in divs that
    explorers/quiz.js turns into the widget."""
    data = {"questions": [_checks(q, namespace) for _, q in mine]}
    payload = json.dumps(data, ensure_ascii=False).replace("</", "<\\/")
    lines = [f'::::: {{.quiz data-quiz="{html.escape(section)}"}}', "",
             _raw('<h3 class="quiz-title">Check your understanding</h3>'),
             "", *_rule(mine, _raw(f'<p class="quiz-rule">{RULE}</p>'))]
    for n, q in mine:
        lines += _page_question(n, q)
    lines += [_raw(f'<script type="application/json">{payload}</script>'),
              "", '::: {.content-hidden when-profile="course"}', "",
              _raw('<p class="quiz-note">With JavaScript, these questions '
                   "answer at once. The notebook and the PDF carry the same "
                   "questions with their answers.</p>"), "", ":::", "",
              ":::::", "",
              _raw('<script type="module" src="../explorers/quiz.js">'
                   "</script>")]
    return "\n".join(lines)


# Typst around the printed box: it never breaks across pages (a box is
# at most about a third of a page, its answers included), and its
# paragraphs are spaced, not indented, so that every answer starts flush.
UNBROKEN = ("```{=typst}\n#block(breakable: false)[\n"
            "#set par(first-line-indent: 0pt, spacing: 0.9em)\n```",
            "```{=typst}\n]\n```")


def _typst(mine, namespace):
    """A box that keeps to one page; the instructor edition answers in
    place."""
    lines = [UNBROKEN[0], "", '::::: {.callout-note icon="false"}',
             "## Check your understanding", "", *_rule(mine, RULE)]
    for n, q in mine:  # a list item per question, numbered n
        marker = f"{n}.  "
        pad = " " * len(marker)  # what follows belongs to the item
        lines += [marker + prompt(q), ""]
        for letter, choice in zip(LETTERS, q.get("choices", [])):
            lines.append(f"{pad}{letter}.  {choice['text']}")
        lines += ["", f'{pad}::: {{.content-visible when-profile='
                  '"instructor"}',
                  f"{pad}*Answer:* {_answer_line(q, namespace)}",
                  f"{pad}:::", ""]
    return "\n".join(lines + [":::::", "", UNBROKEN[1]])


def _notebook(mine, namespace):
    lines = ["**Check your understanding**", "", *_rule(mine, RULE)]
    for n, q in mine:
        lines += [f"**Question {n}.** {prompt(q)}", ""]
        if q["kind"] == "choice":
            lines += [f"- ({letter}) {choice['text']}"  # CommonMark
                      for letter, choice in zip(LETTERS, q["choices"])]
            lines.append("")
        lines += ["<details><summary>Answer</summary>", "",
                  _answer_line(q, namespace), "", "</details>", ""]
    return "\n".join(lines)


def block(chapter, section, namespace, source=SOURCE):
    """The questions of one section in all three forms, for a cell with
    `output: asis`: print(quiz.block("deep", "sec-depth", globals())).
    Quarto keeps the form of the format it renders; the student notebook
    takes the ipynb form (form())."""
    mine = [(n, q) for n, s, q in numbered(chapter, source) if s == section]
    texts = {"html": _page(mine, section, namespace),
             "typst": _typst(mine, namespace),
             "ipynb": _notebook(mine, namespace)}
    return Prose("\n\n".join(_div(fmt, texts[fmt]) for fmt in FORMATS))


def key(chapter, namespace, source=SOURCE):
    """The short answer key at the end of a chapter, in the student PDF
    only: print(quiz.key("deep", globals()))."""
    entries = []
    for n, _, q in numbered(chapter, source):
        if q["kind"] == "number":
            shown = shown_answer(q, namespace)[0]
            entries.append(f"{n}: {markdown(shown)}")
        else:
            entries.append(f"{n}: ({LETTERS[_right(q)]})")
    text = "\n".join([  # the instructor edition answers in place, and
        ':::: {.content-hidden when-profile="instructor"}',  # the course
        '::: {.content-hidden when-profile="course"}',  # edition not at all
        "```{=typst}\n#v(0.6em)\n```", "",  # apart from what ends the chapter
        "**Answers to the questions.** " + "; ".join(entries) + ".",
        ":::", "::::"])
    return Prose(_div("typst", text))
