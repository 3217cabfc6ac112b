"""The student notebook of a chapter, made from its executed notebook.

A pure function of the notebook Quarto executed (every code cell with its
`#|` options and outputs, every inline expression's value in its markdown
cell's metadata) and of the cross-reference numbers Quarto gave the book
(executed.py reads both): nothing runs, so a change here re-exports
the notebooks without re-running a chapter.

What a reader who downloads it gets: the prose as plain notebook
markdown, numbered as the book numbers it; the code cells without their
options (an exercise's starter and check cells tagged as such); the
questions as markdown with collapsed answers. Left out: the
build side (cells labelled build-...), what only the web page shows (the
explorers), and the exercises' solutions (divs of class .solution).
"""

import re
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import yaml

from booktools import ROOT, quiz, site_url
from booktools.citations import cite
from booktools.executed import book_numbers, with_values

NOTEBOOKS = ROOT / "notebooks"
_WORDS = {"fig": "Figure", "eq": "Equation", "sec": "Section",
          "tbl": "Table", "exr": "Exercise", "alg": "Algorithm"}
EXERCISE = re.compile(r"^:::+\s*\{#(exr-[\w-]+)\}\s*\n## (.*)$", re.MULTILINE)
SOLUTION = re.compile(r"(?:^|\s)\.solution(?:\s|$)")
NOTEBOOK_INTRO = (
    "*Generated from the book's source. This notebook comes in a zip file "
    "together with the small package `backprop` that it imports. Unzip it, "
    "install the pinned packages as its README.md says (Python 3.11; on "
    "Linux, PyTorch's CPU build first, then `pip install -r "
    "requirements.txt`), start Jupyter in the unzipped folder, and run "
    "the cells top to bottom.{exercises}*")
EXERCISES_INTRO = (
    " The exercises are here; their worked solutions "
    "are on the book's website, folded under each exercise, and in the "
    "instructor edition of the PDF. An exercise with a check ends with a "
    "starter cell for your answer and a check cell, which says what is "
    "right so far, and \"not yet\" until all of it is.")
# Exercise x's cells starter-x and check-x (backprop/checks.py): kept,
# as every exercise cell is, and tagged with their kind.
EXERCISE_CELLS = ("starter", "check")
OPTION = re.compile(r"^#\|\s?(.*)$")
DIV_OPEN = re.compile(r"^:{3,}\s*\{(.*)\}\s*$")  # ::: {.callout-tip}
DIV_CLOSE = re.compile(r"^:{3,}\s*$")
FRONT_MATTER = re.compile(r"\A---\n.*?\n---[ \t]*(?:\n|\Z)", re.S)


@dataclass
class Cell:
    kind: str  # "markdown" or "code"
    source: str
    options: dict = field(default_factory=dict)
    outputs: list = field(default_factory=list)
    label = property(lambda self: str(self.options.get("label", "")))


def cell_options(source):
    """Split a code cell's leading `#| key: value` lines off its code."""
    lines = source.split("\n")
    n = 0
    while n < len(lines) and OPTION.match(lines[n]):
        n += 1
    opts = "\n".join(OPTION.match(line).group(1) for line in lines[:n])
    return (yaml.safe_load(opts) or {}), "\n".join(lines[n:])


def read_executed(nb):
    """An executed notebook's cells as Cells: markdown with its values
    filled in, code with its options parsed and its outputs. The front
    matter (Quarto keeps it as the first markdown cell) is not for
    readers."""
    cells = []
    for cell in nb.cells:
        if cell.cell_type == "markdown":  # the title and intro stay
            text = FRONT_MATTER.sub("", with_values(cell), count=1)
            cells.append(Cell("markdown", text))
        elif cell.cell_type == "code":
            options, code = cell_options(cell.source)
            cells.append(Cell("code", code, options,
                              outputs=cell.get("outputs", [])))
    return cells


# A conditional span, [words]{.content-visible when-format="typst"}, with
# no brackets inside (nested spans are resolved from the inside out).
SPAN = re.compile(r"\[([^\[\]]*)\]\{\.(content-visible|content-hidden)"
                  r"([^}]*)\}")
