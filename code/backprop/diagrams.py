"""Graphs of operations, drawn node by node: numeric_graph (one neuron
with the value and gradient on every edge) and value_graph (the graph
that the Value engine records). Each takes its numbers and returns a
Figure; the plots of data are in figures.py, the grids of blame in
grids.py, and
the network of whole tensors in vector_graph.py.
"""

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import FancyBboxPatch

from backprop import style

# The width of a diagram that fills the PDF's text block: savefig's tight
# bounding box adds 0.1 inch on either side.
DRAWN = style.TEXT - 0.25


def _number(v):
    """At most four decimals, trailing zeros dropped, a true minus sign."""
    return f"{v:.4f}".rstrip("0").rstrip(".").replace("-", "\N{MINUS SIGN}")


def numeric_graph(values, grads):
    """One neuron as a graph of small operations, with numbers. On every
    edge, the value that flows forward sits above (upright, blue) and
    dL/d(that value), flowing back, below (italic, vermillion): the
    italics tell them apart in grey, where the two colours look alike, as
    in value_graph. values and grads are keyed
    w, x, b, wx, z, a and L. Every labelled stretch of an edge is
    horizontal, so no label meets a line, and long enough that its labels
    clear the arrowhead and the boxes at either end.
    """
    # name: (x, y, text, half width); circles for operations, else boxes
    nodes = {"w": (-0.1, 0.95, "$w$", 0.28), "x": (-0.1, -0.95, "$x$", 0.28),
             "b": (2.2, -1.55, "$b$", 0.28),
             "wx": (2.3, 0, r"$\times$", 0.36), "z": (4.6, 0, "$+$", 0.36),
             "a": (6.9, 0, r"$\sigma$", 0.36),
             "L": (9.9, 0, "\N{VULGAR FRACTION ONE HALF}($a - y$)"
                   "\N{SUPERSCRIPT TWO}", 1.0),
             "end": (12.75, 0, "$L$", 0.28)}
    # as wide as the PDF's text block, so the figure prints at full size
    x0, x1, y0, y1 = -0.45, 13.1, -2.45, 1.85
    inch = DRAWN / (x1 - x0)  # inches per unit
    fig = plt.figure(figsize=((x1 - x0) * inch, (y1 - y0) * inch))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.set_aspect("equal")
    ax.axis("off")
    arrow = {"arrowstyle": "-|>", "lw": 1.2, "color": style.GREY,
             "mutation_scale": 11, "shrinkA": 0, "shrinkB": 0}
    head = 0.4 * 11 / 72 / inch  # the arrowhead's length, in units

    def label(key, start, stop, y):
        mid = (start + stop) / 2
        ax.text(mid, y + 0.13, _number(values[key]), ha="center",
                va="bottom", color=style.INK[style.BLUE], fontsize=9)
        ax.text(mid, y - 0.13, _number(grads[key]), ha="center", va="top",
                color=style.INK[style.VERMILLION], fontsize=9,
                style="italic")

    # an input: a labelled horizontal run, then a short slant to its node
    for key, dst, bend in [("w", "wx", 1.6), ("x", "wx", 1.6),
                           ("b", "z", 3.95)]:
        lx, ly, _, half = nodes[key]
        tip = np.array(nodes[dst][:2], dtype=float)
        ax.plot([lx + half, bend], [ly, ly], color=style.GREY, lw=1.2)
        unit = (tip - (bend, ly)) / np.hypot(*(tip - (bend, ly)))
        ax.annotate("", xy=tip - nodes[dst][3] * unit, xytext=(bend, ly),
                    arrowprops=arrow)
        label(key, lx + half, bend, ly)
    # the spine: each operation feeds the next, and the last one gives L;
    # the labels sit over the shaft, clear of the arrowhead
    spine = ["wx", "z", "a", "L", "end"]
    for key, after in zip(spine, spine[1:]):
        start = nodes[key][0] + nodes[key][3]
        stop = nodes[after][0] - nodes[after][3]
        ax.annotate("", xy=(stop, 0), xytext=(start, 0), arrowprops=arrow)
        label(key, start, stop - head, 0.0)
    for name, (x, y, text, half) in nodes.items():
        if name in ("wx", "z", "a"):
            patch = plt.Circle((x, y), half)
        else:
            patch = FancyBboxPatch((x - half + 0.08, y - 0.2),
                                   2 * half - 0.16, 0.4,
                                   boxstyle="round,pad=0.08")
        patch.set(fc=style.LIGHT, ec=style.BLACK, lw=1)
        ax.add_patch(patch)
        ax.text(x, y, text, ha="center", va="center", fontsize=11)
    # the two directions, in words as well as by colour, line style and
    # (for the gradients) italics
    renderer = fig.canvas.get_renderer()
    for y, words, look, slant in [
            (1.6, "forward, above each edge: the value", style.FORWARD,
             "normal"),
            (-2.2, r"backward, below each edge: $\partial L/\partial$"
             "(that value)", style.BACKWARD, "italic")]:
        text = ax.text(-0.3, y, words, va="center",
                       color=style.INK[look["color"]],
                       fontsize=9, style=slant)
        end = text.get_window_extent(renderer).transformed(
            ax.transData.inverted()).x1 + 0.3
        ends = [(12.95, y), (end, y)]
        if look is style.BACKWARD:
            ends.reverse()
        ax.annotate("", xy=ends[0], xytext=ends[1],
                    arrowprops={**arrow, **look, "lw": 1.4})
    return fig


