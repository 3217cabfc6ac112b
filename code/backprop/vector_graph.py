"""A network drawn at the level of whole tensors: each tensor's shape on
its forward edge, and beside it the gradient that comes back, of the
same shape. Returns a Figure, as diagrams.py's graphs do."""

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import FancyBboxPatch

from backprop import style
from backprop.diagrams import DRAWN


def _shape(size):
    """A shape as the text writes it, 32 × 5; "scalar" if it has none."""
    return " \N{MULTIPLICATION SIGN} ".join(map(str, size)) or "scalar"


def vector_graph(shapes):
    """The chapter's two-layer network as a graph of whole tensors, one
    example per row. A tensor's shape sits above or left of its forward
    edge (upright, blue, solid); beside it, for a parameter or an
    activation, runs the backward edge (italic, vermillion, dashed) with
    dL/d(that tensor) and its shape, the same one. shapes holds the shapes
    of X, W1, b1, W2, b2 and y; the rest follow as in the forward pass.
    Edges are level or upright, labelled beside their middles: no label
    meets a line."""
    n, hidden, out = shapes["X"][0], shapes["W1"][0], shapes["W2"][0]

    def bold(t, k):  # a layer's tensor: W and 1 give W⁽¹⁾
        return rf"$\boldsymbol{{{t}}}^{{({k})}}$"

    def grad(t, k):  # dL/d(that tensor); dL/dZ is the blame, Delta
        if t == "Z":
            return rf"$\boldsymbol{{\Delta}}^{{({k})}}$"
        return rf"$\partial L/\partial\boldsymbol{{{t}}}^{{({k})}}$"

    # name: x, y, text, half width, half height (None: a circle), in
    # inches; the operations on the spine, the leaves above and below
    nodes = {"X": (0.19, 0, r"$\boldsymbol{X}$", 0.16, 0.13),
             "lin1": (1.22, 0, r"$\boldsymbol{XW}^{(1)\top}$" "\n"
                      r"$+\,\boldsymbol{b}^{(1)}$", 0.33, 0.22),
             "sig": (2.36, 0, r"$\sigma$", 0.17, None),
             "lin2": (3.6, 0, r"$\boldsymbol{A}^{(1)}"
                      r"\boldsymbol{W}^{(2)\top}$" "\n"
                      r"$+\,\boldsymbol{b}^{(2)}$", 0.4, 0.22),
             "mse": (5.1, 0, "mean squared\nerror", 0.53, 0.22),
             "L": (5.1, 1.08, "$L$", 0.15, 0.13),
             "y": (5.1, -1.08, r"$\boldsymbol{y}$", 0.16, 0.13),
             "W1": (1.22, 1.08, bold("W", 1), 0.22, 0.13),
             "b1": (1.22, -1.08, bold("b", 1), 0.2, 0.13),
             "W2": (3.6, 1.08, bold("W", 2), 0.22, 0.13),
             "b2": (3.6, -1.08, bold("b", 2), 0.2, 0.13)}
    # from, to, shape, gradient (X and y need none) and, on the spine,
    # the tensor's name, which no box gives
    edges = [("X", "lin1", shapes["X"], "", ""),
             ("lin1", "sig", (n, hidden), grad("Z", 1), bold("Z", 1)),
             ("sig", "lin2", (n, hidden), grad("A", 1), bold("A", 1)),
             ("lin2", "mse", (n, out), grad("Z", 2), bold("Z", 2)),
             *[(t + k, "lin" + k, shapes[t + k], grad(t, k), "")
               for t in "Wb" for k in "12"],
             ("y", "mse", shapes["y"], "", ""), ("mse", "L", (), "", "")]
    fig = plt.figure(figsize=(DRAWN, 3.01))  # prints at full size
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set(xlim=(0, DRAWN), ylim=(-1.78, 1.23), aspect="equal")
    ax.axis("off")
    arrow = {"arrowstyle": "-|>", "lw": 1.1, "mutation_scale": 9,
             "shrinkA": 0, "shrinkB": 0}
    gap, pad = 0.04, 0.035  # from the centre line to an edge; label to edge
    fwd, bwd = ({"color": style.INK[style.BLUE], "fontsize": 8},
                {"color": style.INK[style.VERMILLION], "fontsize": 8,
                 "style": "italic"})
    for a, b, size, back, name in edges:
        (xa, ya, _, wa, ha), (xb, yb, _, wb, hb) = nodes[a], nodes[b]
        # between the facing sides of the two nodes; a pair of edges runs
        # either side of the line between their centres
        way = np.sign([xb - xa, yb - ya])
        start = np.array([xa, ya]) + way * (wa, ha or 0)
        stop = np.array([xb, yb]) - way * (wb, hb or 0)
        side = np.array([0, gap] if ya == yb else [-gap, 0]) * bool(back)
        ax.annotate("", xy=stop + side, xytext=start + side,
                    arrowprops={**arrow, **style.FORWARD})
        if back:
            ax.annotate("", xy=start - side, xytext=stop - side,
                        arrowprops={**arrow, **style.BACKWARD})
        # a level label over its edge's shaft, clear of the arrowhead
        mid, shape = (start + stop) / 2, _shape(size)
        head = way * 0.4 * arrow["mutation_scale"] / 72 / 2
        if ya == yb:  # the names outermost, the shapes facing each other
            ax.text(*mid - head + side + (0, pad), f"{name}\n{shape}".lstrip(),
                    ha="center", va="bottom", **fwd)
            if back:
                ax.text(*mid + head - side - (0, pad), f"{shape}\n{back}",
                        ha="center", va="top", **bwd)
        else:  # the shapes side by side: half a line below the middle
            low = 0.6 * fwd["fontsize"] / 72 if back else 0
            ax.text(*mid + side - (pad, low), shape, ha="right",
                    va="center", **fwd)
            if back:
                ax.text(*mid - side + (pad, 0), f"{back}\n{shape}",
                        ha="left", va="center", **bwd)
    for x, y, text, half, h in nodes.values():
        patch = plt.Circle((x, y), half) if h is None else FancyBboxPatch(
            (x - half + 0.05, y - h + 0.05), 2 * half - 0.1, 2 * h - 0.1,
            boxstyle="round,pad=0.05")
        patch.set(fc=style.LIGHT, ec=style.BLACK, lw=1)
        ax.add_patch(patch)
        ax.text(x, y, text, ha="center", va="center", fontsize=9)
    # the key: the two directions, in words as well as by colour, line
    # style and (for the gradients) italics
    for y, words, look, slant in [
            (-1.45, "forward, above or left of each edge: the tensor and "
             "its shape", style.FORWARD, "normal"),
            (-1.67, r"backward, below or right: $\partial L/\partial$"
             "(that tensor), of the same shape", style.BACKWARD, "italic")]:
        ends = [(0.6, y), (0.05, y)][::1 if look is style.FORWARD else -1]
        ax.annotate("", xy=ends[0], xytext=ends[1],
                    arrowprops={**arrow, **look, "lw": 1.3})
        ax.text(0.7, y, words, va="center", color=style.INK[look["color"]],
                fontsize=8, style=slant)
    return fig
