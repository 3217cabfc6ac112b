"""The chapter's figures. Each function takes its data and returns a Figure.

The chapter calls these functions, and `python -m booktools.book figures`
exports the same figures to figures/ as SVG and PDF.
"""

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.colors import SymLogNorm
from matplotlib.patches import FancyBboxPatch

from backprop import style


def computation_graph():
    """w -> z -> a -> L, forward arrows above, backward arrows below."""
    labels = [r"$w$", r"$z = w\,a^{(l-1)} + b$", r"$a = \sigma(z)$", r"$L$"]
    widths = [0.8, 2.3, 1.7, 0.8]
    local = [r"$\partial z/\partial w$", r"$\partial a/\partial z$",
             r"$\partial L/\partial a$"]
    gap, box_h = 1.1, 0.8
    lefts = [sum(widths[:i]) + i * gap for i in range(len(widths))]
    fig, ax = plt.subplots(figsize=(style.WIDTH, 2.1))
    for left, width, label in zip(lefts, widths, labels):
        ax.add_patch(FancyBboxPatch(
            (left, 0), width, box_h, boxstyle="round,pad=0.05",
            fc=style.LIGHT, ec=style.BLACK, lw=1.2))
        ax.text(left + width / 2, box_h / 2, label,
                ha="center", va="center", fontsize=11)
    arrow = {"arrowstyle": "-|>", "lw": 1.6, "mutation_scale": 12}
    for i in range(3):
        start, stop = lefts[i] + widths[i] + 0.1, lefts[i + 1] - 0.1
        ax.annotate("", xy=(stop, 0.6), xytext=(start, 0.6),
                    arrowprops={**arrow, **style.FORWARD})
        ax.annotate("", xy=(start, 0.2), xytext=(stop, 0.2),
                    arrowprops={**arrow, **style.BACKWARD})
        ax.text((start + stop) / 2, -0.35, local[i], ha="center",
                fontsize=11, color=style.VERMILLION)
    ax.text(0, 1.1, "forward: compute and cache", color=style.BLUE)
    ax.text(0, -0.85, "backward: multiply local derivatives",
            color=style.VERMILLION)
    ax.set_xlim(-0.15, lefts[-1] + widths[-1] + 0.15)
    ax.set_ylim(-1.0, 1.35)
    ax.axis("off")
    return fig


def numeric_graph(values, grads):
    """The one-neuron graph with numbers: on every edge, the value that
    flows forward (above, blue) and dL/d(that value) flowing back (below,
    vermillion). values and grads are keyed w, x, b, wx, z, a, err, L.
    """
    places = {"w": (0, 0.9), "x": (0, -0.9), "wx": (2.3, 0),
              "b": (2.3, -1.5), "z": (4.1, 0), "a": (6.0, 0),
              "err": (7.9, 0), "L": (9.8, 0)}
    ops = {"wx": r"$\times$", "z": "$+$", "a": r"$\sigma$",
           "err": r"$-\,y$", "L": r"$(\cdot)^2$"}
    edges = [("w", "wx"), ("x", "wx"), ("wx", "z"), ("b", "z"), ("z", "a"),
             ("a", "err"), ("err", "L")]
    fig, ax = plt.subplots(figsize=(style.WIDTH, 2.9))
    for src, dst in edges:
        p0, p1 = np.array(places[src]), np.array(places[dst])
        unit = (p1 - p0) / np.linalg.norm(p1 - p0)
        ax.annotate("", xy=p1 - 0.33 * unit, xytext=p0 + 0.3 * unit,
                    arrowprops={"arrowstyle": "-|>", "lw": 1.2,
                                "color": style.GREY})
        at = p0 + 0.5 * (p1 - p0)
        normal = np.array([-unit[1], unit[0]])  # to the edge's left
        if normal[1] < 0:
            normal = -normal  # "above" the edge
        above, below = at + 0.2 * normal, at - 0.2 * normal
        ax.text(*above, f"{values[src]:.4g}", ha="center", va="center",
                color=style.BLUE, fontsize=9)
        ax.text(*below, f"{grads[src]:.4g}", ha="center", va="center",
                color=style.VERMILLION, fontsize=9)
    for name, (px, py) in places.items():
        ax.text(px, py, ops.get(name, f"${name}$"), ha="center",
                va="center", fontsize=11,
                bbox={"boxstyle": "circle" if name in ops else "round",
                      "fc": style.LIGHT, "ec": style.BLACK})
    ax.text(9.8, -0.5, f"$L$ = {values['L']:.4g}", ha="center", va="top")
    ax.text(-0.3, 1.55, "above each edge: the value going forward",
            color=style.BLUE, fontsize=9)
    ax.text(-0.3, -2.15, r"below: $\partial L/\partial$(that value), "
            "coming back", color=style.VERMILLION, fontsize=9)
    ax.set_xlim(-0.5, 10.5)
    ax.set_ylim(-2.3, 1.8)
    ax.axis("off")
    return fig


def _unit_heights(n):
    return np.linspace(-1, 1, n + 2)[1:-1]


