"""Generated artefacts: the committed figures and the notebooks."""

import json
import os
import re
import subprocess
import sys
import sysconfig
import zipfile

import nbformat
import pytest

from booktools import book

FIGURES = book.ROOT / "figures"


NUMBER = re.compile(rb"-?\d+\.?\d*(?:e-?\d+)?")
HEX = re.compile(rb"#([0-9a-fA-F]{6})\b")


def tokens(data):
    """The file as (text between numbers, the numbers), colours as numbers.

    Different CPUs round the last bits of a float32 matrix product
    differently, and a figure's coordinates follow; the structure, the
    text and every value to within a hair must still match.
    """
    data = HEX.sub(lambda m: b" ".join(
        str(int(m.group(1)[i:i + 2], 16) / 255).encode()
        for i in (0, 2, 4)), data)
    return NUMBER.split(data), [float(n) for n in NUMBER.findall(data)]


def same_figure(a, b):
    (text_a, nums_a), (text_b, nums_b) = tokens(a), tokens(b)
    return text_a == text_b and len(nums_a) == len(nums_b) and all(
        abs(x - y) <= 0.01 + 1e-3 * max(abs(x), abs(y))
        for x, y in zip(nums_a, nums_b))


def test_figure_comparison_sees_real_changes():
    svg = b'<path d="M 106.760727 90.766493" style="fill: #002859"/>'
    noise = b'<path d="M 106.760727 90.766494" style="fill: #00285a"/>'
    assert same_figure(svg, noise)
    assert not same_figure(svg, svg.replace(b"90.766493", b"91.8"))
    assert not same_figure(svg, svg.replace(b"#002859", b"#d55e00"))
    assert not same_figure(svg, svg.replace(b"path", b"rect"))


def test_committed_figures_match_the_code(tmp_path):
    book.export_figures(tmp_path)
    fresh = sorted(p.name for p in tmp_path.iterdir())
    committed = sorted(p.name for p in FIGURES.iterdir()
                       if p.suffix in {".svg", ".pdf"})
    assert fresh == committed, "run `make figures` and commit figures/"
    for name in fresh:
        assert same_figure((tmp_path / name).read_bytes(),
                           (FIGURES / name).read_bytes()), (
            f"figures/{name} is stale: run `make figures`")


def test_figures_carry_no_timestamps():
    for svg in FIGURES.glob("*.svg"):
        assert "<dc:date>" not in svg.read_text()
    for pdf in FIGURES.glob("*.pdf"):
        assert b"/CreationDate" not in pdf.read_bytes()


@pytest.fixture(scope="module")
def notebooks(run_chapter):
    return {f"{name}.ipynb": book.to_notebook(run_chapter(name).cells)
            for name in ("backprop", "autograd", "deep", "by-hand")}


def test_notebooks_are_clean_and_leave_out_the_solutions(notebooks):
    for name, nb in notebooks.items():
        nbformat.validate(nb)
        text = json.dumps(nb)
        for leftover in ("{python}", "{{<", ":::", "#| label", "@fig-",
                         "@eq-", "@sec-", "html_block"):
            assert leftover not in text, (name, leftover)
        assert not re.search(r"\{#(sec|eq|exr)-", text)
    main = json.dumps(notebooks["backprop.ipynb"])
    assert "## Solution" not in main and "bug_gaps" not in main
    assert "tanh_losses" not in json.dumps(notebooks["autograd.ipynb"])
    # exercises keep their numbers and titles, as the book numbers them
    numbers = book.book_numbers()
    assert (f"### Exercise {numbers['exr-by-hand']} (Pencil, easy)"
            in main)
    assert "def buggy_backward" in main  # an exercise's given code stays
    # headings carry the book's numbers, which the cross-references use
    engine = json.dumps(notebooks["autograd.ipynb"])
    assert f"# {numbers['sec-autograd']} Automatic differentiation" in engine
    assert f"## {numbers['sec-engine']} A tiny scalar autograd" in engine


def isolated_python(root):
    """A Python that sees the pinned packages but not the book's package:
    a new venv whose .pth lists the project's site-packages, where the
    editable install's own .pth is then not processed."""
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip",
                    str(venv)], check=True)
    site = next(venv.glob("lib/python3*/site-packages"))
    (site / "pinned.pth").write_text(sysconfig.get_paths()["purelib"])
    return venv / "bin" / "python"


def test_downloaded_notebooks_run_without_the_repository(notebooks,
                                                         tmp_path):
    archive = tmp_path / "backprop-notebooks.zip"
    book.bundle(notebooks, archive)
    with zipfile.ZipFile(archive) as z:
        z.extractall(tmp_path)
    folder = tmp_path / "backprop-notebooks"
    python = isolated_python(tmp_path)
    env = {**os.environ, "MPLBACKEND": "Agg"}
    env.pop("PYTHONPATH", None)
    outside = subprocess.run([str(python), "-c", "import backprop"],
                             cwd=tmp_path, env=env, capture_output=True)
    assert outside.returncode != 0  # the package is not installed there
    for name in notebooks:
        nb = nbformat.read(folder / name, as_version=4)
        script = "\n\n".join(c.source for c in nb.cells
                               if c.cell_type == "code")
        result = subprocess.run([str(python), "-c", script], cwd=folder,
                                env=env, capture_output=True, text=True,
                                timeout=600)
        assert result.returncode == 0, (name, result.stderr[-3000:])
