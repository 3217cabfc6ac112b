"""The figures: what chapter 3's legends and notes print, and room for
their lines; and what survives a grayscale print, with true minus signs,
in every figure."""

import io
import re

import matplotlib
import numpy as np
import pytest
import torch
from matplotlib.patches import FancyBboxPatch
from matplotlib.text import Text

from backprop import blame, depth, diagrams, engine, figures, style, tasks

matplotlib.use("Agg")
MINUS = "\N{MINUS SIGN}"


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


# ---- print: grayscale and minus signs ---------------------------------------

def chapter_one():
    """The network of chapter 1's blame figures (3-4-4-1, seed 6050)."""
    weights, biases, x = tasks.example_network()
    acts = blame.forward(weights, biases, x)
    deltas, _, _ = blame.backward(weights, acts, torch.ones(1, 1))
    return deltas, acts


def neuron():
    """Figure 1.2's neuron, w = 0.7, x = 2, b = -0.5, y = 0.1: its values
    and gradients, from the engine."""
    w, x, b, y = (engine.Value(v) for v in (0.7, 2.0, -0.5, 0.1))
    wx = w * x
    z = wx + b
    a = z.sigmoid()
    err = a - y
    loss = 0.5 * err * err
    loss.backward()
    nodes = {"w": w, "x": x, "b": b, "wx": wx, "z": z, "a": a, "L": loss}
    return ({k: v.data for k, v in nodes.items()},
            {k: v.grad for k, v in nodes.items()}, loss)


def every_figure():
    """Every figure function of the book, on small data with negative
    numbers where its figure can show them."""
    deltas, acts = chapter_one()
    values, grads, loss = neuron()
    z = torch.linspace(-6, 6, 121)
    s = torch.sigmoid(z)
    layers = [1.0, 0.1, 0.01]
    methods = ["finite differences", "forward mode", "reverse mode",
               "forward pass"]
    fans = {mode: {"signal": [1.0, 2.0], "blame": [0.5, 1.0]}
            for mode in ("fan_in", "fan_out")}
    return {
        "numeric": diagrams.numeric_graph(values, grads),
        "engine": diagrams.value_graph(loss, {}),
        "blame": figures.blame_flow([3, 4, 4, 1], deltas),
        "outer": figures.outer_product(deltas[1], acts[1]),
        "train": figures.training_curve([1.0, 0.5, 0.1], 0.3),
        "gates": figures.gates(z, s * (1 - s), (z > 0).double()),
        "depth": figures.depth_norms({"sigmoid": {"norms": layers}}),
        "signal": figures.signal_size({"naive": layers}),
        "cost": figures.gradient_cost([10, 100], [
            dict.fromkeys(methods, 10.0), dict.fromkeys(methods, 100.0)]),
        "memory": figures.saved_memory([
            {"depth": d, "plain bytes": 1024.0 * d,
             "checkpointed bytes": 512.0 * d} for d in (1, 4)]),
        "fans": figures.fan_modes([8, 16, 8], fans, fans),
    }


def test_no_figure_prints_a_hyphen_for_a_minus():
    # A number in a figure prints with the text's minus sign, U+2212, in
    # the tick labels too, whatever the reader's matplotlibrc says. Math
    # ($...$) is left out: mathtext sets "-" as a minus of its own.
    hyphen = re.compile(r"-(?=[\d.])")
    with matplotlib.rc_context({"axes.unicode_minus": False}):
        style.apply()
        for name, fig in every_figure().items():
            fig.canvas.draw()
            hidden = {id(t) for ax in fig.axes if not ax.axison  # "off"
                      for axis in (ax.xaxis, ax.yaxis)
                      for t in axis.findobj(Text)}
            texts = [re.sub(r"\$[^$]*\$", "", t.get_text())
                     for t in fig.findobj(Text)
                     if t.get_visible() and id(t) not in hidden]
            assert not [t for t in texts if hyphen.search(t)], name
            if name in ("numeric", "engine", "blame", "outer", "gates"):
                assert any(MINUS in t for t in texts), name


def _grey(fig, dpi=150):
    """The figure as a grayscale print sees it: Rec. 601 luma, 0 to 1."""
    fig.set_dpi(dpi)
    fig.canvas.draw()
    rgb = np.asarray(fig.canvas.buffer_rgba())[..., :3] / 255
    return rgb @ [0.299, 0.587, 0.114]


def _paper_in_border(grey, box):
    """The share of a box's top and bottom edges (their middle 60%) where
    the three pixel rows around the border are all paper white: the gaps
    of a dashed border, none in a solid one."""
    cols = np.arange(int(box.x0 + 0.2 * box.width),
                     int(box.x1 - 0.2 * box.width))
    shares = []
    for y in (box.y0, box.y1):
        row = int(round(grey.shape[0] - y))  # display y runs upwards
        shares.append((grey[row - 1:row + 2, cols].min(axis=0)
                       > 0.85).mean())
    return min(shares)


@pytest.mark.parametrize("name", ["blame", "outer"])
def test_every_boxs_sign_reads_in_grey(name):
    # In grey, orange and purple of one size print alike: each box says
    # its sign with its border, dashed on paper-white gaps if negative and
    # solid otherwise, and with a printed minus sign. Figure 1.3's boxes
    # had dashes over the fill, which vanished on the darkest ones.
    deltas, acts = chapter_one()
    fig = (figures.blame_flow([3, 4, 4, 1], deltas) if name == "blame"
           else figures.outer_product(deltas[1], acts[1]))
    grey = _grey(fig)
    signs = []
    for ax in fig.axes:
        for patch in ax.patches:
            if not isinstance(patch, FancyBboxPatch):
                continue
            box = patch.get_window_extent()
            (text,) = [t.get_text() for t in ax.texts if box.contains(
                *ax.transData.transform(t.get_position()))]
            negative = float(text.replace(MINUS, "-")) < 0
            paper = _paper_in_border(grey, box)
            assert text.startswith(MINUS) == negative, text
            if negative:
                assert 0.15 < paper < 0.7, (text, paper)  # dashed
            else:
                assert paper == 0, (text, paper)  # solid
            signs.append(negative)
    assert any(signs) and not all(signs)


def test_blame_colour_bar_is_drawn_not_a_raster():
    # A colour bar of many colours is a 110-dpi picture by default, whose
    # rounded pixels printed a strip of purple over the bar's frame
    # (Figure 1.3, slide 11); drawn as shapes it stays inside
    fig = figures.blame_flow([3, 4, 4, 1], chapter_one()[0])
    svg = io.StringIO()
    fig.savefig(svg, format="svg")
    assert "<image" not in svg.getvalue()


def test_numeric_graph_sets_gradients_apart_from_values_without_colour():
    # blue and vermillion print as like greys: the gradients below the
    # edges are in italics, the values above them upright
    values, grads, _ = neuron()
    fig = diagrams.numeric_graph(values, grads)
    numbers = [t for t in fig.axes[0].texts
               if re.fullmatch(r"[\d.\N{MINUS SIGN}]+", t.get_text())]
    above = [t for t in numbers if t.get_va() == "bottom"]
    below = [t for t in numbers if t.get_va() == "top"]
    assert len(above) == len(below) == len(values)
    assert {t.get_style() for t in above} == {"normal"}
    assert {t.get_style() for t in below} == {"italic"}
    keys = {t.get_text().split(",")[0]: t.get_style()
            for t in fig.axes[0].texts if "each edge" in t.get_text()}
    assert keys == {"forward": "normal", "backward": "italic"}  # the key
