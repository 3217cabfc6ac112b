"""A chapter as Quarto executed it, run again in a live kernel so that
tests can ask for its values by name.

The cells are those of the notebook Quarto's own engine executed in the
test build (tests/built.py): the code cells it ran, in order, in the
chapter's folder. Nothing is parsed from the .qmd source.
"""

from dataclasses import dataclass, field

import nbformat
from nbclient import NotebookClient

from booktools.notebooks import cell_options


@dataclass
class Cell:
    kind: str  # "markdown" or "code"
    source: str  # code without its options; markdown as written
    options: dict = field(default_factory=dict)
    outputs: list = field(default_factory=list)  # what Quarto's run showed
    inline: list = field(default_factory=list)  # (expression, shown text)
    shown: list = field(default_factory=list)  # (expression, its Markdown)

    @property
    def label(self):
        return str(self.options.get("label", ""))

    @property
    def where(self):
        return f"cell '{self.label}'" if self.label else "a cell"


def cells_of(notebook):
    """The executed notebook's cells, with Quarto's values and outputs."""
    cells = []
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            found = cell.metadata.get("user_expressions", [])
            inline = [(e["expression"], e["result"]["data"]["text/plain"])
                      for e in found]
            shown = [(e["expression"], e["result"]["data"].get(
                "text/markdown", e["result"]["data"]["text/plain"]))
                for e in found]  # what the page prints
            cells.append(Cell("markdown", cell.source, inline=inline,
                              shown=shown))
        elif cell.cell_type == "code":
            options, code = cell_options(cell.source)
            cells.append(Cell("code", code, options, cell.outputs))
    return cells


# Run before the chapter: every figure it shows is checked as IPython
# shows it, on the page and as drawn for a slide, for a legend or a text
# that lies on one of its lines. Each line is sampled a pixel at a time
# where its axes show it, against the legend's box and each text's own
# (an annotation's arrow may touch what it points at).
WATCH_FIGURES = """
import matplotlib
import matplotlib.pyplot
import numpy as _np
from IPython import get_ipython as _ipython
from IPython.core.formatters import BaseFormatter as _Base
from matplotlib.backends.backend_agg import FigureCanvasAgg as _Agg
from matplotlib.figure import Figure as _Figure
from matplotlib.text import Text as _Text
from traitlets import Unicode as _Unicode

_figures_watched, _labels_on_lines = [], []


def _on_lines(fig):
    canvas = _Agg(fig)
    canvas.draw()
    renderer, hits = canvas.get_renderer(), []
    for ax in fig.axes:
        labels = [(t.get_text(), _Text.get_window_extent(t, renderer))
                  for t in ax.texts if t.get_text().strip()]
        if ax.get_legend() is not None:
            labels.append(("legend",
                           ax.get_legend().get_window_extent(renderer)))
        shown = ax.get_window_extent(renderer)
        for line in ax.lines:
            xy = line.get_transform().transform(line.get_xydata())
            if len(xy) < 2:
                continue
            steps = [_np.linspace(0, 1, int(abs(b - a).sum()) + 2)
                     for a, b in zip(xy[:-1], xy[1:])]
            x, y = (_np.concatenate([a[k] + (b[k] - a[k]) * t for a, b, t
                                     in zip(xy[:-1], xy[1:], steps)])
                    for k in (0, 1))
            seen = ((x >= shown.x0) & (x <= shown.x1)
                    & (y >= shown.y0) & (y <= shown.y1))
            hits += [(name, line.get_label()) for name, box in labels
                     if (seen & (x > box.x0) & (x < box.x1)
                         & (y > box.y0) & (y < box.y1)).any()]
    return hits


def _watch(fig):
    _figures_watched.append(fig.get_label())
    _labels_on_lines.extend(("page", *hit) for hit in _on_lines(fig))
    if hasattr(fig, "for_slide"):
        slide = fig.for_slide()
        _labels_on_lines.extend(("slide", *hit) for hit in _on_lines(slide))
        __import__("matplotlib.pyplot").pyplot.close(slide)


class _Watch(_Base):
    format_type = _Unicode("application/x-watched")


# start the inline backend first: as it starts, it takes Figure from every
# formatter, and would take it from this one
matplotlib.pyplot.switch_backend(matplotlib.get_backend())
_watcher = _Watch(parent=_ipython().display_formatter)
_watcher.for_type(_Figure, _watch)
_ipython().display_formatter.formatters["application/x-watched"] = _watcher
"""


class ChapterRun:
    """cells: what Quarto's run showed; value(expr): a JSON-able value
    computed in a fresh kernel that ran the same code cells, after
    WATCH_FIGURES. Close it."""

    def __init__(self, notebook_path, folder, timeout=600):
        notebook = nbformat.read(notebook_path, as_version=4)
        self.cells = cells_of(notebook)
        ran = [c for c in notebook.cells if c.cell_type == "code"
               and c.get("execution_count") is not None]
        self.client = NotebookClient(
            nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
                c.source) for c in ran]),
            timeout=timeout, kernel_name="python3",
            resources={"metadata": {"path": str(folder)}})
        start_kernel(self.client)
        try:
            self.execute(WATCH_FIGURES)
            for index, cell in enumerate(self.client.nb.cells):
                self.client.execute_cell(cell, index)
        except BaseException:
            self.close()
            raise

    def close(self):
        self.client._cleanup_kernel()

    def execute(self, code):
        """Run code in the chapter's namespace; raise if it fails."""
        reply = self.client.wait_for_reply(self.client.kc.execute(
            code, store_history=False))
        if reply["content"]["status"] != "ok":
            raise RuntimeError(f"{reply['content'].get('ename')}: "
                               f"{reply['content'].get('evalue')}")

    def value(self, expr):
        """expr evaluated in the chapter's namespace, as a Python value
        (through JSON)."""
        import ast
        import json

        reply = self.client.wait_for_reply(self.client.kc.execute(
            "", user_expressions={"x": f"__import__('json').dumps({expr})"},
            store_history=False))
        result = reply["content"]["user_expressions"]["x"]
        if result["status"] != "ok":
            raise RuntimeError(f"{expr}: {result.get('ename')}: "
                               f"{result.get('evalue')}")
        return json.loads(ast.literal_eval(result["data"]["text/plain"]))


def start_kernel(client):
    """Start the client's kernel. On Linux and macOS its channels are
    sockets of its own name (IPC), not TCP ports: TCP would pick a free
    port, release it and bind it again, which kernels started side by side
    can lose to each other (ZMQError: Address already in use). The kernel's
    cleanup removes the sockets."""
    import os
    import tempfile
    import uuid

    client.create_kernel_manager()
    if os.name != "nt":
        client.km.transport = "ipc"
        client.km.ip = os.path.join(tempfile.gettempdir(),
                                    f"kernel-{uuid.uuid4().hex}")
    client.start_new_kernel(env=_env())
    client.start_new_kernel_client()


def _env():
    """The environment Quarto gives the chapters (_environment)."""
    import os

    return {**os.environ, "OMP_NUM_THREADS": "1"}
