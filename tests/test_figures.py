"""The figures: what chapter 3's legends and notes print, and room for
their lines; and what survives a grayscale print, with true minus signs,
in every figure."""

import io
import itertools
import re
from collections import Counter

import matplotlib
import numpy as np
import pytest
import torch
from matplotlib.patches import FancyBboxPatch, Rectangle
from matplotlib.text import Annotation, Text

from backprop import (
    blame,
    depth,
    diagrams,
    engine,
    figures,
    grids,
    style,
    tasks,
)
from backprop.vector_graph import vector_graph

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


def network(n, d_in, hidden, out=1):
    """The shapes of X, W1, b1, W2, b2 and y in a network like the one
    the chapter checks against autograd (32 examples, 5-8-1)."""
    return {"X": torch.Size([n, d_in]), "W1": torch.Size([hidden, d_in]),
            "b1": torch.Size([hidden]), "W2": torch.Size([out, hidden]),
            "b2": torch.Size([out]),
            "y": torch.Size([n] if out == 1 else [n, out])}


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
        "vector": vector_graph(network(32, 5, 8)),
        "engine": diagrams.value_graph(loss, {}),
        "blame": grids.blame_flow([3, 4, 4, 1], deltas),
        "outer": grids.outer_product(deltas[1], acts[1]),
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


def test_every_figure_text_prints_dark_in_grey():
    # a label in its series' colour, Okabe-Ito's vermillion, had a
    # contrast of 3.9 with the paper, and printed faint in grey: text has
    # one of 7 at least, as the pages' text has (white text sits on a fill
    # dark enough for it, grids._ink)
    def luminance(rgb):
        linear = np.where(rgb <= 0.04045, rgb / 12.92,
                          ((rgb + 0.055) / 1.055) ** 2.4)
        return linear @ [0.2126, 0.7152, 0.0722]
    pale = set()
    for name, fig in every_figure().items():
        for text in fig.findobj(Text):
            rgb = np.array(matplotlib.colors.to_rgb(text.get_color()))
            if text.get_visible() and text.get_text().strip() and (
                    rgb < 1).any() and 1.05 / (luminance(rgb) + 0.05) < 7:
                pale.add((name, text.get_text(), text.get_color()))
    assert pale == set()


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


def _boxes(name, slide):
    """Figure 1.3 or 1.4 with chapter 1's numbers, as the page or a slide
    shows it (the slide's is drawn again, shorter)."""
    deltas, acts = chapter_one()
    fig = (grids.blame_flow([3, 4, 4, 1], deltas) if name == "blame"
           else grids.outer_product(deltas[1], acts[1]))
    return fig.for_slide() if slide else fig


@pytest.mark.parametrize("slide", [False, True], ids=["page", "slide"])
@pytest.mark.parametrize("name", ["blame", "outer"])
def test_every_boxs_sign_reads_in_grey(name, slide):
    # In grey, orange and purple of one size print alike: each box says
    # its sign with its border, dashed on paper-white gaps if negative and
    # solid otherwise, and with a printed minus sign. Figure 1.3's boxes
    # had dashes over the fill, which vanished on the darkest ones.
    fig = _boxes(name, slide)
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


@pytest.mark.parametrize("slide", [False, True], ids=["page", "slide"])
@pytest.mark.parametrize("name", ["blame", "outer"])
def test_every_boxs_value_keeps_clear_of_its_border(name, slide):
    # the minus signs of Figure 1.4 touched their dashed borders
    fig = _boxes(name, slide)
    fig.set_dpi(200)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:
        for patch in ax.patches:
            if not isinstance(patch, FancyBboxPatch):
                continue
            # 1.5 pt from the border's inner edge: half of its stroke, or
            # of the white band under it (style.OnPaper), lies inside
            stroke = max([patch.get_linewidth()] + [getattr(
                effect, "band", 0) for effect in patch.get_path_effects()])
            clear = (1.5 + stroke / 2) * 200 / 72  # pixels
            inner = patch.get_window_extent(renderer).padded(-clear)
            (text,) = [t for t in ax.texts if patch.get_window_extent(
                renderer).contains(*ax.transData.transform(
                    t.get_position()))]
            box = text.get_window_extent(renderer)
            assert inner.fully_contains(box.x0, box.y0) and (
                inner.fully_contains(box.x1, box.y1)), text.get_text()


def test_blame_colour_bar_is_drawn_not_a_raster():
    # A colour bar of many colours is a 110-dpi picture by default, whose
    # rounded pixels printed a strip of purple over the bar's frame
    # (Figure 1.3, slide 11); drawn as shapes it stays inside
    fig = grids.blame_flow([3, 4, 4, 1], chapter_one()[0])
    svg = io.StringIO()
    fig.savefig(svg, format="svg")
    assert "<image" not in svg.getvalue()


def test_blame_colour_bar_says_its_sign_in_grey():
    # orange and purple of one depth print as one grey, so the bar's
    # halves print alike: like the boxes, the negative half has a dashed
    # border on paper-white gaps and the positive half a solid one (issue:
    # Figure 1.2's bar became one grey ramp)
    fig = grids.blame_flow([3, 4, 4, 1], chapter_one()[0])
    grey = _grey(fig)
    bar = fig.axes[1]
    halves = sorted((patch.get_window_extent() for patch in bar.patches
                     if isinstance(patch, Rectangle)), key=lambda b: b.y0)
    assert len(halves) == 2
    paper = []
    for box in halves:  # the share of each side that shows paper
        rows = grey.shape[0] - np.arange(int(box.y0 + 0.2 * box.height),
                                         int(box.y1 - 0.2 * box.height))
        paper.append(min((grey[rows][:, int(round(x)) - 1:int(round(x)) + 2]
                          .min(axis=1) > 0.85).mean() for x in (box.x0,
                                                                 box.x1)))
    assert 0.15 < paper[0] < 0.7 and paper[1] == 0, paper  # dashed, solid


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


