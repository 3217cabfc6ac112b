"""What Quarto's one run of the chapters leaves, and what is made of it.

`make` renders the site with `quarto render --to html -M keep-ipynb:true`:
Quarto's own Jupyter engine executes each chapter once, and keeps the
executed notebook beside it (chapters/x.quarto_ipynb: every code cell
with its outputs, every inline expression's value in its markdown cell's
`metadata.user_expressions`). collect() moves those notebooks to
_executed/, where the PDF and the editions are rendered from them without
running anything again (render.py), and keeps what the slides and
readers take from them: the figures (figures/x.svg) and the slides'
numbers (slides/_variables.yml).

Nothing here reads a .qmd file: cells, options, includes and inline
expressions are Quarto's.
"""

import json
import re
from pathlib import Path

import nbformat

from booktools import ROOT, chapters, slides

EXECUTED = ROOT / "_executed"
SVG = "image/svg+xml"
# matplotlib dates each SVG by the clock; figures/ keeps none, so that
# the same figure is the same bytes in every build
DATE = re.compile(r"\s*<dc:date>[^<]*</dc:date>")


class CollectError(RuntimeError):
    """Quarto left no executed notebook, or one that breaks a rule."""


def executed_path(chapter, root=ROOT):
    """_executed/chapters/x.ipynb for chapters/x.qmd."""
    relative = Path(chapter).resolve().relative_to(root)
    return root / "_executed" / relative.with_suffix(".ipynb")


def kept_by_quarto(chapter):
    """The notebooks Quarto kept for a chapter, oldest first: none for a
    page without code. Quarto names one x.quarto_ipynb, or
    x.quarto_ipynb_N when that name was taken: the newest is this run's."""
    chapter = Path(chapter)
    return sorted(chapter.parent.glob(f"{chapter.stem}.quarto_ipynb*"),
                  key=lambda p: p.stat().st_mtime)


def forget(root=ROOT):
    """Remove the notebooks a previous render kept, so that none passes
    for this run's."""
    for chapter in chapters(root):
        for old in kept_by_quarto(chapter):
            old.unlink()


def collect(root=ROOT):
    """Move Quarto's executed notebooks to _executed/; return
    {chapters/x.qmd: notebook} for every page that has code."""
    notebooks = {}
    for chapter in chapters(root):
        *older, kept = kept_by_quarto(chapter) or [None]
        if kept is None:
            continue
        target = executed_path(chapter, root)
        target.parent.mkdir(parents=True, exist_ok=True)
        kept.replace(target)
        for other in older:
            other.unlink()
        name = chapter.relative_to(root).as_posix()
        notebooks[name] = nbformat.read(target, as_version=4)
    return notebooks


FIGURE_DIV = re.compile(r"^:{3,}\s*\{#fig-([\w-]+)", re.MULTILINE)


def figures(notebook, mime=SVG):
    """{name: SVG text}: the figure that the code cell in each figure div
    (::: {#fig-name fig-alt="..."}, whose caption and alt text may hold
    computed numbers) shows, exactly one per div; with mime=slides.FIGURE,
    the same figure as drawn for a slide."""
    found, name = {}, None
    for cell in notebook.cells:
        if cell.cell_type == "markdown":  # a div opened here holds the next
            opened = FIGURE_DIV.findall(cell.source)
            name = opened[-1] if opened else None
        elif name and cell.get("execution_count") is not None:
            shown = [o["data"][mime] for o in cell.outputs
                     if mime in o.get("data", {})]
            if len(shown) != 1:
                raise CollectError(f"figure fig-{name} shows {len(shown)} "
                                   f"{mime} figures, not one")
            found[name], name = "".join(shown[0]), None
    return found


def keep(root=ROOT):
    """After Quarto's run: collect its notebooks, save the figures
    (figures/<name>.svg for every figure cell, exactly as the book shows
    them, and figures/slides/<name>.svg, as drawn for the slides) and the
    slides' numbers. Returns the notebooks."""
    notebooks = collect(root)
    for mime, outdir in ((SVG, root / "figures"),
                         (slides.FIGURE, root / "figures" / "slides")):
        outdir.mkdir(parents=True, exist_ok=True)
        for notebook in notebooks.values():
            for name, svg in figures(notebook, mime).items():
                (outdir / f"{name}.svg").write_text(DATE.sub("", svg),
                                                    encoding="utf-8")
    slides.write_slide_variables(notebooks, root / "slides")
    return notebooks


def with_values(cell):
    """A markdown cell's text with its inline expressions replaced by the
    values Quarto's run gave them (metadata.user_expressions)."""
    text = cell.source
    for item in cell.get("metadata", {}).get("user_expressions", []):
        data = item["result"].get("data", {})
        value = data.get("text/markdown", data.get("text/plain", ""))
        token = f"`{{python}} {item['expression']}`"
        at = text.find(token)
        rest = text[at + len(token):]
        if (at == 0 or text[at - 1] == "\n") and value.isdigit() and (
                rest[:1] in (".", ")")):
            value += "\\"  # "0." starting a line would begin a list
        text = text[:at] + value + rest if at >= 0 else text
    return text


def book_numbers(root=ROOT):
    """{label: number} of every cross-reference target, as Quarto numbered
    them in its last render (its index, .quarto/xref/): "1.2" for a
    section, "2.3" for the third figure of chapter 2."""
    xref = root / ".quarto" / "xref"
    numbers = {}
    for outputs in json.loads((xref / "INDEX").read_text()).values():
        for name in outputs.values():
            for entry in json.loads((xref / name).read_text())["entries"]:
                order = entry["order"]
                section = order["section"]
                if entry["key"].startswith("sec-"):
                    parts = section[:max((i + 1 for i, n in
                                          enumerate(section) if n),
                                         default=1)]
                    numbers[entry["key"]] = ".".join(map(str, parts))
                else:
                    numbers[entry["key"]] = f"{section[0]}.{order['number']}"
    return numbers
