"""Generated artefacts: the committed figures and the notebooks."""

import json
import re

import nbformat
import pytest
from nbclient import NotebookClient

from backprop import book

FIGURES = book.ROOT / "figures"


def test_committed_figures_match_the_code(tmp_path):
    book.export_figures(tmp_path)
    fresh = sorted(p.name for p in tmp_path.iterdir())
    committed = sorted(p.name for p in FIGURES.iterdir()
                       if p.suffix in {".svg", ".pdf"})
    assert fresh == committed, "run `make figures` and commit figures/"
    for name in fresh:
        fresh_bytes = (tmp_path / name).read_bytes()
        assert fresh_bytes == (FIGURES / name).read_bytes(), (
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
