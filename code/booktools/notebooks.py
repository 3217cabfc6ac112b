"""The student notebook of a chapter, made from its executed notebook.

    python -m booktools notebook chapters/x-executed.ipynb
        # -> notebooks/x.ipynb

A pure function of the executed notebook (which has the inline values
filled in, and every code cell with its `#|` options and outputs) and of
the cross-reference numbers read from the .qmd sources: nothing runs, so
a change here re-exports the notebooks without re-running a chapter.

What a reader who downloads it gets: the prose as plain notebook
markdown, numbered as the book numbers it; the code cells without their
options; the questions as markdown with collapsed answers. Left out: the
build side (cells labelled build-...), what only the web page shows (the
explorers), and the exercises' solutions (divs of class .solution).
"""

import re
from pathlib import Path

import nbformat

from booktools import ROOT, qmd, quiz
from booktools.qmd import DIV_CLOSE, DIV_OPEN, EXECUTED, Cell, cell_options

NOTEBOOKS = ROOT / "notebooks"
_WORDS = {"fig": "Figure", "eq": "Equation", "sec": "Section",
          "tbl": "Table", "exr": "Exercise"}
EXERCISE = re.compile(r"^:::+\s*\{#(exr-[\w-]+)\}\s*\n## (.*)$", re.MULTILINE)
SOLUTION = re.compile(r"(?:^|\s)\.solution(?:\s|$)")
NOTEBOOK_INTRO = (
    "*Generated from the book's source. This notebook comes in a zip file "
    "together with the small package `backprop` that it imports. Unzip it, "
    "install the pinned packages with `pip install -r requirements.txt` "
    "(Python 3.11), start Jupyter in the unzipped folder, and run the "
    "cells top to bottom. The exercises are here; their worked solutions "
    "are in the book's instructor edition.*")


def read_executed(nb):
    """An executed notebook's cells as Cells: markdown with its values
    filled in, code with its options parsed and its outputs."""
    cells = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            cells.append(Cell("markdown", cell.source, i))
        elif cell.cell_type == "code":
            options, code = cell_options(cell.source)
            cells.append(Cell("code", code, i, options,
                              outputs=cell.get("outputs", [])))
    return cells  # the raw cell, the front matter, is not for readers


def _plain_markdown(text, numbers):
    """Quarto markdown to notebook markdown: numbers in, markup out."""
    text = EXERCISE.sub(  # "### Exercise 1.3 (Code, medium)", as numbered
        lambda m: f"### Exercise {numbers.get(m.group(1), '?')} "
                  f"({m.group(2)})", text)
    text = re.sub(r"^:::+.*$\n?", "", text, flags=re.MULTILINE)
    text = re.sub(  # "## 2.1 A tiny scalar autograd engine", as numbered
        r"^(#+) (.*?\{#(sec-[\w-]+)\})",
        lambda m: f"{m.group(1)} {numbers[m.group(3)]} {m.group(2)}"
        if m.group(3) in numbers else m.group(0), text, flags=re.MULTILINE)
    text = re.sub(r"\s*\{[#.][^}]*\}", "", text)  # {#sec-x}, {.unnumbered}

    def ref(match):
        label = match.group(1)
        number = numbers.get(label, "?")
        word = _WORDS[label.split("-")[0]]
        if word == "Section" and "." not in number:
            word = "Chapter"  # a chapter's own label, as Quarto writes it
        return f"{word} {number}"

    text = re.sub(r"@((?:fig|eq|sec|tbl|exr)-[\w-]*\w)", ref, text)
    return re.sub(r"\[@([\w-]+)\]", r"(\1)", text)  # citations, by key


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
        kept.append(Cell(cell.kind, "\n".join(lines), cell.line,
                         cell.options, cell.inline))
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
    return nbformat.v4.new_code_cell(cell.source.strip())


def to_notebook(executed, numbers=None):
    """The student notebook of an executed notebook (see the module's
    docstring); numbers: book_numbers(), read from the sources if None."""
    numbers = qmd.book_numbers() if numbers is None else numbers
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "language": "python",
                                 "display_name": "Python 3"}
    nb.cells.append(nbformat.v4.new_markdown_cell(NOTEBOOK_INTRO))
    for cell in without_left_out(read_executed(executed)):
        made = _student_cell(cell, numbers)
        if made is not None:
            nb.cells.append(made)
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{i}"  # stable ids: no diff between builds
    return nb


def student_path(executed_path, notebooks=NOTEBOOKS):
    """notebooks/x.ipynb for chapters/x-executed.ipynb."""
    name = Path(executed_path).name
    return Path(notebooks) / (name[:-len(EXECUTED)] + ".ipynb")


def export(executed_path, notebooks=NOTEBOOKS):
    """Write the student notebook of one executed chapter."""
    executed = nbformat.read(executed_path, as_version=4)
    target = student_path(executed_path, notebooks)
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(to_notebook(executed), target)
    return target
