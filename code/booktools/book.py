"""Book tooling: read .qmd chapters, run them as Quarto does, export.

    python -m booktools.book figures [OUTDIR]  # SVG + PDF of every figure
    python -m booktools.book execute CHAPTER   # run it once: what Quarto
                                              # renders, and its notebook
    python -m booktools.book bundle            # zip the student notebooks
    python -m booktools.book variables         # the slides' numbers, from
                                              # the executed chapters
    python -m booktools.book bench             # build times against Quarto

Execution mirrors Quarto's Jupyter engine: one fresh kernel per chapter,
working directory = the chapter's folder, code cells in order, and the
inline `{python}` expressions of each stretch of prose evaluated (as
user_expressions) between the code cells around it.
"""

import ast
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import yaml
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from booktools.render import SLIDES

ROOT = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^(`{3,})\s*(.*?)\s*$")
INLINE = re.compile(r"(?:^|[^`])`\{python\}[ \t]([^`]+)`", re.MULTILINE)
INCLUDE = re.compile(r"^\{\{<\s*include\s+(\S+)\s*>\}\}\s*$")
OPTION = re.compile(r"^#\|\s?(.*)$")
ANSI = re.compile(r"\x1b\[[0-9;]*m")  # colour codes in tracebacks
DIV_OPEN = re.compile(r"^:{3,}\s*\{(.*)\}\s*$")  # ::: {.callout-tip}
DIV_CLOSE = re.compile(r"^:{3,}\s*$")
HEADING = re.compile(r"^(#{1,3}) .*?(\{#(sec-[\w-]+)\})?\s*$")


class ChapterError(RuntimeError):
    """A chapter failed to execute; the message names file and cell."""


@dataclass
class Cell:
    kind: str  # "markdown" or "code"
    source: str
    line: int  # 1-based line of the cell's first line in the .qmd
    options: dict = field(default_factory=dict)
    inline: list = field(default_factory=list)  # (expression, value)
    header: str = ""  # the `#| key: value` lines, as written

    @property
    def where(self):
        label = self.options.get("label")
        return f"cell '{label}'" if label else f"line {self.line}"


EXECUTED = "-executed.ipynb"


def source_of(entry):
    """A chapter of _quarto.yml as its source. Quarto renders
    chapters/x-executed.ipynb, which `make book` executes, once, from
    chapters/x.qmd (see execute_chapter)."""
    if entry.endswith(EXECUTED):
        return entry[:-len(EXECUTED)] + ".qmd"
    return entry


def executed_path(source):
    return Path(source).with_name(Path(source).stem + EXECUTED)


def chapters(root=ROOT):
    """The .qmd sources of the book, chapters then appendices."""
    book = yaml.safe_load((root / "_quarto.yml").read_text())["book"]
    files = []
    for entry in book.get("chapters", []) + book.get("appendices", []):
        if isinstance(entry, dict):  # a part: {part: ..., chapters: [...]}
            files += entry.get("chapters", [])
        else:
            files.append(entry)
    return [root / source_of(f) for f in files]


def split_front_matter(text):
    """(front matter dict, body, number of lines the front matter took)."""
    if text.startswith("---\n"):
        end = text.index("\n---\n", 4)
        meta = yaml.safe_load(text[4:end]) or {}
        return meta, text[end + 5:], text[:end + 5].count("\n")
    return {}, text, 0


def cell_options(source):
    """Split the leading `#| key: value` lines off a code cell."""
    lines = source.split("\n")
    n = 0
    while n < len(lines) and OPTION.match(lines[n]):
        n += 1
    opts = "\n".join(OPTION.match(line).group(1) for line in lines[:n])
    return (yaml.safe_load(opts) or {}), "\n".join(lines[n:])


def resolve_includes(source, folder):
    """Replace `{{< include path >}}` lines by the file's text."""
    out = []
    for line in source.split("\n"):
        match = INCLUDE.match(line.strip())
        if match:
            out.append((folder / match.group(1)).read_text().rstrip("\n"))
        else:
            out.append(line)
    return "\n".join(out)


