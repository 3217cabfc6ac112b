"""The chapter's figures. Each function takes its data and returns a Figure.

The chapter calls these functions, and `python -m booktools.book figures`
exports the same figures to figures/ as SVG and PDF.
"""

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.cm import ScalarMappable
from matplotlib.colors import SymLogNorm, to_rgb
from matplotlib.patches import FancyBboxPatch

from backprop import style

# The width of a diagram that fills the PDF's text block: savefig's tight
# bounding box adds 0.1 inch on either side.
_DRAWN = style.TEXT - 0.25


def _number(v):
    """At most four decimals, trailing zeros dropped, a true minus sign."""
    return f"{v:.4f}".rstrip("0").rstrip(".").replace("-", "\N{MINUS SIGN}")


def _signed(v, digits):
    """v with its sign always shown, and a true minus sign."""
    return f"{v:+.{digits}f}".replace("-", "\N{MINUS SIGN}")


def _ink(fill):
    """Black or white: whichever contrasts more with the fill colour."""
    rgb = np.array(to_rgb(fill))
    linear = np.where(rgb <= 0.04045, rgb / 12.92,
                      ((rgb + 0.055) / 1.055) ** 2.4)
    lum = linear @ [0.2126, 0.7152, 0.0722]  # WCAG relative luminance
    return style.BLACK if (lum + 0.05) ** 2 > 0.0525 else "white"


