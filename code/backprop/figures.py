"""Plots of the chapters' data. Each function takes its data and returns
a Figure, which can draw itself again for a slide (style.slide_form); the
grids of blame are in grids.py, the graphs of operations in diagrams.py.
"""

import matplotlib.pyplot as plt
import numpy as np

from backprop import style


@style.slide_form
def training_curve(losses, line_loss, slide=False):
    """The training loss against the step, on a log scale, beside the
    loss of the best straight-line fit to the same data."""
    # on a slide, shorter still: its legend goes above the plot
    fig, ax = plt.subplots(
        figsize=style.size(2.8, slide, on_slide=(0.95, 0.5)))
    ax.plot(np.arange(len(losses)), losses, **style.SERIES[0],
            markevery=max(1, len(losses) // 10),
            label="network, hand-written backward")
    flat = {k: v for k, v in style.SERIES[2].items() if k != "marker"}
    ax.axhline(line_loss, **flat, label="best straight-line fit")
    ax.set_yscale("log")
    ax.set_xlabel("step of gradient descent")
    style.y_label(ax, slide, "mean squared", "error")
    style.legend(ax, slide, 2, loc="upper right", bbox_to_anchor=(1, 0.9))
    return fig


@style.slide_form
def gates(z, sigmoid_grad, relu_grad, slide=False):
    """The two gates: sigma'(z) and ReLU'(z) against z."""
    fig, ax = plt.subplots(figsize=style.size(2.8, slide))
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
    # between the grid's lines: at 0.2 and 0.4 on the page, 0.5 and 1 on
    # a slide, whose plot is shorter; on white, over the vertical ones
    ax.annotate("sigmoid peak 0.25 at $z = 0$", xy=(0, 0.25),
                xytext=(1.2, 0.65 if slide else 0.45),
                bbox={"fc": "white", "ec": "none", "pad": 1},
                arrowprops={"arrowstyle": "-|>", "color": style.BLACK})
    ax.set_xlabel("pre-activation $z$")
    ax.set_ylabel("local derivative")
    ax.legend(loc="upper left")
    return fig


# How the figures name what the code keys by a plain identifier
_SHOWN = {"relu": "ReLU", "He, std sqrt(2/n)": "He, std \N{SQUARE ROOT}(2/n)"}


@style.slide_form
def depth_norms(diagnostics, slide=False):
    """Per-layer gradient norm, one line per activation, log scale."""
    fig, ax = plt.subplots(figsize=style.size(3.0, slide))
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


@style.slide_form
def signal_size(curves, slide=False):
    """The signal's size: the std of the activations after each layer,
    one line per scheme."""
    # on a slide, shorter still: its legend goes above the plot
    fig, ax = plt.subplots(
        figsize=style.size(3.0, slide, on_slide=(0.8, 0.5)))
    for look, (name, stds) in zip(style.SERIES, curves.items()):
        layers = np.arange(1, len(stds) + 1)
        ax.semilogy(layers, stds, label=_SHOWN.get(name, name), markevery=4,
                    **look)
    ax.set_xlabel("layer")
    style.y_label(ax, slide, "standard deviation", "of activations")
    style.legend(ax, slide, 3)
    return fig


@style.slide_form
def gradient_cost(sizes, costs, slide=False):
    """FLOPs of the whole gradient against the parameter count, log-log."""
    # on a slide, shorter still: its legend goes above the plot
    fig, ax = plt.subplots(
        figsize=style.size(3.0, slide, on_slide=(0.95, 0.46)))
    methods = ["finite differences", "forward mode", "reverse mode"]
    for look, method in zip(style.SERIES, methods):
        ax.loglog(sizes, [c[method] for c in costs], label=method, **look)
    ax.loglog(sizes, [c["forward pass"] for c in costs], color=style.GREY,
              linestyle="-", lw=1, label="one forward pass")
    ax.set_xlabel("parameters $P$")
    style.y_label(ax, slide, "FLOPs for the", "whole gradient")
    style.legend(ax, slide, 2, loc="upper left")
    return fig


@style.slide_form
def saved_memory(rows, slide=False):
    """Bytes kept for the backward pass against depth, two strategies."""
    # on a slide, shorter still: its legend goes above the plot
    fig, ax = plt.subplots(
        figsize=style.size(2.8, slide, on_slide=(0.95, 0.5)))
    depths = [row["depth"] for row in rows]
    for look, key, label in [
            (style.SERIES[0], "plain", "keep every activation"),
            (style.SERIES[1], "checkpointed",
             r"checkpoint $\approx\sqrt{\mathrm{depth}}$ segments")]:
        ax.plot(depths, [row[f"{key} bytes"] / 1024 for row in rows],
                label=label, **look)
    ax.set_xlabel("hidden layers")
    style.y_label(ax, slide, "saved for", "backward (KiB)")
    style.legend(ax, slide, 2, loc="upper left")
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