def blame_flow(sizes, deltas):
    """Each neuron's blame: its sign as colour, its size as the marker's
    area and as printed text. Colour and area follow log|delta|, so the
    small blame of the early layers stays visible next to the output's.
    """
    blame = [d.detach().numpy().ravel() for d in deltas]
    vmax = max(np.abs(b).max() for b in blame)
    fig, ax = plt.subplots(figsize=(style.WIDTH, 3.2))
    for col in range(1, len(sizes)):
        for y0 in _unit_heights(sizes[col - 1]):
            for y1 in _unit_heights(sizes[col]):
                ax.plot([col - 1, col], [y0, y1], color=style.GREY,
                        lw=0.5, zorder=1)
    ax.scatter([0] * sizes[0], _unit_heights(sizes[0]), s=120,
               facecolors="white", edgecolors=style.BLACK, zorder=3)
    smallest = min(np.abs(b).min() for b in blame)
    for col, values in enumerate(blame, start=1):
        heights = _unit_heights(sizes[col])
        # area grows with log|delta|: every neuron keeps a visible marker
        scale = np.log10(np.abs(values) / smallest) / np.log10(
            vmax / smallest)
        points = ax.scatter(
            [col] * sizes[col], heights, s=150 + 650 * scale, c=values,
            cmap=style.DIVERGING, edgecolors=style.BLACK, zorder=3,
            norm=SymLogNorm(linthresh=smallest, vmin=-vmax, vmax=vmax))
        for y, v, r in zip(heights, values, scale):
            ax.text(col + 0.16 + 0.1 * r, y, f"{v:+.3f}", va="center",
                    fontsize=8)
    bar = fig.colorbar(points, ax=ax, shrink=0.8, pad=0.02)
    bar.set_label(r"blame $\delta_j$ (sign and size)")
    ax.annotate("blame flows this way", xy=(0.3, 1.35), xytext=(2.0, 1.35),
                va="center", color=style.VERMILLION,
                arrowprops={"arrowstyle": "-|>", "lw": 1.8,
                            "color": style.VERMILLION})
    names = ["input"] + [rf"$\delta^{{({i})}}$" for i in range(1, len(sizes))]
    ax.set_xticks(range(len(sizes)), names)
    ax.set_yticks([])
    ax.set_xlim(-0.3, len(sizes) - 1 + 0.6)  # room for the output's label
    ax.set_ylim(-1.3, 1.55)
    ax.grid(False)
    for spine in ax.spines.values():
        spine.set_visible(False)
    return fig


def outer_product(delta, act):
    """The column of blame times the row of signal gives the gradient."""
    col = delta.detach().numpy().reshape(-1, 1)
    row = act.detach().numpy().reshape(1, -1)
    grad = col @ row
    n = row.shape[1]
    fig, axes = plt.subplots(
        1, 5, figsize=(style.WIDTH, 2.4),
        gridspec_kw={"width_ratios": [1, 0.6, n, 0.6, n]})
    panels = {0: (col, r"blame $\delta^{(2)}$"),
              2: (row, r"signal $(a^{(1)})^\top$"),
              4: (grad, r"gradient $\partial L/\partial W^{(2)}$")}
    for index, ax in enumerate(axes):
        ax.axis("off")
        if index in (1, 3):  # the operators between the panels
            ax.text(0.5, 0.5, r"$\times$" if index == 1 else "$=$",
                    fontsize=18, ha="center", va="center")
            continue
        values, title = panels[index]
        vmax = np.abs(values).max()  # each panel on its own scale
        ax.imshow(values, cmap=style.DIVERGING, vmin=-vmax, vmax=vmax)
        for (i, j), v in np.ndenumerate(values):
            shade = "white" if abs(v) > 0.55 * vmax else style.BLACK
            ax.text(j, i, f"{v:.2f}", ha="center", va="center",
                    fontsize=8, color=shade)
        ax.set_title(title, fontsize=10)
    fig.text(0.5, 0.02, "colour key, per panel: orange < 0 < purple; "
             "the deepest shade is the panel's largest |value|",
             ha="center", fontsize=8)
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
    ax.annotate("sigmoid peak 0.25 at z = 0", xy=(0, 0.25),
                xytext=(1.2, 0.45), arrowprops={"arrowstyle": "-|>"})
    ax.set_xlabel("pre-activation $z$")
    ax.set_ylabel("local derivative")
    ax.legend(loc="upper left")
    return fig


def depth_norms(diagnostics):
    """Per-layer gradient norm, one line per activation, log scale."""
    fig, ax = plt.subplots(figsize=(style.WIDTH, 3.0))
    for look, (name, result) in zip(style.SERIES, diagnostics.items()):
        layers = np.arange(1, len(result["norms"]) + 1)
        ax.semilogy(layers, result["norms"], label=name, **look)
    ax.set_xlabel("layer $l$ (1 = closest to the input)")
    ax.set_ylabel(r"$\|\partial L/\partial W^{(l)}\|$")
    ax.legend()
    return fig


def signal_energy(curves):
    """Std of the activations after each layer, one line per scheme."""
    fig, ax = plt.subplots(figsize=(style.WIDTH, 3.0))
    for look, (name, stds) in zip(style.SERIES, curves.items()):
        layers = np.arange(1, len(stds) + 1)
        ax.semilogy(layers, stds, label=name, markevery=4, **look)
    ax.set_xlabel("layer")
    ax.set_ylabel("std of activations")
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