def numeric_graph(values, grads):
    """One neuron as a graph of small operations, with numbers. On every
    edge, the value that flows forward sits above (blue) and dL/d(that
    value), flowing back, below (vermillion). values and grads are keyed
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
    inch = _DRAWN / (x1 - x0)  # inches per unit
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
                va="bottom", color=style.BLUE, fontsize=9)
        ax.text(mid, y - 0.13, _number(grads[key]), ha="center", va="top",
                color=style.VERMILLION, fontsize=9)

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
    # the two directions, in words as well as by colour and line style
    renderer = fig.canvas.get_renderer()
    for y, words, look in [
            (1.6, "forward, above each edge: the value", style.FORWARD),
            (-2.2, r"backward, below each edge: $\partial L/\partial$"
             "(that value)", style.BACKWARD)]:
        text = ax.text(-0.3, y, words, va="center", color=look["color"],
                       fontsize=9)
        end = text.get_window_extent(renderer).transformed(
            ax.transData.inverted()).x1 + 0.3
        ends = [(12.95, y), (end, y)]
        if look is style.BACKWARD:
            ends.reverse()
        ax.annotate("", xy=ends[0], xytext=ends[1],
                    arrowprops={**arrow, **look, "lw": 1.4})
    return fig


def _unit_heights(n):
    """Neuron 1 at the top, as row 1 is at the top of a matrix."""
    return np.linspace(1, -1, n + 2)[1:-1]


def blame_flow(sizes, deltas):
    """Each neuron's blame, printed in a box at which the edges end. The
    fill's hue gives the sign and its depth log|delta|, so the small
    blame of the early layers stays visible next to the output's. A
    negative blame also has a dashed border and a minus sign, so the sign
    survives a grayscale print.
    """
    blame = [d.detach().numpy().ravel() for d in deltas]
    vmax = max(np.abs(b).max() for b in blame)
    smallest = min(np.abs(b).min() for b in blame)
    norm = SymLogNorm(linthresh=smallest, vmin=-vmax, vmax=vmax)
    cmap = style.DIVERGING  # the same lightness for -v as for v
    width, height, dot = 0.46, 0.24, 0.05  # a neuron's box; an input dot
    fig, ax = plt.subplots(figsize=(style.WIDTH, 3.2))
    for col in range(1, len(sizes)):
        start = col - 1 + (dot if col == 1 else width / 2)
        for y0 in _unit_heights(sizes[col - 1]):
            for y1 in _unit_heights(sizes[col]):
                ax.plot([start, col - width / 2], [y0, y1],
                        color=style.GREY, lw=0.5, zorder=1)
    for y in _unit_heights(sizes[0]):
        ax.add_patch(plt.Circle((0, y), dot, fc="white", ec=style.BLACK,
                                zorder=3))
    for col, values in enumerate(blame, start=1):
        for y, v in zip(_unit_heights(sizes[col]), values):
            _cell(ax, col, y, v, cmap(norm(v)), (width, height),
                  text=_signed(v, 3))
    # ticks at whole powers of ten, none crowding the linear part near 0
    top = int(np.floor(np.log10(vmax)))
    low = int(np.ceil(np.log10(3 * smallest)))
    powers = [10.0**k for k in range(low, top + 1)]
    ticks = [-p for p in powers[::-1]] + [0.0] + powers
    bar = fig.colorbar(ScalarMappable(norm, cmap), ax=ax, shrink=0.8,
                       pad=0.02, ticks=ticks)
    bar.ax.set_yticklabels([f"{t:g}".replace("-", "\N{MINUS SIGN}")
                            for t in ticks])
    bar.ax.minorticks_off()
    bar.set_label(r"blame $\delta_j$ (hue: sign; depth: log size)")
    ax.annotate("blame flows this way", xy=(0.3, 1.35), xytext=(2.0, 1.35),
                va="center", color=style.VERMILLION,
                arrowprops={"arrowstyle": "-|>", "lw": 1.8,
                            "color": style.VERMILLION})
    names = ["input"] + [rf"$\delta^{{({i})}}$" for i in range(1, len(sizes))]
    ax.set_xticks(range(len(sizes)), names)
    ax.set_yticks([])
    ax.set_xlim(-0.3, len(sizes) - 1 + 0.35)
    ax.set_ylim(-1.3, 1.55)
    ax.grid(False)
    for spine in ax.spines.values():
        spine.set_visible(False)
    return fig


def _cell(ax, x, y, v, fill, size, text):
    """The value v, printed as text in a rounded box of the given fill:
    the border is solid if v >= 0 and dashed if v is negative, so that,
    with the minus sign in the text, the sign survives a grayscale
    print."""
    ax.add_patch(FancyBboxPatch(
        (x - size[0] / 2, y - size[1] / 2), *size,
        boxstyle="round,pad=0,rounding_size=0.05", fc=fill,
        ec=style.BLACK, lw=1, ls="--" if v < 0 else "-", zorder=3))
    ax.text(x, y, text, ha="center", va="center", fontsize=8,
            color=_ink(fill), zorder=4)


def outer_product(delta, act):
    """The column of blame times the row of signal gives the gradient.
    Each entry is a box, as in blame_flow: the fill's hue and a dashed
    border with a minus sign give a negative sign; the fill's depth gives
    the size, on each panel's own scale."""
    col = delta.detach().numpy().reshape(-1, 1)
    row = act.detach().numpy().reshape(1, -1)
    grad = col @ row
    n = row.shape[1]
    fig, axes = plt.subplots(
        1, 5, figsize=(_DRAWN - 0.05, 2.75),
        gridspec_kw={"width_ratios": [1, 0.6, n, 0.6, n]})
    fig.subplots_adjust(left=0, right=1, bottom=0.16, top=0.9, wspace=0.1)
    panels = {0: (col, r"blame $\delta^{(2)}$"),
              2: (row, r"signal $(a^{(1)})^\top$"),
              4: (grad, r"gradient $\partial L/\partial W^{(2)}$")}
    cmap = style.DIVERGING
    for index, ax in enumerate(axes):
        ax.axis("off")
        if index in (1, 3):  # the operators between the panels
            ax.text(0.5, 0.5, r"$\times$" if index == 1 else "$=$",
                    fontsize=18, ha="center", va="center")
            continue
        values, title = panels[index]
        vmax = np.abs(values).max()  # each panel on its own scale
        for (i, j), v in np.ndenumerate(values):
            _cell(ax, j, i, v, cmap(0.5 + v / (2 * vmax)), (0.92, 0.92),
                  text=f"{v:.2f}".replace("-", "\N{MINUS SIGN}"))
        ax.set_xlim(-0.5, values.shape[1] - 0.5)
        ax.set_ylim(values.shape[0] - 0.5, -0.5)
        ax.set_aspect("equal")
        ax.set_title(title, fontsize=10)
    fig.text(0.5, 0.0, "negative: dashed border and a minus sign (orange "
             "fill); positive: solid border (purple fill)\neach panel on "
             "its own scale: the deepest fill is the panel"
             "\N{RIGHT SINGLE QUOTATION MARK}s largest |value|",
             ha="center", fontsize=8, linespacing=1.4)
    return fig