# ---- the network at vector level -------------------------------------------

def _times(*dims):
    return " \N{MULTIPLICATION SIGN} ".join(str(d) for d in dims)


def test_vector_graph_gives_every_gradient_the_shape_of_its_tensor():
    # shapes unlike the chapter's, with two outputs: a shape typed into
    # the drawing, rather than read from its argument, would show
    n, d_in, hidden, out = 7, 3, 4, 2
    fig = vector_graph(network(n, d_in, hidden, out))
    tensors = {"X": _times(n, d_in), "W1": _times(hidden, d_in),
               "b1": _times(hidden), "Z1": _times(n, hidden),
               "A1": _times(n, hidden), "W2": _times(out, hidden),
               "b2": _times(out), "Z2": _times(n, out),
               "y": _times(n, out), "L": "scalar"}
    shape = re.compile(r"\d+( \N{MULTIPLICATION SIGN} \d+)*|scalar")
    name = re.compile(r"\{\\?(\w+)\}\^\{\((\d)\)\}")  # W^{(1)}: W1
    upright, named, gradients = [], {}, {}
    for text in fig.axes[0].texts:
        lines = text.get_text().split("\n")
        sizes = [line for line in lines if shape.fullmatch(line)]
        if not sizes:
            continue  # a node or the key
        (size,) = sizes
        (symbol,) = [line for line in lines if line != size] or [""]
        key = "".join(name.search(symbol).groups()) if symbol else None
        if text.get_style() == "italic":  # a gradient: dL/d(it), or Delta
            assert text.get_color() == style.INK[style.VERMILLION]
            assert key and ("Delta" in key or r"\partial L/" in symbol)
            gradients[key.replace("Delta", "Z")] = size
        else:
            assert text.get_color() == style.INK[style.BLUE]
            upright.append(size)
            if key:
                named[key] = size
    # every tensor's shape on its forward edge, the intermediate ones by
    # name; beside every parameter and activation, its gradient's shape
    assert Counter(upright) == Counter(tensors.values())
    assert named == {k: tensors[k] for k in ("Z1", "A1", "Z2")}
    assert gradients == {k: tensors[k] for k in tensors
                         if k not in ("X", "y", "L")}
    arrows = [a.arrow_patch for a in fig.axes[0].texts
              if isinstance(a, Annotation)]
    dashed = [a for a in arrows if a.get_linestyle() == "--"]
    assert len(dashed) == len(gradients) + 1  # and the key's
    assert {a.get_edgecolor() for a in dashed} == {
        matplotlib.colors.to_rgba(style.VERMILLION)}


# As in test_backprop_chapter.py: a label nearer than this (in points, as
# printed) to a line, an arrowhead or a shape reads as touching it.
CLEAR = 2.5


@pytest.mark.parametrize("dpi", [110, 200])
@pytest.mark.parametrize("shapes", [network(32, 5, 8), network(7, 3, 4, 2)],
                         ids=["chapter", "small"])
def test_vector_graph_labels_touch_no_line_box_or_other_label(shapes, dpi):
    fig = vector_graph(shapes)
    assert fig.get_figwidth() == pytest.approx(diagrams.DRAWN)  # print size
    fig.set_dpi(dpi)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    ax = fig.axes[0]
    clear = CLEAR * dpi / 72  # in pixels
    texts = [t for t in ax.texts if t.get_text()]  # not the arrows
    assert min(t.get_fontsize() for t in texts) >= 8
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in texts]
    nodes = [p.get_window_extent(renderer) for p in ax.patches]
    for (a, box), (b, other) in itertools.combinations(boxes, 2):
        assert not box.padded(1).overlaps(other), (a, b)
    for label, box in boxes:
        mid = ((box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2)
        around = [n for n in nodes if n.contains(*mid)]
        if around:  # a node's own text: inside it, clear of its border
            (node,) = around
            inner = node.padded(-clear)
            assert inner.fully_contains(box.x0, box.y0), label
            assert inner.fully_contains(box.x1, box.y1), label
        assert not [n for n in nodes if n not in around
                    and n.overlaps(box.padded(clear))], label
    # every line and arrow, sampled every half pixel along its middle,
    # keeps CLEAR points from every text
    drawn = [a.arrow_patch for a in ax.texts if isinstance(a, Annotation)]
    for artist in drawn + ax.lines:
        path = artist.get_transform().transform_path(artist.get_path())
        for corners in path.to_polygons(closed_only=False):
            steps = [np.linspace(p, q, int(np.hypot(*(q - p)) * 2) + 2)
                     for p, q in zip(corners, corners[1:])]
            points = np.concatenate(steps)
            for label, box in boxes:
                near = box.padded(clear)
                hit = ((points[:, 0] > near.x0) & (points[:, 0] < near.x1)
                       & (points[:, 1] > near.y0) & (points[:, 1] < near.y1))
                assert not hit.any(), label


def test_series_print_as_greys_apart():
    # Figure 3.5's fourth run, in Okabe-Ito's green, printed the grey of
    # the second's vermillion (luma 106 and 119): each series' colour has
    # a grey of its own, 30 levels of 255 at least from every other's
    greys = sorted(255 * np.array(matplotlib.colors.to_rgb(look["color"]))
                   @ [0.299, 0.587, 0.114] for look in style.SERIES)
    assert len(greys) == 4 and min(np.diff(greys)) >= 30, greys
