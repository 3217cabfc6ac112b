"""Generated artefacts: the committed figures and the notebooks."""

import json
import re

import nbformat
import pytest
from nbclient import NotebookClient

from backprop import book

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


@pytest.mark.parametrize("name", ["backprop", "by-hand"])
def test_generated_notebook_runs_top_to_bottom(name, run_chapter, tmp_path):
    run = run_chapter(name)
    nb = book.to_notebook(run.cells)
    text = json.dumps(nb)
    for leftover in ("{python}", "{{<", ":::", "#| label", "@fig-",
                     "@eq-", "@sec-"):
        assert leftover not in text, leftover
    assert not re.search(r"\{#(sec|eq|exr)-", text)
    assert "html_block" not in text  # the explorers are HTML-only
    if name == "by-hand":
        assert "figures.chain_paths" in text  # the static figure stays
    path = tmp_path / f"{name}.ipynb"
    nbformat.write(nb, path)
    nbformat.validate(nbformat.read(path, as_version=4))
    NotebookClient(nb, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    errors = [o for c in nb.cells if c.cell_type == "code"
              for o in c.outputs if o.output_type == "error"]
    assert not errors