def training_curve(losses, line_loss):
    """The training loss against the step, on a log scale, beside the
    loss of the best straight-line fit to the same data."""
    fig, ax = plt.subplots(figsize=(style.WIDTH, 2.8))
    ax.plot(np.arange(len(losses)), losses, **style.SERIES[0],
            markevery=max(1, len(losses) // 10),
            label="network, hand-written backward")
    flat = {k: v for k, v in style.SERIES[2].items() if k != "marker"}
    ax.axhline(line_loss, **flat, label="best straight-line fit")
    ax.set_yscale("log")
    ax.set_xlabel("step of gradient descent")
    ax.set_ylabel("mean squared error")
    ax.legend(loc="upper right", bbox_to_anchor=(1, 0.9))
    return fig


def gates(z, sigmoid_grad, relu_grad):
    """The two gates: sigma'(z) and ReLU'(z) against z."""
    fig, ax = plt.subplots(figsize=(style.WIDTH, 2.8))
    ax.plot(z, sigmoid_grad, label=r"sigmoid: $\sigma'(z)$",
            **{**style.SERIES[0], "marker": None})
    # The ReLU's derivative jumps at z = 0, where PyTorch sets it to 0:
    # two pieces, a closed dot at (0, 0) and an open one at (0, 1).
    z, relu_grad = np.asarray(z), np.asarray(relu_grad)
    relu = {**style.SERIES[1], "marker": None}
    ax.plot(z[z <= 0], relu_grad[z <= 0], label=r"ReLU: $\mathrm{ReLU}'(z)$",
            **relu)
    ax.plot(z[z > 0], relu_grad[z > 0], **relu)
    at_zero = relu_grad[np.argmin(np.abs(z))]
    ax.plot([0], [at_zero], "o", color=style.VERMILLION, ms=6)
    ax.plot([0], [1 - at_zero], "o", mfc="white", color=style.VERMILLION,
            ms=6)
    ax.axhline(0.25, color=style.GREY, lw=0.8, linestyle=":")
    ax.annotate("sigmoid peak 0.25 at $z = 0$", xy=(0, 0.25),
                xytext=(1.2, 0.45), arrowprops={"arrowstyle": "-|>"})
    ax.set_xlabel("pre-activation $z$")
    ax.set_ylabel("local derivative")
    ax.legend(loc="upper left")
    return fig


# How the figures name what the code keys by a plain identifier
_SHOWN = {"relu": "ReLU", "He, std sqrt(2/n)": "He, std \N{SQUARE ROOT}(2/n)"}


def depth_norms(diagnostics):
    """Per-layer gradient norm, one line per activation, log scale."""
    fig, ax = plt.subplots(figsize=(style.WIDTH, 3.0))
    for look, (name, result) in zip(style.SERIES, diagnostics.items()):
        layers = np.arange(1, len(result["norms"]) + 1)
        ax.semilogy(layers, result["norms"], label=_SHOWN.get(name, name),
                    **look)
    low, high = ax.get_ylim()
    ax.set_ylim(low, high * (high / low) ** 0.1)  # headroom for the top line
    ax.set_xlabel("layer $l$ (1 = closest to the input)")
    ax.set_ylabel(r"$\|\partial L/\partial W^{(l)}\|$")
    ax.legend()
    return fig


def signal_size(curves):
    """The signal's size: the std of the activations after each layer,
    one line per scheme."""
    fig, ax = plt.subplots(figsize=(style.WIDTH, 3.0))
    for look, (name, stds) in zip(style.SERIES, curves.items()):
        layers = np.arange(1, len(stds) + 1)
        ax.semilogy(layers, stds, label=_SHOWN.get(name, name), markevery=4,
                    **look)
    ax.set_xlabel("layer")
    ax.set_ylabel("standard deviation of activations")
    ax.legend()
    return fig


def gradient_cost(sizes, costs):
    """FLOPs of the whole gradient against the parameter count, log-log."""
    fig, ax = plt.subplots(figsize=(style.WIDTH, 3.0))
    methods = ["finite differences", "forward mode", "reverse mode"]
    for look, method in zip(style.SERIES, methods):
        ax.loglog(sizes, [c[method] for c in costs], label=method, **look)
    ax.loglog(sizes, [c["forward pass"] for c in costs], color=style.GREY,
              linestyle="-", lw=1, label="one forward pass")
    ax.set_xlabel("parameters $P$")
    ax.set_ylabel("FLOPs for the whole gradient")
    ax.legend(loc="upper left")
    return fig


def saved_memory(rows):
    """Bytes kept for the backward pass against depth, two strategies."""
    fig, ax = plt.subplots(figsize=(style.WIDTH, 2.8))
    depths = [row["depth"] for row in rows]
    for look, key, label in [
            (style.SERIES[0], "plain", "keep every activation"),
            (style.SERIES[1], "checkpointed",
             r"checkpoint $\approx\sqrt{\mathrm{depth}}$ segments")]:
        ax.plot(depths, [row[f"{key} bytes"] / 1024 for row in rows],
                label=label, **look)
    ax.set_xlabel("hidden layers")
    ax.set_ylabel("saved for backward (KiB)")
    ax.legend(loc="upper left")
    return fig


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
    from backprop.engine import topological_order

    order = topological_order(root)
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
    pitch = min(1.0, (_DRAWN - box_w) / max(last, 1))

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
                color=style.VERMILLION, zorder=3)
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