def read_qmd(path):
    """The chapter as alternating markdown and executable code cells."""
    path = Path(path)
    meta, body, offset = split_front_matter(path.read_text())
    cells, prose, prose_line = [], [], offset + 1
    lines = body.split("\n")
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            prose.append(lines[i])
            i += 1
            continue
        ticks, info = match.groups()
        end = i + 1
        while end < len(lines) and lines[end].strip() != ticks:
            end += 1
        block = lines[i + 1:end]
        if re.match(r"^\{python[\s,}]", info):
            cells.append(Cell("markdown", "\n".join(prose), prose_line))
            options, code = cell_options("\n".join(block))
            header = "\n".join(block[:len(block) - code.count("\n") - 1])
            code = resolve_includes(code, path.parent)
            cells.append(Cell("code", code, offset + i + 1, options,
                              header=header))
            prose, prose_line = [], offset + end + 2
        else:  # a display-only block stays part of the prose
            prose += lines[i:end + 1]
        i = end + 1
    cells.append(Cell("markdown", "\n".join(prose), prose_line))
    for cell in cells:
        if cell.kind == "markdown":
            cell.inline = [(e.strip(), None) for e in INLINE.findall(
                cell.source)]
    return meta, [c for c in cells if c.source.strip() or c.kind == "code"]


# As Quarto's Jupyter engine does for `fig-format: svg`.
KERNEL_SETUP = "%config InlineBackend.figure_formats = ['svg']"


class ChapterRun:
    """A chapter executed in its own live kernel, as Quarto executes it.

    After construction, .cells hold the outputs and inline values, and
    .value(expr) evaluates more expressions in the chapter's namespace
    (tests use it to check results). Close it, or use it in a `with`.
    """

    def __init__(self, path, timeout=300, formats=None):
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
        env = {**os.environ, "OMP_NUM_THREADS": "1"}
        if formats:  # one run for several outputs (see backprop.quiz)
            env["BOOK_FORMATS"] = ",".join(formats)
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

    def _expressions(self, exprs):
        """Evaluate expressions as user_expressions: {expr: text/plain}."""
        keys = {str(i): e for i, e in enumerate(exprs)}
        reply = self.client.wait_for_reply(self.client.kc.execute(
            "", user_expressions=keys, store_history=False))
        results = reply["content"].get("user_expressions", {})
        out = {}
        for key, expr in keys.items():
            result = results.get(key, {})
            if result.get("status") != "ok":
                raise ChapterError(
                    f"{self.path.name}: `{expr}` failed: "
                    f"{result.get('ename')}: {result.get('evalue')}")
            out[expr] = result["data"]["text/plain"]
        return out

    def _run(self):
        nb = self.client.nb
        for cell in self.cells:
            if cell.kind == "markdown":  # inline values, as Quarto does
                if cell.inline:
                    shown = self._expressions([e for e, _ in cell.inline])
                    cell.inline = [(e, shown[e]) for e, _ in cell.inline]
                continue
            if cell.options.get("eval", True) is False:
                continue
            nb_cell = nbformat.v4.new_code_cell(cell.source)
            nb.cells.append(nb_cell)
            try:
                self.client.execute_cell(nb_cell, len(nb.cells) - 1)
            except CellExecutionError as err:
                first = ANSI.sub("", str(err)).strip().splitlines()[-1]
                raise ChapterError(
                    f"{self.path.name}, {cell.where}: {first}") from err
            cell.outputs = nb_cell.outputs

    def value(self, expr):
        """A JSON-able Python value computed in the chapter's kernel."""
        text = self._expressions([f"__import__('json').dumps({expr})"])
        return json.loads(ast.literal_eval(next(iter(text.values()))))


def execute(path, timeout=300):
    """Run a chapter in a fresh kernel; return its cells with outputs."""
    with ChapterRun(path, timeout) as run:
        return run.cells


