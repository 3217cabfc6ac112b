"""Plots of the chapters' data, and grids of blame drawn as coloured
cells. Each function takes its data and returns a Figure; the graphs of
operations are in diagrams.py.

The chapters call these functions; each chapter's run also saves the
figures it draws to figures/, as SVG, for the slides.
"""

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.cm import ScalarMappable
from matplotlib.colors import SymLogNorm, to_rgb
from matplotlib.patches import FancyBboxPatch, Rectangle

from backprop import style
from backprop.diagrams import DRAWN


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
    bar = fig.colorbar(ScalarMappable(norm, cmap.resampled(128)), ax=ax,
                       shrink=0.8, pad=0.02, ticks=ticks)
    bar.ax.set_yticklabels([f"{t:g}".replace("-", "\N{MINUS SIGN}")
                            for t in ticks])
    bar.ax.minorticks_off()
    # drawn, not a 110-dpi raster whose pixels overran the bar's frame
    bar.solids.set(rasterized=False, edgecolor="face", linewidth=0.6)
    # in grey the bar's halves print alike: like the boxes, its negative
    # half has a dashed border and its positive half a solid one, set off
    # the bar by their white band
    bar.outline.set_visible(False)
    for low, dash in ((-0.01, style.NEGATIVE_DASH), (0.5, "-")):
        bar.ax.add_patch(Rectangle((-0.3, low), 1.6, 0.51, fc="none",
                                   ls=dash, transform=bar.ax.transAxes,
                                   clip_on=False, **style.SIGN_BORDER))
    bar.set_label(r"blame $\delta_j$ (fill depth: log size)")
    ax.annotate("blame flows this way", xy=(0.3, 1.35), xytext=(2.0, 1.35),
                va="center", color=style.INK[style.VERMILLION],
                arrowprops={"arrowstyle": "-|>", "lw": 1.8,
                            "color": style.VERMILLION})
    names = ["input"] + [rf"$\boldsymbol{{\delta}}^{{({i})}}$"
                         for i in range(1, len(sizes))]
    ax.set_xticks(range(len(sizes)), names)
    ax.set_yticks([])
    ax.set_xlim(-0.3, len(sizes) - 1 + 0.35)
    ax.set_ylim(-1.3, 1.55)
    ax.grid(False)
    for spine in ax.spines.values():
        spine.set_visible(False)
    return fig


def _cell(ax, x, y, v, fill, size, text, size_pt=8):
    """The value v, printed as text in a rounded box of the given fill:
    the border is solid if v >= 0 and dashed if v is negative, on a white
    band, so that, with the minus sign in the text, the sign survives a
    grayscale print."""
    ax.add_patch(FancyBboxPatch(
        (x - size[0] / 2, y - size[1] / 2), *size,
        boxstyle="round,pad=0,rounding_size=0.05", fc=fill, zorder=3,
        ls=style.NEGATIVE_DASH if v < 0 else "-", **style.SIGN_BORDER))
    ax.text(x, y, text, ha="center", va="center", fontsize=size_pt,
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
        1, 5, figsize=(DRAWN - 0.05, 3.0),
        gridspec_kw={"width_ratios": [1, 0.5, n, 0.5, n]})
    fig.subplots_adjust(left=0, right=1, bottom=0.16, top=0.9, wspace=0.1)
    panels = {0: (col, r"blame $\boldsymbol{\delta}^{(2)}$"),
              2: (row, r"signal $(\boldsymbol{a}^{(1)})^\top$"),
              4: (grad, r"gradient $\partial L/\partial"
                        r" \boldsymbol{W}^{(2)}$")}
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
                  text=f"{v:.2f}".replace("-", "\N{MINUS SIGN}"), size_pt=9)
        ax.set_xlim(-0.5, values.shape[1] - 0.5)
        ax.set_ylim(values.shape[0] - 0.5, -0.5)
        ax.set_aspect("equal")
        ax.set_title(title, fontsize=10)
    fig.text(0.5, 0.0, "negative: dashed border and a minus sign (orange "
             "fill); positive: solid border (purple fill)\neach panel on "
             "its own scale: the deepest fill is the panel"
             "\N{RIGHT SINGLE QUOTATION MARK}s largest |value|",
             ha="center", fontsize=9, linespacing=1.4)
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
    ax.set_ylabel(r"$\|\partial L/\partial \boldsymbol{W}^{(l)}\|$")
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


def fan_modes(widths, measured, predicted):
    """He's rule in its fan-in and fan-out modes: the std of the signal z
    and of the blame per layer, predicted (lines) and measured (markers).
    """
    fig, axes = plt.subplots(1, 2, figsize=(style.WIDTH, 3.0), sharey=True)
    layers = np.arange(1, len(widths))
    modes = {"fan_in": r"fan-in, $2/n_\mathrm{in}$",
             "fan_out": r"fan-out, $2/n_\mathrm{out}$"}
    titles = {"signal": r"forward: signal $\boldsymbol{z}^{(l)}$",
              "blame": r"backward: blame $\boldsymbol{\delta}^{(l)}$"}
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