def fan_modes(widths, measured, predicted):
    """He's rule in its fan-in and fan-out modes: the std of the signal z
    and of the blame per layer, predicted (lines) and measured (markers).
    """
    fig, axes = plt.subplots(1, 2, figsize=(style.WIDTH, 3.0), sharey=True)
    layers = np.arange(1, len(widths))
    modes = {"fan_in": r"fan-in, $2/n_\mathrm{in}$",
             "fan_out": r"fan-out, $2/n_\mathrm{out}$"}
    titles = {"signal": r"forward: signal $z^{(l)}$",
              "blame": r"backward: blame $\delta^{(l)}$"}
    handles = {}
    for ax, (part, title) in zip(axes, titles.items()):
        for look, (mode, name) in zip(style.SERIES, modes.items()):
            (line,) = ax.plot(layers, predicted[mode][part],
                              color=look["color"],
                              linestyle=look["linestyle"])
            (dots,) = ax.plot(layers, measured[mode][part],
                              linestyle="none", marker=look["marker"],
                              color=look["color"], ms=6)
            handles[name] = (line, dots)
        ax.set_yscale("log", base=2)
        ax.set_title(title, fontsize=10)
        ax.set_xticks(layers, [f"{k}\n{widths[k]}" for k in layers])
        ax.set_xlabel("layer $l$ and its width")
    ticks = [0.25, 0.5, 1, 2, 4, 8]
    axes[0].set_yticks(ticks, [f"{t:g}" for t in ticks])
    axes[0].minorticks_off()
    axes[1].minorticks_off()
    axes[0].set_ylabel("standard deviation")
    axes[0].legend(list(handles.values()), list(handles), fontsize=8,
                   loc="lower right", title="line: predicted; marker: "
                   "measured", title_fontsize=8)
    return fig