# ---- notebooks -----------------------------------------------------------

def _chapter_numbers(number, cells):
    """Labels of one chapter: sections, figures, tables, equations..."""
    names, counters = {}, dict.fromkeys(["fig", "tbl", "eq", "exr"], 0)
    labels, section, depth = [], [0, 0], 0
    for cell in cells:
        if cell.kind == "code":
            labels.append(str(cell.options.get("label", "")))
            continue
        for line in cell.source.split("\n"):
            depth += bool(DIV_OPEN.match(line)) - bool(DIV_CLOSE.match(line))
            heading = HEADING.match(line)
            if heading and depth == 0:  # headings in divs are titles
                level = len(heading.group(1)) - 1
                if level:
                    section[level - 1] += 1
                    section[level:] = [0] * (2 - level)
                if heading.group(3):
                    parts = [number] + section[:level]
                    names[heading.group(3)] = ".".join(map(str, parts))
            labels += re.findall(r"\{#((?:eq|exr)-[\w-]+)", line)
    for label in labels:
        kind = label.split("-")[0]
        if kind in counters:
            counters[kind] += 1
            names[label] = f"{number}.{counters[kind]}"
    return names


def book_numbers():
    """Every cross-reference label of the book with its number, as the
    PDF numbers them (chapters in order, unnumbered ones skipped)."""
    names, number = {}, 0
    for path in chapters():
        _, cells = read_qmd(path)
        prose = "\n".join(c.source for c in cells if c.kind == "markdown")
        first = re.search(r"^# (.*)$", prose, re.MULTILINE)
        if first and ".unnumbered" not in first.group(1):
            number += 1
            names.update(_chapter_numbers(number, cells))
    return names


_WORDS = {"fig": "Figure", "eq": "Equation", "sec": "Section",
          "tbl": "Table", "exr": "Exercise"}


EXERCISE = re.compile(r"^:::+\s*\{#(exr-[\w-]+)\}\s*\n## (.*)$", re.MULTILINE)


def _plain_markdown(text, values, numbers):
    """Quarto markdown to notebook markdown: values in, markup out."""
    for expr, value in values:
        text = text.replace(f"`{{python}} {expr}`", value, 1)
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


def _left_out(attributes):
    """What a student notebook leaves out: what only the HTML page shows
    (the explorers, which a notebook cannot run) and exercise solutions,
    which only the instructor edition prints."""
    html_only = ("content-visible" in attributes
                 and 'when-format="html"' in attributes)
    solution = ("content-hidden" in attributes
                and 'unless-profile="instructor"' in attributes)
    return html_only or solution


