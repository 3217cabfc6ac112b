"""Run a chapter as Quarto's Jupyter engine runs it, once per build.

One fresh kernel per chapter, working directory = the chapter's folder,
code cells in order, and the inline `{python}` expressions of each
stretch of prose evaluated (as user_expressions) between the code cells
around it. execute_chapter() keeps what the run made: the notebook that
Quarto renders to every format without running it again
(chapters/x-executed.ipynb), the numbers the slides take from the
chapter, and every figure as SVG and PDF in figures/.

Everything the executed notebook depends on is in this module and the
ones it imports: the Makefile re-runs a chapter when one of them changes,
and only then (the student notebook is made from the executed one, by
notebooks.py, without running anything).
"""

import ast
import base64
import copy
import json
import os
import re
from pathlib import Path

import nbformat
import yaml
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from booktools import ROOT
from booktools.qmd import executed_path, read_qmd
from booktools.slides import SLIDES, slide_numbers

ANSI = re.compile(r"\x1b\[[0-9;]*m")  # colour codes in tracebacks
FIGURES = ROOT / "figures"
# Every figure as SVG, which the pages and Quarto show, and PDF, for the
# slides' handout and anyone who prints them; application/pdf is taken
# out of the executed notebook again (to_quarto_notebook).
KERNEL_SETUP = "%config InlineBackend.figure_formats = ['svg', 'pdf']"
# Matplotlib dates its SVG and PDF files by this, instead of the clock:
# the same figure is then the same bytes in every build.
SOURCE_DATE_EPOCH = "0"
FORMATS = {"svg": "image/svg+xml", "pdf": "application/pdf"}


class ChapterError(RuntimeError):
    """A chapter failed to execute; the message names file and cell."""


CELL_FRAME = re.compile(r"^Cell In\[(\d+)\], line (\d+)", re.MULTILINE)


def where(origin):
    """file:line, relative to the repository where it is inside it."""
    path, line = origin
    path = Path(path)
    if path.is_relative_to(ROOT):
        path = path.relative_to(ROOT)
    return f"{path.as_posix()}:{line}"


def cell_failure(err, cells):
    """The message for a cell that raised: the file and line of the
    failing statement, the error, and the cell's own traceback, with
    its frames named by file:line instead of IPython's `Cell In[n]`.
    cells: the executed code cells, in order (In[1] is cells[0])."""
    text = ANSI.sub("", err.traceback)
    start = text.find("Traceback (most recent call last)")
    text = text[text.rfind("\n", 0, start) + 1:] if start >= 0 else text

    def frame(match):
        n, line = int(match.group(1)), int(match.group(2))
        return where(cells[n - 1].origins[line - 1])

    frames = list(CELL_FRAME.finditer(text))  # the innermost comes last
    place = frame(frames[-1]) if frames else where(cells[-1].origins[0])
    cell = cells[-1]
    name = f"'{cell.label}'" if cell.label else "starting"
    return (f"{place}: {err.ename}: {err.evalue}\n"
            f"(in the cell {name} at {where(cell.origins[0])})\n\n"
            + CELL_FRAME.sub(frame, text).strip())


class ChapterRun:
    """A chapter executed in its own live kernel, as Quarto executes it.

    After construction, .cells hold the outputs and inline values, and
    .value(expr) evaluates more expressions in the chapter's namespace
    (tests use it to check results). Close it, or use it in a `with`.
    """

    def __init__(self, path, timeout=300):
        self.path = Path(path).resolve()
        self.meta, self.cells = read_qmd(self.path)
        self.client = NotebookClient(
            nbformat.v4.new_notebook(), timeout=timeout,
            kernel_name="python3",
            shutdown_kernel="immediate",  # nothing to save: 0.7 s sooner
            resources={"metadata": {"path": str(self.path.parent)}})
        self.client.create_kernel_manager()
        # One thread per kernel: make runs two chapters side by side, and
        # the results then do not depend on the number of cores.
        env = {**os.environ, "OMP_NUM_THREADS": "1",
               "SOURCE_DATE_EPOCH": SOURCE_DATE_EPOCH}
        self.client.start_new_kernel(env=env)
        self.client.start_new_kernel_client()
        try:
            self._silent(KERNEL_SETUP)
            self._run()
        except BaseException:
            self.close()
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        self.client._cleanup_kernel()

    def _silent(self, code):
        self.client.wait_for_reply(self.client.kc.execute(
            code, silent=True, store_history=False))

    def _expressions(self, exprs, cell=None):
        """Evaluate expressions as user_expressions: {expr: text/plain}.
        cell: the prose they come from, to say where one failed."""
        keys = {str(i): e for i, e in enumerate(exprs)}
        reply = self.client.wait_for_reply(self.client.kc.execute(
            "", user_expressions=keys, store_history=False))
        results = reply["content"].get("user_expressions", {})
        out = {}
        for key, expr in keys.items():
            result = results.get(key, {})
            if result.get("status") != "ok":
                place = self.path.name
                if cell is not None:  # the line of the expression
                    at = cell.source.find(f"`{{python}} {expr}`")
                    line = cell.line + cell.source.count("\n", 0, max(at, 0))
                    place = where((self.path, line))
                raise ChapterError(
                    f"{place}: the inline expression `{expr}` failed: "
                    f"{result.get('ename')}: {result.get('evalue')}")
            out[expr] = result["data"]["text/plain"]
        return out

    def _run(self):
        nb, ran = self.client.nb, []
        for cell in self.cells:
            if cell.kind == "markdown":  # inline values, as Quarto does
                if cell.inline:
                    shown = self._expressions([e for e, _ in cell.inline],
                                              cell)
                    cell.inline = [(e, shown[e]) for e, _ in cell.inline]
                continue
            if cell.options.get("eval", True) is False:
                continue
            nb_cell = nbformat.v4.new_code_cell(cell.source)
            nb.cells.append(nb_cell)
            ran.append(cell)
            try:
                self.client.execute_cell(nb_cell, len(nb.cells) - 1)
            except CellExecutionError as err:
                raise ChapterError(cell_failure(err, ran)) from err
            cell.outputs = nb_cell.outputs

    def value(self, expr):
        """A JSON-able Python value computed in the chapter's kernel."""
        text = self._expressions([f"__import__('json').dumps({expr})"])
        return json.loads(ast.literal_eval(next(iter(text.values()))))


