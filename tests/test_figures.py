"""Chapter 3's figures: what their legends and notes print, and room for
their lines."""

import matplotlib
import numpy as np
import pytest
import torch

from backprop import depth, figures, style

matplotlib.use("Agg")


@pytest.fixture(autouse=True)
def book_style():
    style.apply()
    yield
    matplotlib.pyplot.close("all")


def legend(fig):
    return [t.get_text() for t in fig.axes[0].get_legend().get_texts()]


def test_depth_norms_name_relu_as_the_text_does_with_room_above():
    diagnostics = {name: depth.gradient_diagnostic(name)
                   for name in ("sigmoid", "relu")}
    fig = figures.depth_norms(diagnostics)
    assert legend(fig) == ["sigmoid", "ReLU"]
    # the highest point sits well below the frame, not against it
    low, high = np.log10(fig.axes[0].get_ylim())
    top = np.log10(max(max(r["norms"]) for r in diagnostics.values()))
    assert (top - low) / (high - low) < 0.92  # was 0.95: on the frame


def test_signal_size_legend_writes_the_root_as_the_book_does():
    names = ["naive, std 0.05", "naive, std 0.12", "He, std sqrt(2/n)"]
    curves = {name: [1.0, 1.0] for name in names}  # chapter 3's names
    shown = legend(figures.signal_size(curves))
    assert shown[-1] == "He, std \N{SQUARE ROOT}(2/n)"
    assert not any("sqrt" in s for s in shown)


def test_gates_note_sets_z_in_math_italics():
    z = torch.arange(-600, 601) / 100
    s = torch.sigmoid(z)  # the gates, derived by hand
    fig = figures.gates(z, s * (1 - s), (z > 0).double())
    notes = [t.get_text() for t in fig.axes[0].texts]
    assert "sigmoid peak 0.25 at $z = 0$" in notes
    assert not any("z = 0" in n and "$" not in n for n in notes)
