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
from pathlib import Path

import yaml

from backprop.prose import Prose, count, fixed, sci
from booktools import ROOT

SOURCE = ROOT / "chapters" / "questions.yml"
LETTERS = "abcdefgh"
FENCE = ":::::::"  # deeper than any div inside a form
FORMATS = ("html", "typst", "ipynb")  # Quarto's names for the outputs


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


def shown_answer(q, namespace):
    """A numeric answer as the reader sees it, and the value behind it."""
    value = float(eval(q["answer"], namespace))  # the chapter's own code
    if q.get("significant"):
        return sci(value, q["digits"] - 1), value
    if q["digits"] == 0:  # a whole number, grouped as in the prose
        return count(round(value)), value
    return fixed(value, q["digits"]), value


def tolerance(q, value):
    """How far a reply may be from the value: one unit of the last digit
    shown (relative, for answers given to significant digits). Half a
    unit would ask for the exact rounding, but a reader who works from
    the text's rounded numbers may land one unit off."""
    unit = 10.0 ** -q["digits"]
    if q.get("significant"):
        return 10 * unit * abs(value)
    return unit * (1 + 1e-9)


def _right(q):
    """The index of the right choice."""
    return next(i for i, c in enumerate(q["choices"]) if c.get("correct"))


def _answer_line(q, namespace):
    if q["kind"] == "number":
        return f"{shown_answer(q, namespace)[0]}. {q['why']}"
    index = _right(q)
    choice = q["choices"][index]
    text = choice["text"].rstrip()
    if text[-1] not in ".?!":
        text += "."
    return f"({LETTERS[index]}) {text} {choice['why']}"


def _markdown(number, q):
    lines = [f"**Question {number}.** {q['prompt']}", ""]
    if q["kind"] == "choice":
        for letter, choice in zip(LETTERS, q["choices"]):
            lines.append(f"- ({letter}) {choice['text']}")  # CommonMark
        lines.append("")
    return lines


def _checks(q, namespace):
    """What quiz.js needs to check a reply; the question's texts are
    in the page, rendered."""
    if q["kind"] == "choice":
        return {"id": q["id"], "kind": "choice", "right": _right(q)}
    text, value = shown_answer(q, namespace)
    return {"id": q["id"], "kind": "number", "answer": value,
            "shown": str(text), "tolerance": tolerance(q, value),
            "digits": q["digits"], "significant": bool(q.get("significant"))}


def _raw(markup):
    return f"```{{=html}}\n{markup}\n```"


def _page_question(n, q):
    """One question as Markdown: the prompt, the choices as a lettered
    list, and the hint and reasons hidden until quiz.js shows them."""
    lines = [f':::: {{.quiz-question data-id="{q["id"]}"}}', "",
             f"**Question {n}.** {q['prompt']}", ""]
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


def _page(mine, section, namespace):
    """The website's form: Markdown that Quarto renders, in divs that
    explorers/quiz.js turns into the widget."""
    data = {"questions": [_checks(q, namespace) for _, q in mine]}
    payload = json.dumps(data, ensure_ascii=False).replace("</", "<\\/")
    lines = [f'::::: {{.quiz data-quiz="{html.escape(section)}"}}', "",
             _raw('<h3 class="quiz-title">Check your understanding</h3>'),
             ""]
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
# at most about a third of a page, its answers included).
UNBROKEN = ("```{=typst}\n#block(breakable: false)[\n```",
            "```{=typst}\n]\n```")


def _typst(mine, namespace):
    """A box that keeps to one page; the instructor edition answers in
    place."""
    lines = [UNBROKEN[0], "", '::::: {.callout-note icon="false"}',
             "## Check your understanding", ""]
    for n, q in mine:  # a list item per question, numbered n
        marker = f"{n}.  "
        pad = " " * len(marker)  # what follows belongs to the item
        lines += [marker + q["prompt"], ""]
        for letter, choice in zip(LETTERS, q.get("choices", [])):
            lines.append(f"{pad}{letter}.  {choice['text']}")
        lines += ["", f'{pad}::: {{.content-visible when-profile='
                  '"instructor"}',
                  f"{pad}*Answer:* {_answer_line(q, namespace)}",
                  f"{pad}:::", ""]
    return "\n".join(lines + [":::::", "", UNBROKEN[1]])


def _notebook(mine, namespace):
    lines = ["**Check your understanding**", ""]
    for n, q in mine:
        lines += _markdown(n, q)
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
            entries.append(f"{n}: {shown_answer(q, namespace)[0]}")
        else:
            entries.append(f"{n}: ({LETTERS[_right(q)]})")
    text = "\n".join([  # the instructor edition answers in place, and
        ':::: {.content-hidden when-profile="instructor"}',  # the course
        '::: {.content-hidden when-profile="course"}',  # edition not at all
        "```{=typst}\n#v(0.6em)\n```", "",  # apart from what ends the chapter
        "**Answers to the questions.** " + "; ".join(entries) + ".",
        ":::", "::::"])
    return Prose(_div("typst", text))
