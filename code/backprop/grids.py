"""Blame drawn as grids of coloured boxes, each with its value: the blame
of every neuron of a network, and a weight gradient as an outer product.
Each function takes its data and returns a Figure, which can draw itself
again for a slide (style.slide_form).
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


@style.slide_form
def blame_flow(sizes, deltas, slide=False):
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
    # on a slide, as wide and less tall: the boxes keep their size in
    # inches, as many units of y taller
    on_slide = (1, 0.8)
    if slide:
        height /= on_slide[1]
    fig, ax = plt.subplots(figsize=style.size(3.2, slide, on_slide=on_slide))
    for col in range(1, len(sizes)):
        start = col - 1 + (dot if col == 1 else width / 2)
        for y0 in _unit_heights(sizes[col - 1]):
            for y1 in _unit_heights(sizes[col]):
                ax.plot([start, col - width / 2], [y0, y1],
                        color=style.GREY, lw=0.5, zorder=1)
    for y in _unit_heights(sizes[0]):
        # a marker, sized in points, is round whatever the axes' units:
        # 8 pt across, where the edges from it start (dot, in x's units)
        ax.plot([0], [y], "o", ms=8, mfc="white", mec=style.BLACK, mew=1,
                zorder=3)
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


@style.slide_form
def outer_product(delta, act, slide=False):
    """The column of blame times the row of signal gives the gradient.
    Each entry is a box, as in blame_flow: the fill's hue and a dashed
    border with a minus sign give a negative sign; the fill's depth gives
    the size, on each panel's own scale."""
    col = delta.detach().numpy().reshape(-1, 1)
    row = act.detach().numpy().reshape(1, -1)
    grad = col @ row
    n = row.shape[1]
    fig, axes = plt.subplots(
        1, 5, figsize=style.size(3.0, slide, DRAWN - 0.05, (1, 0.9)),
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
                  text=f"{v:.2f}".replace("-", "\N{MINUS SIGN}"),
                  size_pt=8.5 if slide else 9)
        ax.set_xlim(-0.5, values.shape[1] - 0.5)
        ax.set_ylim(values.shape[0] - 0.5, -0.5)
        ax.set_aspect(0.8 if slide else "equal")  # wider boxes on a slide
        ax.set_title(title, fontsize=12 if slide else 10)
    fig.text(0.5, 0.0, "negative: dashed border and a minus sign (orange "
             "fill); positive: solid border (purple fill)\neach panel on "
             "its own scale: the deepest fill is the panel"
             "\N{RIGHT SINGLE QUOTATION MARK}s largest |value|",
             ha="center", fontsize=8.5 if slide else 9, linespacing=1.4)
    return fig