def _in_order(root):
    """Every node of root's graph, each one after all of its parents, as
    engine.topological_order gives them: the chapter that draws this
    figure pastes engine.py's source, so it must not import the module."""
    order, seen = [], set()

    def visit(node):
        if id(node) not in seen:
            seen.add(id(node))
            for parent in node.parents:
                visit(parent)
            order.append(node)

    visit(root)
    return order


def value_graph(root, names):
    """The Value engine's graph of root, drawn left to right, one column
    per step from the inputs. Each box holds a name (from names, keyed by
    Value), the data and the gradient, rounded as in numeric_graph; a
    circle inside its top left corner shows the operation that made it.
    Edges that skip a column are routed through a free slot of that
    column, so no line crosses a box. An edge leaves its source at the
    right border and ends in a level arrowhead on the target's left
    border, below the circle; edges into one box end at different
    heights. The figure is as wide as the PDF's text block, so that it
    prints at full size.
    """
    order = _in_order(root)
    rank = {id(n): i for i, n in enumerate(order)}
    steps_to_root = {id(root): 0}
    for node in reversed(order):  # every consumer comes first
        for parent in node.parents:
            steps_to_root[id(parent)] = max(steps_to_root.get(id(parent), 0),
                                            steps_to_root[id(node)] + 1)
    last = max(steps_to_root.values())
    column = {key: last - steps for key, steps in steps_to_root.items()}
    # each edge becomes a chain of items, one per column it crosses
    chains = []
    for node in order:
        for parent in dict.fromkeys(node.parents):  # x * x: one edge
            p, c = id(parent), id(node)
            chains.append([p] + [(p, c, k) for k in range(column[p] + 1,
                                                          column[c])] + [c])
    items = {**column, **{k: k[2] for ch in chains for k in ch[1:-1]}}
    onward = {}
    for chain in chains:
        for a, b in zip(chain, chain[1:]):
            onward.setdefault(a, []).append(b)
    # in inches (1 unit = 1 inch): a box, the circle in it, the rows of
    # text, the level run of an arrow, and the height at which a single
    # edge leaves or enters a box (between the data and the gradient)
    box_w, box_h, radius, row = 0.64, 0.56, 0.072, 0.165
    inset, run, port = 0.04, 0.09, -0.06
    pitch = min(1.0, (DRAWN - box_w) / max(last, 1))

    def height(k):  # a box (keyed by id), or the slot of a passing edge
        return box_h if isinstance(k, int) else 0.0

    # place columns right to left, each item near the mean of its onward
    y = {id(root): 0.0}
    for col in range(last - 1, -1, -1):
        here = [k for k, c in items.items() if c == col]
        want = {k: np.mean([y[o] for o in onward[k]]) for k in here}
        here.sort(key=lambda k: (-want[k], rank.get(k, -1)))  # top first
        placed = [want[here[0]]]
        for above, below in zip(here, here[1:]):
            gap = (height(above) + height(below)) / 2 + 0.2
            placed.append(min(want[below], placed[-1] - gap))
        shift = np.mean([want[k] for k in here]) - np.mean(placed)
        y.update({k: at + shift for k, at in zip(here, placed)})
    x = {k: c * pitch for k, c in items.items()}

    def leaves(k):  # where an edge leaves a box or a slot
        return y[k] + port if isinstance(k, int) else y[k]

    # the edges into a box end at distinct heights below its circle, in
    # the order of where they come from, so that none cross there
    ends = {}
    for chain in chains:
        ends.setdefault(chain[-1], []).append(chain)
    tip = {}
    for target, into in ends.items():
        into.sort(key=lambda ch: -leaves(ch[-2]))
        heights = ([y[target] + port] if len(into) == 1 else np.linspace(
            y[target] + 0.01, y[target] - box_h / 2 + 0.08, len(into)))
        for chain, at in zip(into, heights):
            tip[id(chain)] = at
    low = min(y.values()) - box_h / 2 - 0.3  # room for the key
    high = max(y.values()) + box_h / 2 + 0.03
    left, right = -box_w / 2 - 0.03, last * pitch + box_w / 2 + 0.03
    fig = plt.figure(figsize=(right - left, high - low))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(left, right)
    ax.set_ylim(low, high)
    ax.axis("off")
    for chain in chains:
        points = [(x[chain[0]] + box_w / 2, leaves(chain[0]))]
        for k in chain[1:-1]:  # straight through the free slot
            points += [(x[k] - box_w / 2, y[k]), (x[k] + box_w / 2, y[k])]
        end = (x[chain[-1]] - box_w / 2, tip[id(chain)])
        turn = (end[0] - run, end[1])
        ax.plot(*zip(*points, turn), color=style.GREY, lw=1, zorder=1,
                solid_capstyle="butt")
        ax.annotate("", xy=end, xytext=turn, arrowprops={
            "arrowstyle": "-|>", "color": style.GREY, "lw": 1,
            "mutation_scale": 10, "shrinkA": 0, "shrinkB": 0})
    symbols = {"+": "+", "*": "\N{MULTIPLICATION SIGN}",
               "sigmoid": "\N{GREEK SMALL LETTER SIGMA}"}
    named = {id(v): label for v, label in names.items()}
    for node in order:
        cx, cy = x[id(node)], y[id(node)]
        ax.add_patch(FancyBboxPatch(
            (cx - box_w / 2, cy - box_h / 2), box_w, box_h, zorder=2,
            boxstyle="round,pad=0,rounding_size=0.06", fc=style.LIGHT,
            ec=style.BLACK, lw=1))
        name = {"ha": "center", "x": cx} if not node.parents else {
            "ha": "left", "x": cx - box_w / 2 + inset + 2 * radius + 0.04}
        ax.text(y=cy + row, s=named.get(id(node), ""), va="center",
                fontsize=9.5, fontweight="bold", zorder=3, **name)
        ax.text(cx, cy, _number(node.data), ha="center", va="center",
                fontsize=9, zorder=3)
        ax.text(cx, cy - row, _number(node.grad), ha="center",
                va="center", fontsize=9, style="italic",
                color=style.INK[style.VERMILLION], zorder=3)
        if node.parents:
            corner = (cx - box_w / 2 + inset + radius, cy + row)
            ax.add_patch(plt.Circle(corner, radius, zorder=4, lw=0.8,
                                    fc="white", ec=style.BLACK))
            ax.text(*corner, symbols.get(node.op, node.op), ha="center",
                    va="center_baseline", fontsize=8.5, zorder=5)
    ax.text(left + 0.03, low + 0.1, "box: name, data and, in italics, "
            "\N{PARTIAL DIFFERENTIAL}L/\N{PARTIAL DIFFERENTIAL}(box); "
            "circle: the operation that made it", fontsize=9, va="center")
    return fig
