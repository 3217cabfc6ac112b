"""The chapter's figures. Each function takes its data and returns a Figure.

The chapter calls these functions, and `python -m backprop.book figures`
exports the same figures to figures/ as SVG and PDF.
"""

import matplotlib.pyplot as plt
import numpy as np
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


def _unit_heights(n):
    return np.linspace(-1, 1, n + 2)[1:-1]


def blame_flow(sizes, deltas):
    """Each neuron's |delta| as marker size and shade; edges in grey."""
    mags = [np.abs(d.detach().numpy().ravel()) for d in deltas]
    vmax = max(m.max() for m in mags)
    fig, ax = plt.subplots(figsize=(style.WIDTH, 3.0))
    for col in range(1, len(sizes)):
        for y0 in _unit_heights(sizes[col - 1]):
            for y1 in _unit_heights(sizes[col]):
                ax.plot([col - 1, col], [y0, y1], color=style.GREY,
                        lw=0.5, zorder=1)
    ax.scatter([0] * sizes[0], _unit_heights(sizes[0]), s=120,
               facecolors="white", edgecolors=style.BLACK, zorder=3)
    for col, mag in enumerate(mags, start=1):
        points = ax.scatter(
            [col] * sizes[col], _unit_heights(sizes[col]),
            s=120 + 1400 * mag / vmax, c=mag, cmap=style.SEQUENTIAL,
            vmin=0, vmax=vmax, edgecolors=style.BLACK, zorder=3)
    fig.colorbar(points, ax=ax, label=r"blame $|\delta_j|$", shrink=0.8)
    ax.annotate("blame flows this way", xy=(0.3, 1.3), xytext=(2.0, 1.3),
                va="center", color=style.VERMILLION,
                arrowprops={"arrowstyle": "-|>", "lw": 1.8,
                            "color": style.VERMILLION})
    names = ["input"] + [rf"$\delta^{{({i})}}$" for i in range(1, len(sizes))]
    ax.set_xticks(range(len(sizes)), names)
    ax.set_yticks([])
    ax.set_ylim(-1.3, 1.5)
    ax.grid(False)
    for spine in ax.spines.values():
        spine.set_visible(False)
    return fig


def outer_product(delta, act):
    """The column of blame times the row of signal gives the gradient."""
    col = delta.detach().numpy().reshape(-1, 1)
    row = act.detach().numpy().reshape(1, -1)
    grad = col @ row
    vmax = np.abs(np.concatenate([col.ravel(), row.ravel(),
                                  grad.ravel()])).max()
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
        ax.imshow(values, cmap=style.DIVERGING, vmin=-vmax, vmax=vmax)
        for (i, j), v in np.ndenumerate(values):
            shade = "white" if abs(v) > 0.55 * vmax else style.BLACK
            ax.text(j, i, f"{v:.2f}", ha="center", va="center",
                    fontsize=8, color=shade)
        ax.set_title(title, fontsize=10)
    return fig


def gates(z, sigmoid_grad, relu_grad):
    """The two gates: sigma'(z) and ReLU'(z) against z."""
    fig, ax = plt.subplots(figsize=(style.WIDTH, 2.8))
    ax.plot(z, sigmoid_grad, label=r"sigmoid: $\sigma'(z)$",
            **{**style.SERIES[0], "marker": None})
    ax.plot(z, relu_grad, label=r"ReLU: $\mathrm{ReLU}'(z)$",
            **{**style.SERIES[1], "marker": None})
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
        ax.semilogy(result["norms"], label=name, **look)
    ax.set_xlabel("layer (0 = closest to the input)")
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


def chain_paths(xs, y, h=1e-4):
    """dz/dy for z = x y + y: two paths, their sum, and a numerical check."""
    xs = np.asarray(xs, dtype=float)
    fd = ((xs * (y + h) + (y + h)) - (xs * (y - h) + (y - h))) / (2 * h)
    fig, ax = plt.subplots(figsize=(style.WIDTH, 2.8))
    ax.plot(xs, xs, label=r"through $x\,y$: $x$",
            **{**style.SERIES[0], "marker": None})
    ax.plot(xs, np.ones_like(xs), label="direct: 1",
            **{**style.SERIES[1], "marker": None})
    ax.plot(xs, xs + 1, label=r"sum: $\partial z/\partial y = x + 1$",
            **{**style.SERIES[2], "marker": None})
    ax.plot(xs[::6], fd[::6], linestyle="none", marker="o", mfc="white",
            color=style.BLACK, label=f"central difference at y = {y:g}")
    ax.set_xlabel("$x$")
    ax.set_ylabel(r"contribution to $\partial z/\partial y$")
    ax.legend(loc="upper left", fontsize=8)
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