def _without_left_out(cells):
    """Drop the divs that _left_out names, with any code cells in them.
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
                stack.append(_left_out(opened.group(1)))
            if not any(stack):  # div lines too: _plain_markdown reads
                lines.append(line)  # the exercise titles from them
            if closed and stack:
                stack.pop()
        kept.append(Cell(cell.kind, "\n".join(lines), cell.line,
                         cell.options, cell.inline))
    return kept


NOTEBOOK_INTRO = (
    "*Generated from the book's source. This notebook comes in a zip file "
    "together with the small package `backprop` that it imports. Unzip it, "
    "install the pinned packages with `pip install -r requirements.txt` "
    "(Python 3.11), start Jupyter in the unzipped folder, and run the "
    "cells top to bottom. The exercises are here; their worked solutions "
    "are in the book's instructor edition.*")


def to_notebook(cells, quiz_texts=None):
    """Executed chapter cells as a notebook a reader can run on its own.
    quiz_texts: the questions' notebook markdown by section, when the run
    printed them for other formats (backprop.quiz.NOTEBOOK)."""
    numbers = book_numbers()
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "language": "python",
                                 "display_name": "Python 3"}
    nb.cells.append(nbformat.v4.new_markdown_cell(NOTEBOOK_INTRO))
    for cell in _without_left_out(cells):
        if cell.kind == "markdown":
            text = _plain_markdown(cell.source, cell.inline, numbers)
            if text.strip():
                nb.cells.append(nbformat.v4.new_markdown_cell(text.strip()))
        elif str(cell.options.get("label", "")).startswith("quiz-"):
            section = str(cell.options["label"])[len("quiz-"):]
            text = "".join(o.get("text", "") for o in cell.outputs
                           if o.get("output_type") == "stream")
            if quiz_texts is not None:
                text = quiz_texts.get(section, "")
            if text.strip():  # the questions, printed as markdown
                nb.cells.append(nbformat.v4.new_markdown_cell(text.strip()))
        elif cell.options.get("eval", True) is not False:
            nb.cells.append(nbformat.v4.new_code_cell(cell.source.strip()))
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{i}"  # stable ids: no diff between builds
    return nb


def bundle(notebooks, zip_path):
    """A zip with the notebooks, the package they import and the pins, so
    that a download runs without a copy of the repository."""
    fixed_time = (2020, 1, 1, 0, 0, 0)  # the same bytes on every build
    files = {f"backprop-notebooks/{name}": nbformat.writes(nb)
             for name, nb in notebooks.items()}
    for module in sorted((ROOT / "code" / "backprop").glob("*.py")):
        files[f"backprop-notebooks/backprop/{module.name}"] = (
            module.read_text())
    files["backprop-notebooks/requirements.txt"] = (
        ROOT / "requirements.txt").read_text()
    with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in files.items():
            info = zipfile.ZipInfo(name, fixed_time)
            info.external_attr = 0o644 << 16  # rw-r--r-- when unzipped
            archive.writestr(info, text, zipfile.ZIP_DEFLATED)


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
            code.outputs = cell.outputs
        nb.cells.append(code)
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{i}"
    return nb


FORMATS = ["html", "typst"]  # what the book renders one execution to
NOTEBOOKS = ROOT / "notebooks"


def slide_numbers(run, spec_path=SLIDES / "numbers.yml"):
    """{name: text} of the numbers the deck takes from this chapter: each
    is an expression evaluated in the chapter's namespace after the run
    (slides/numbers.yml), as text (the prose helpers' values are the text
    an inline expression shows). Empty if the deck takes none from it."""
    spec = yaml.safe_load(Path(spec_path).read_text())
    mine = {name: part for name, part in spec.items()
            if (ROOT / name).resolve() == run.path}
    numbers = {name: expr for part in mine.values()
               for section in ("settings", "results")
               for name, expr in part[section].items()}
    if not numbers:
        return {}
    # the prose helpers are at hand whether or not the chapter imports them
    texts = run.value(
        "(lambda count, fixed, joined, sci: ["
        + ", ".join(f"str({e})" for e in numbers.values())
        + "])(*(getattr(__import__('backprop.prose').prose, name)"
        " for name in ('count', 'fixed', 'joined', 'sci')))")
    return dict(zip(numbers, texts))


def execute_chapter(path, notebooks=NOTEBOOKS, slides=SLIDES):
    """Run a chapter once; write what Quarto renders to every format
    (chapters/x-executed.ipynb, which also keeps the numbers the slides
    take from this chapter) and the student notebook (notebooks/)."""
    with ChapterRun(path, formats=FORMATS) as run:
        quiz_texts = run.value("__import__('backprop.quiz').quiz.NOTEBOOK")
        executed = to_quarto_notebook(run)
        executed.metadata["slide-numbers"] = slide_numbers(
            run, Path(slides) / "numbers.yml")
        nbformat.write(executed, executed_path(run.path))
        Path(notebooks).mkdir(parents=True, exist_ok=True)
        nbformat.write(to_notebook(run.cells, quiz_texts),
                       Path(notebooks) / f"{run.path.stem}.ipynb")


def write_slide_variables(slides=SLIDES):
    """slides/_variables.yml, for {{< var >}} in the deck: the numbers
    that each chapter's run kept, in the order of slides/numbers.yml."""
    spec = yaml.safe_load((Path(slides) / "numbers.yml").read_text())
    numbers = {}
    for chapter, part in spec.items():
        executed = nbformat.read(executed_path(ROOT / chapter), as_version=4)
        kept = executed.metadata["slide-numbers"]
        for section in ("settings", "results"):
            numbers.update({name: kept[name] for name in part[section]})
    (Path(slides) / "_variables.yml").write_text(
        "# Written by `make` from the chapters' runs; do not edit.\n"
        + yaml.safe_dump(numbers, sort_keys=False, allow_unicode=True))