CONDITION = re.compile(r'(when|unless)-(format|profile)="([^"]*)"')


def _span_shown(kind, conditions):
    """Whether a student notebook shows a conditional span. A notebook is
    read like print, so it shows what the student PDF shows: typst's
    content, not the website's, and no edition's; and it is Quarto's
    ipynb format, so `when-format="ipynb"` is true for it too."""
    match = all((what == "format" and value in ("typst", "ipynb"))
                == (when == "when")
                for when, what, value in CONDITION.findall(conditions))
    return match == (kind == "content-visible")


# What a conditional span may hold: a link, kept whole, and a span of the
# site's address, which becomes the address, or keeps its words (how to
# find it) where none is set, as on the site (site/address.lua).
LINK = re.compile(r"\[[^\[\]]*\]\([^()\s]*\)")
ADDRESS = re.compile(r'\[([^\[\]]*)\]\{\.book-site(?:\s+path="([^"]*)")?\s*\}')


def resolve_spans(text):
    """Conditional spans replaced by their words, or by nothing."""
    site, links = site_url(), []
    text = ADDRESS.sub(lambda m: m.group(1) if not site else
                       f"[{site}/{m.group(2) or ''}]({site}/"
                       f"{m.group(2) or ''})", text)
    text = LINK.sub(lambda m: links.append(m.group(0))
                    or f"\0{len(links) - 1}\0", text)
    while True:
        new = SPAN.sub(lambda m: m.group(1) if _span_shown(
            m.group(2), m.group(3)) else "", text)
        if new == text:
            return re.sub("\0(\\d+)\0", lambda m: links[int(m.group(1))],
                          text)
        text = new


# A callout's title is a heading inside its div: in a notebook, where the
# div is gone, it would read as a section of its own.
CALLOUT_TITLE = re.compile(r"^(:{3,}\s*\{\.callout-[^}]*\}\s*\n)\s*"
                           r"#{2,3} (.*)$", re.MULTILINE)


# An algorithm's div: its steps, then its caption, the last paragraph,
# which a notebook shows first, as the site does.
ALGORITHM = re.compile(
    r"^:{3,}\s*\{#(alg-[\w-]+)\}[ \t]*\n(.*?)\n:{3,}[ \t]*$",
    re.MULTILINE | re.S)


# A Markdown table's caption, the line under it: ": Words. {#tbl-x}".
TABLE_CAPTION = re.compile(r"^: (.*?)\s*\{#(tbl-[\w-]+)\}[ \t]*$",
                           re.MULTILINE)


def _algorithm(match, numbers):
    steps, _, caption = match[2].strip().rpartition("\n\n")
    return (f"**Algorithm {numbers.get(match[1], '?')}: {caption.strip()}**"
            f"\n\n{steps.strip()}")


def _plain_markdown(text, numbers):
    """Quarto markdown to notebook markdown: numbers in, markup out."""
    text = resolve_spans(text)
    text = ALGORITHM.sub(lambda m: _algorithm(m, numbers), text)
    text = TABLE_CAPTION.sub(lambda m: f"*Table {numbers.get(m[2], '?')}: "
                             f"{m[1]}*", text)
    text = CALLOUT_TITLE.sub(lambda m: f"{m.group(1)}**{m.group(2)}.**",
                             text)
    text = EXERCISE.sub(  # "### Exercise 1.3 (Code, medium)", as numbered
        lambda m: f"### Exercise {numbers.get(m.group(1), '?')} "
                  f"({m.group(2)})", text)
    text = re.sub(r"^:::+.*$\n?", "", text, flags=re.MULTILINE)
    text = re.sub(  # "## 2.1 A tiny scalar autograd engine", as numbered
        r"^(#+) (.*?\{#(sec-[\w-]+)\})",
        lambda m: f"{m.group(1)} {numbers[m.group(3)]} {m.group(2)}"
        if m.group(3) in numbers else m.group(0), text, flags=re.MULTILINE)
    text = re.sub(r"\s*\{[#.][^}]*\}", "", text)  # {#sec-x}, {.unnumbered}
    # a link to another page of the book, such as the glossary's entry
    # for a term, keeps its words: a notebook has no such page beside it
    text = re.sub(r"\[([^\[\]]*)\]\([^()\s]*\.qmd(?:#[\w-]+)?\)", r"\1",
                  text)

    def ref(match):
        label = match.group(1)
        number = numbers.get(label, "?")
        word = _WORDS[label.split("-")[0]]
        if word == "Section" and "." not in number:
            word = "Chapter"  # a chapter's own label, as Quarto writes it
        return f"{word} {number}"

    text = re.sub(rf"@((?:{'|'.join(_WORDS)})-[\w-]*\w)", ref, text)
    return cite(text)


