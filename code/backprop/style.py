"""One look for every figure: colour-blind safe, legible in grayscale.

Colours come from the Okabe-Ito palette. Each series also differs in
line style and marker, so a grayscale printout still tells them apart.
"""

from pathlib import Path

import matplotlib as mpl
from matplotlib.colors import LinearSegmentedColormap

# Okabe & Ito (2008), "Color Universal Design".
BLUE, ORANGE, VERMILLION = "#0072B2", "#E69F00", "#D55E00"
GREEN, PURPLE, SKY, BLACK = "#009E73", "#CC79A7", "#56B4E9", "#000000"
GREY, LIGHT = "#8C8C8C", "#E8EEF4"

FORWARD = {"color": BLUE, "linestyle": "-"}
BACKWARD = {"color": VERMILLION, "linestyle": "--"}
SERIES = [  # colour, line style, marker: distinct even without colour
    {"color": BLUE, "linestyle": "-", "marker": "o"},
    {"color": VERMILLION, "linestyle": "--", "marker": "s"},
    {"color": BLACK, "linestyle": ":", "marker": "^"},
    {"color": GREEN, "linestyle": "-.", "marker": "D"},
]
SEQUENTIAL = "cividis"  # monotone in lightness, safe for colour blindness
# ColorBrewer's PuOr (orange < 0 < purple), with each pair of opposite
# stops moved to the same lightness: PuOr's purple end is much darker than
# its orange end, so in grayscale a negative value looked smaller than a
# positive one of the same size. Each stop keeps its hue; its lightness is
# set so that the mean of CIE L* and the grey that a grayscale print makes
# (Rec. 601 luma) falls evenly from the white middle to either end.
DIVERGING = LinearSegmentedColormap.from_list("PuOr_even", [
    "#763401", "#a95200", "#d27702", "#e3a14d", "#eacda4", "#f6f6f6",
    "#ced0e1", "#aea7ce", "#8d80ba", "#7e4db3", "#5d2f7b"])

WIDTH = 6.4  # inches: a plot's width; the PDF scales it to the text
TEXT = 5.9  # inches: the PDF's text block; a wider figure prints smaller

RC = {
    "font.family": "DejaVu Sans",
    "font.size": 10,
    "mathtext.fontset": "dejavusans",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.color": "#D9D9D9",
    "grid.linewidth": 0.6,
    "legend.frameon": False,
    "lines.linewidth": 1.8,
    "lines.markersize": 4,
    "figure.dpi": 110,
    "savefig.bbox": "tight",
    "svg.hashsalt": "backprop-book",  # stable ids: reproducible SVG files
    "svg.fonttype": "path",
    "pdf.compression": 0,  # plain text: tests compare figures number by number
}


def apply():
    """Set the book's matplotlib style for everything drawn afterwards."""
    mpl.rcParams.update(RC)


def save(fig, stem, outdir):
    """Write fig as SVG and PDF with no timestamps, so builds are stable."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    fig.savefig(outdir / f"{stem}.svg", metadata={"Date": None})
    fig.savefig(outdir / f"{stem}.pdf",
                metadata={"CreationDate": None, "ModDate": None})
