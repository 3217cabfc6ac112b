"""Check-your-understanding questions, shown the way each output needs.

The questions are written once, in chapters/questions.yml. A chapter cell
with `output: asis` prints one section's block:

- on the website, a widget (explorers/quiz.js) that answers at once;
- in the PDF, the questions, with each answer and its reason in the
  instructor edition and a short key at the end of the chapter otherwise;
- in a notebook, markdown with the answer in a collapsed <details> block.

Numeric answers are Python expressions evaluated in the chapter, so a
reader never sees a number that the chapter's code did not compute.
"""

import html
import json
import os
from pathlib import Path

import yaml

from backprop.prose import Prose, count, fixed, sci

SOURCE = Path(__file__).resolve().parents[2] / "chapters" / "questions.yml"
LETTERS = "abcdefgh"
NOTEBOOK = {}  # section: its questions as notebook markdown, from block()


def load(source=SOURCE):
    """{chapter: {section: [question, ...]}}, in the file's order."""
    return yaml.safe_load(Path(source).read_text())


def output_formats():
    """What the running chapter is executed for: ['html'] or ['typst']
    while Quarto executes it, the list in BOOK_FORMATS when one run feeds
    several formats (make book), else ['notebook']."""
    info = os.environ.get("QUARTO_EXECUTE_INFO")
    if info:
        with open(info) as f:
            return [json.load(f)["format"]["identifier"]["base-format"]]
    return os.environ.get("BOOK_FORMATS", "notebook").split(",")


def _for_formats(texts):
    """One text, or each in a div that only its format shows."""
    if len(texts) == 1:
        return Prose(next(iter(texts.values())))
    return Prose("\n\n".join(
        f'::::::: {{.content-visible when-format="{fmt}"}}\n{text}\n:::::::'
        for fmt, text in texts.items()))


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
    """How far a reply may be from the value: half a unit of the last
    digit shown (relative, for answers given to significant digits)."""
    half_unit = 0.5 * 10.0 ** -q["digits"]
    if q.get("significant"):
        return 10 * half_unit * abs(value)
    return half_unit * (1 + 1e-9)


def _resolved(q, namespace):
    """The question with its numeric answer filled in, for the page."""
    q = dict(q)
    if q["kind"] == "number":
        text, value = shown_answer(q, namespace)
        q.update(answer=value, shown=str(text),
                 tolerance=tolerance(q, value))
    return q


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


def _html(mine, section, namespace):
    data = {"questions": [dict(_resolved(q, namespace), number=n)
                          for n, q in mine]}
    payload = json.dumps(data, ensure_ascii=False).replace("</", "<\\/")
    body = "\n".join([
        f'<div class="quiz" data-quiz="{html.escape(section)}">',
        "<h3 class=\"quiz-title\">Check your understanding</h3>",
        f'<script type="application/json">{payload}</script>',
        "<p>These questions answer at once with JavaScript. Without it, "
        "the notebook and the PDF carry the same questions with their "
        "answers.</p>",
        "</div>",
        '<script type="module" src="../explorers/quiz.js"></script>'])
    return f"```{{=html}}\n{body}\n```"


def _typst(mine, namespace):
    """A box; the instructor edition answers in place."""
    lines = ['::::: {.callout-note icon="false"}',
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
    return "\n".join(lines + [":::::"])


def _notebook(mine, namespace):
    lines = ["**Check your understanding**", ""]
    for n, q in mine:
        lines += _markdown(n, q)
        lines += ["<details><summary>Answer</summary>", "",
                  _answer_line(q, namespace), "", "</details>", ""]
    return "\n".join(lines)


def block(chapter, section, namespace, source=SOURCE):
    """The questions of one section, for the formats being executed for.
    The notebook form is also kept in NOTEBOOK, for the student notebook.
    """
    mine = [(n, q) for n, s, q in numbered(chapter, source) if s == section]
    NOTEBOOK[section] = _notebook(mine, namespace)
    makers = {"html": lambda: _html(mine, section, namespace),
              "typst": lambda: _typst(mine, namespace),
              "notebook": lambda: NOTEBOOK[section]}
    return _for_formats({fmt: makers[fmt]() for fmt in output_formats()})


def key(chapter, namespace, source=SOURCE):
    """The short answer key at the end of a chapter, in the student PDF."""
    if "typst" not in output_formats():
        return Prose("")
    entries = []
    for n, _, q in numbered(chapter, source):
        if q["kind"] == "number":
            entries.append(f"{n}: {shown_answer(q, namespace)[0]}")
        else:
            entries.append(f"{n}: ({LETTERS[_right(q)]})")
    text = "\n".join([
        '::: {.content-hidden when-profile="instructor"}',
        "**Answers to the questions.** " + "; ".join(entries) + ".",
        ":::"])
    if output_formats() == ["typst"]:
        return Prose(text)
    return Prose(f'::::::: {{.content-visible when-format="typst"}}\n'
                 f"{text}\n:::::::")