def bundle_notebooks(notebooks=NOTEBOOKS):
    """The zip that the site links, from the student notebooks."""
    found = {p.name: nbformat.read(p, as_version=4)
             for p in sorted(Path(notebooks).glob("*.ipynb"))}
    bundle(found, Path(notebooks) / "backprop-notebooks.zip")


# ---- figures and timing --------------------------------------------------

def numeric_neuron():
    """Values and gradients of @fig-numeric's neuron, from the engine."""
    from backprop.engine import Value

    nodes = {"w": Value(0.7), "x": Value(2.0), "b": Value(-0.5)}
    nodes["wx"] = nodes["w"] * nodes["x"]
    nodes["z"] = nodes["wx"] + nodes["b"]
    nodes["a"] = nodes["z"].sigmoid()
    nodes["err"] = nodes["a"] - 0.1  # the target y
    nodes["L"] = nodes["err"] * nodes["err"] * 0.5  # half squared error
    nodes["L"].backward()
    return ({k: v.data for k, v in nodes.items()},
            {k: v.grad for k, v in nodes.items()})


def engine_neuron():
    """The loss of chapter 2's worked neuron, after backward(), and the
    names that @fig-engine-graph gives its nodes."""
    from backprop.engine import Value

    w, x, b, y = Value(0.7), Value(2.0), Value(-0.5), Value(0.1)
    z = w * x + b
    a = z.sigmoid()
    err = a - y
    loss = 0.5 * err * err
    loss.backward()
    return loss, {w: "w", x: "x", b: "b", y: "y", z: "z", a: "a",
                  err: "a − y", loss: "L"}


def chapter_figures():
    """(name, Figure) for every figure of chapters 1 to 3, in order."""
    import torch

    from backprop import blame, cost, depth, energy, fans, figures, style
    from backprop.tasks import example_network, line_fit_loss, xor_problem
    from backprop.train import train

    style.apply()
    weights, biases, x = example_network()
    acts = blame.forward(weights, biases, x)
    deltas, _, _ = blame.backward(weights, acts, torch.ones(1, 1))
    z = torch.arange(-600, 601) / 100  # -6 to 6, with z = 0 exactly
    diagnostics = {name: depth.gradient_diagnostic(name)
                   for name in ("sigmoid", "relu")}
    curves = {name: energy.signal_std(std)
              for name, std in energy.SCHEMES.items()}
    yield "numeric-graph", figures.numeric_graph(*numeric_neuron())
    yield "blame-flow", figures.blame_flow([3, 4, 4, 1], deltas)
    yield "outer-product", figures.outer_product(deltas[1], acts[1])
    X_xor, y_xor, w_xor, b_xor = xor_problem()  # its own generator
    yield "training-loss", figures.training_curve(
        train(w_xor, b_xor, X_xor, y_xor, lr=0.2, steps=2000),
        line_fit_loss(X_xor, y_xor))
    yield "gates", figures.gates(z, *depth.gate_derivatives(z))
    yield "depth-norms", figures.depth_norms(diagnostics)
    yield "signal-size", figures.signal_size(curves)
    yield "engine-graph", figures.value_graph(*engine_neuron())
    nets = [cost.mlp([16, w, w, 1]) for w in [2, 4, 8, 16, 32, 64, 128]]
    x_sweep = torch.randn(32, 16)
    yield "gradient-cost", figures.gradient_cost(
        [cost.n_params(n) for n in nets],
        [cost.gradient_flops(n, x_sweep) for n in nets])
    yield "saved-memory", figures.saved_memory(
        cost.checkpoint_sweep([2, 4, 8, 16, 32, 64]))
    # last, because fans reseeds torch's generator (chapter 3, Figure 3.4)
    widths = [2048, 1024, 512, 256, 128, 64, 32]
    modes = ("fan_in", "fan_out")
    yield "fan-modes", figures.fan_modes(
        widths, {m: fans.signal_and_blame(widths, m) for m in modes},
        {m: fans.predicted(widths, m) for m in modes})


