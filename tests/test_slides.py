"""The lecture deck takes its figures and numbers from the book's code.

The rendered deck and its handout are checked in test_render.py.
"""

import re
from pathlib import Path

import nbformat
import pytest
import sources as qmd
import torch
import yaml

from booktools import ROOT, slides

DECK = ROOT / "slides" / "backprop.qmd"
SPEC = yaml.safe_load((ROOT / "slides" / "numbers.yml").read_text())


def test_deck_shows_exactly_the_numbers_it_computes():
    used = set(re.findall(r"\{\{< var (\w+) >\}\}", DECK.read_text()))
    # and the site's address on the title slide (slides.py)
    assert used == {name for part in SPEC.values() for section in part.values()
                    for name in section} | {"site"}


def test_deck_figures_are_the_committed_figures():
    # figures/slides/ holds what the chapters show, drawn for a slide,
    # checked by test_outputs.py
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)\{fig-alt=\"[^\"]+\"\}",
                        DECK.read_text())
    assert len(images) == len(re.findall(r"!\[", DECK.read_text()))
    for image in images:
        path = (DECK.parent / image).resolve()
        assert path.parent == ROOT / "figures" / "slides", image
        assert path.exists(), image


def test_slide_numbers_are_the_chapter_numbers(run_chapter):
    from built import EXECUTED

    numbers = {}
    for path, part in SPEC.items():
        run = run_chapter(Path(path).stem)
        mine = slides.kept(nbformat.read(
            EXECUTED / Path(path).with_suffix(".ipynb"), as_version=4))
        assert set(mine) == set(part["settings"]) | set(part["results"])
        # each result is one that its chapter itself shows, in the same
        # form (a power of ten as maths)...
        shown = {value for cell in run.cells for _, value in cell.shown}
        results = {mine[name] for name in part["results"]}
        assert results <= shown, results - shown
        numbers.update(mine)
    # ...the worked neuron's gradient is autograd's, for the inputs that
    # the slide states...
    w, x, b, y = (float(numbers[f"neuron_{v}"].replace("−", "-"))
                  for v in "wxby")
    w = torch.tensor(w, dtype=torch.float64, requires_grad=True)
    b = torch.tensor(b, dtype=torch.float64, requires_grad=True)
    loss = 0.5 * (torch.sigmoid(w * x + b) - y) ** 2  # half squared error
    loss.backward()
    assert numbers["neuron_dw"] == f"{w.grad.item():.5f}"
    assert numbers["neuron_db"] == f"{b.grad.item():.5f}"
    assert numbers["neuron_loss"] == f"{loss.item():.4f}"
    assert numbers["neuron_loss"] != numbers["neuron_db"]  # no trap
    # ...and the ReLU keeps half of the second moment (sampled)
    assert abs(float(numbers["relu_second_moment"]) - 0.5) < 0.01


def test_deck_dividers_name_the_books_chapters():
    # the deck is its own project and cannot cross-reference the book, so
    # its typed chapter numbers are checked against the book's numbering
    numbers = qmd.book_numbers()
    titles = {}
    for path in qmd.chapters():
        match = re.search(r"^# (.+?) \{#(sec-[\w-]+)\}", path.read_text(),
                          re.MULTILINE)
        if match and match.group(2) in numbers:
            titles[numbers[match.group(2)]] = match.group(1)
    dividers = re.findall(r"^# Chapter (\d+): (.+)$", DECK.read_text(),
                          re.MULTILINE)
    assert [n for n, _ in dividers] == ["1", "2", "3"]
    for number, title in dividers:
        assert titles[number] == title
    first, last = dividers[0][0], dividers[-1][0]
    assert f"chapters {first} to {last}" in DECK.read_text()


def test_the_engines_excerpt_is_the_engines_code():
    # line for line, as in code/backprop/engine.py (a production read
    # found the slide's __mul__ without its as_value)
    excerpt = re.search(r"```python\n(def __mul__.*?)```", DECK.read_text(),
                        re.DOTALL).group(1)
    engine = (ROOT / "code" / "backprop" / "engine.py").read_text()
    method = engine[engine.index("    def __mul__"):]
    method = method[:method.index("\n\n    def ")]
    assert [line.strip() for line in excerpt.strip().splitlines()] == [
        line.strip() for line in method.strip().splitlines()]


@pytest.mark.parametrize("chapter", ["backprop", "autograd", "deep"])
def test_no_plot_puts_a_legend_or_a_note_on_its_lines(run_chapter,
                                                       chapter):
    # every figure the chapter shows, with its numbers, on the page and as
    # drawn for a slide (a production read found the slide's cost plot
    # with a legend entry struck through by two lines, and Figure 3.5's
    # label hiding the spikes of its first steps); chapter_run.py
    run = run_chapter(chapter)
    assert run.value("len(_figures_watched)") > 0
    assert run.value("_labels_on_lines") == []