def execute(path, timeout=300):
    """Run a chapter in a fresh kernel; return its cells with outputs."""
    with ChapterRun(path, timeout) as run:
        return run.cells


# ---- what a run keeps ----------------------------------------------------

def figure_files(cells):
    """{name: {"svg": bytes, "pdf": bytes}} of every fig- cell that ran:
    fig-numeric as "numeric". A fig- cell shows exactly one figure."""
    found = {}
    for cell in cells:
        if cell.kind != "code" or not cell.label.startswith("fig-"):
            continue
        if cell.options.get("eval", True) is False:
            continue
        shown = [o["data"] for o in cell.outputs
                 if FORMATS["svg"] in o.get("data", {})]
        if len(shown) != 1 or FORMATS["pdf"] not in shown[0]:
            raise ChapterError(f"{cell.where} shows {len(shown)} figures "
                               "as SVG and PDF, not one")
        data = shown[0]
        found[cell.label[len("fig-"):]] = {
            "svg": "".join(data[FORMATS["svg"]]).encode(),
            "pdf": base64.b64decode("".join(data[FORMATS["pdf"]]))}
    return found


def save_figures(cells, outdir=FIGURES):
    """figures/<name>.svg and .pdf for every fig- cell of a run: the
    figures exactly as the book shows them, for the slides and print."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    for name, files in figure_files(cells).items():
        for suffix, data in files.items():
            (outdir / f"{name}.{suffix}").write_bytes(data)


def _for_quarto(outputs):
    """Outputs without the PDF figures, which Quarto would pick for the
    PDF: the book shows the SVG in every format."""
    kept = copy.deepcopy(outputs)
    for output in kept:
        output.get("data", {}).pop(FORMATS["pdf"], None)
    return kept


def to_quarto_notebook(run):
    """An executed chapter as a notebook that Quarto renders to every
    format without running it again: the front matter, the markdown with
    the inline values filled in, and the code cells with their options
    and outputs."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "language": "python",
                                 "display_name": "Python 3"}
    meta = dict(run.meta, **{"output-file": f"{run.path.stem}.html"})
    front = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True)
    nb.cells.append(nbformat.v4.new_raw_cell(f"---\n{front}---"))
    count = 0
    for cell in run.cells:
        if cell.kind == "markdown":
            text = cell.source
            for expr, value in cell.inline:
                text = text.replace(f"`{{python}} {expr}`", value, 1)
            nb.cells.append(nbformat.v4.new_markdown_cell(text.strip("\n")))
            continue
        source = "\n".join(filter(None, [cell.header, cell.source]))
        code = nbformat.v4.new_code_cell(source.strip("\n"))
        if cell.options.get("eval", True) is not False:
            count += 1
            code.execution_count = count
            code.outputs = _for_quarto(cell.outputs)
        nb.cells.append(code)
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{i}"  # stable ids: no diff between builds
    return nb


def execute_chapter(path, figures=FIGURES, slides=SLIDES):
    """Run a chapter once; keep its figures (figures/) and write what
    Quarto renders to every format (chapters/x-executed.ipynb, which also
    keeps the numbers the slides take from this chapter). The notebook is
    written last: make runs the chapter again if anything before failed.
    """
    with ChapterRun(path) as run:
        executed = to_quarto_notebook(run)
        executed.metadata["slide-numbers"] = slide_numbers(
            run, Path(slides) / "numbers.yml")
        save_figures(run.cells, figures)
        nbformat.write(executed, executed_path(run.path))