def export_figures(outdir):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from backprop import style

    for name, fig in chapter_figures():
        style.save(fig, name, outdir)
        plt.close(fig)


FLOOR_CONFIG = """\
project:
  type: book
book:
  title: Floor
  author: Bench
  chapters: [index.qmd, chapter.qmd]
format:
  html:
    html-math-method: mathml
  typst:
    papersize: a4
"""
FLOOR_CHAPTER = """\
# A chapter

```{python}
import matplotlib.pyplot as plt
import torch

plt.plot(torch.arange(3))
plt.show()
```
"""


def _timed(command, cwd):
    """(seconds, combined output) of a command that must succeed."""
    start = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, capture_output=True,
                            text=True, env={**os.environ,
                                            "QUARTO_PYTHON": sys.executable})
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{result.stdout[-3000:]}"
                 f"{result.stderr[-3000:]}")
    return time.perf_counter() - start, result.stdout + result.stderr


def bench():
    """Print what a build from clean costs, next to Quarto's own floor:
    a two-page book with one torch and matplotlib cell, HTML and PDF.
    A report, not a test: the numbers depend on the machine's load."""
    with tempfile.TemporaryDirectory() as tmp:
        floor_dir = Path(tmp)
        (floor_dir / "_quarto.yml").write_text(FLOOR_CONFIG)
        (floor_dir / "index.qmd").write_text("# Preface {.unnumbered}\n")
        (floor_dir / "chapter.qmd").write_text(FLOOR_CHAPTER)
        floor, _ = _timed(["quarto", "render"], floor_dir)
    _timed(["make", "clean"], ROOT)
    # make book in its two phases: run the chapters, then render them
    running, run_log = _timed(["make", "executed", "notebooks"], ROOT)
    rendering, log = _timed(["make", "book"], ROOT)
    log = run_log + log
    seconds = running + rendering
    ours = log.count("booktools.book execute")
    quartos = log.count("Starting python3 kernel")
    print(f"Quarto's floor (2 pages, 1 cell, HTML + PDF): {floor:6.1f} s")
    print(f"make book, from clean:                        {seconds:6.1f} s")
    print(f"  running the chapters (side by side):        {running:6.1f} s")
    print(f"  rendering site, PDF and slides:             {rendering:6.1f} s")
    for line in re.findall(r"^render: .* took .*$", log, re.MULTILINE):
        print(f"    {line}")  # the two render lanes run side by side
    print(f"ratio:                                        "
          f"{seconds / floor:6.2f}")
    print(f"chapter executions: {ours} by make (once per chapter), "
          f"{quartos} by Quarto")
    for page in sorted((ROOT / "_book" / "chapters").glob("*.html")):
        size = page.stat().st_size
        packed = len(gzip.compress(page.read_bytes()))
        print(f"chapters/{page.name}: {size / 1000:.0f} kB "
              f"({packed / 1000:.0f} kB gzipped)")


def main(argv):
    command = argv[0] if argv else ""
    if command == "figures":
        export_figures(argv[1] if len(argv) > 1 else ROOT / "figures")
    elif command == "execute":  # make: one chapter, once per build
        execute_chapter(argv[1])
    elif command == "bundle":
        bundle_notebooks()
    elif command == "variables":
        write_slide_variables()
    elif command == "bench":
        bench()
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