def left_out(attributes):
    """What a student notebook leaves out of a div's attributes: what
    only the HTML page shows (the explorers, which a notebook cannot
    run) and exercise solutions, which only the instructor edition
    prints."""
    html_only = ("content-visible" in attributes
                 and 'when-format="html"' in attributes)
    return html_only or bool(SOLUTION.search(attributes))


def without_left_out(cells):
    """Drop the divs that left_out names, with any code cells in them.
    Divs may open in one prose cell and close in another.
    """
    kept, stack = [], []
    for cell in cells:
        if cell.kind == "code":
            if not any(stack):
                kept.append(cell)
            continue
        lines = []
        for line in cell.source.split("\n"):
            opened, closed = DIV_OPEN.match(line), DIV_CLOSE.match(line)
            if opened:
                stack.append(left_out(opened.group(1)))
            if not any(stack):  # div lines too: _plain_markdown reads
                lines.append(line)  # the exercise titles from them
            if closed and stack:
                stack.pop()
        kept.append(Cell(cell.kind, "\n".join(lines), cell.options))
    return kept


def printed(cell):
    """What a code cell printed."""
    return "".join(o.get("text", "") for o in cell.outputs
                   if o.get("output_type") == "stream")


def _student_cell(cell, numbers):
    """A cell of the student notebook, or None for a cell left out."""
    if cell.kind == "markdown":
        text = _plain_markdown(cell.source, numbers).strip()
        return nbformat.v4.new_markdown_cell(text) if text else None
    if cell.label.startswith("build-"):
        return None  # the build side: explorers' data, its imports
    if cell.label.startswith("quiz-"):  # the questions, as markdown
        text = quiz.form(printed(cell), "ipynb").strip()
        return nbformat.v4.new_markdown_cell(text) if text else None
    if cell.options.get("eval", True) is False:
        return None
    made = nbformat.v4.new_code_cell(cell.source.strip())
    kind, _, name = cell.label.partition("-")
    if kind in EXERCISE_CELLS and f"exr-{name}" in numbers:
        made.metadata["tags"] = [kind]  # a grader or a test finds them
    return made


def to_notebook(executed, numbers):
    """The student notebook of an executed notebook (see the module's
    docstring); numbers: Quarto's, book_numbers()."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "language": "python",
                                 "display_name": "Python 3"}
    cells = read_executed(executed)
    for cell in without_left_out(cells):
        made = _student_cell(cell, numbers)
        if made is not None:
            nb.cells.append(made)
    has = any(EXERCISE.search(c.source) for c in cells)
    nb.cells.insert(0, nbformat.v4.new_markdown_cell(NOTEBOOK_INTRO.format(
        exercises=EXERCISES_INTRO if has else "")))
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{i}"  # stable ids: no diff between builds
    return nb


def student_name(chapter, numbers):
    """A chapter's notebook, named with its number so that a folder lists
    them in the book's order: chapters/backprop.qmd is 1-backprop.ipynb."""
    stem = Path(chapter).stem
    return f"{numbers[f'sec-{stem}']}-{stem}.ipynb"


def export(executed):
    """Write the student notebooks of the executed chapters
    ({chapters/x.qmd: notebook}) as notebooks/<n>-x.ipynb; return
    {path: chapter}, in the book's order."""
    numbers = book_numbers()
    NOTEBOOKS.mkdir(parents=True, exist_ok=True)
    written = {}
    for chapter, nb in executed.items():
        path = NOTEBOOKS / student_name(chapter, numbers)
        nbformat.write(to_notebook(nb, numbers), path)
        written[path] = chapter
    return written
