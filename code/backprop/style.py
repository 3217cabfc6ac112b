"""One look for every figure: colour-blind safe, legible in grayscale.

Colours come from the Okabe-Ito palette. Each series also differs in
line style and marker, so a grayscale printout still tells them apart.
"""

import functools

import matplotlib as mpl
from matplotlib.colors import LinearSegmentedColormap
from matplotlib.patheffects import AbstractPathEffect

# Okabe & Ito (2008), "Color Universal Design".
BLUE, ORANGE, VERMILLION = "#0072B2", "#E69F00", "#D55E00"
GREEN, PURPLE, SKY, BLACK = "#009E73", "#CC79A7", "#56B4E9", "#000000"
GREY, LIGHT = "#8C8C8C", "#E8EEF4"

# Text in a series' colour: its hue darkened to a contrast of 7 with white
# paper, as the pages' text has (Okabe-Ito's blue has 5.2, its vermillion
# 3.9), so that a label prints dark in grey; lines keep the lighter colours.
INK = {BLUE: "#005D92", VERMILLION: "#934100"}

FORWARD = {"color": BLUE, "linestyle": "-"}
BACKWARD = {"color": VERMILLION, "linestyle": "--"}
SERIES = [  # colour, line style, marker: distinct even without colour,
    # and four greys apart in a grayscale print (luma 88, 119, 0, 158;
    # Okabe-Ito's green, 106, printed as the vermillion did)
    {"color": BLUE, "linestyle": "-", "marker": "o"},
    {"color": VERMILLION, "linestyle": "--", "marker": "s"},
    {"color": BLACK, "linestyle": ":", "marker": "^"},
    {"color": SKY, "linestyle": "-.", "marker": "D"},
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


class OnPaper(AbstractPathEffect):
    """A patch's fill, then a white band along its border, then the border
    on that band: the gaps of a dashed border show paper, not the fill,
    so a dashed border stays dashed in grey on the darkest fill."""

    def __init__(self, band=3.4):  # points: the band's width
        super().__init__()
        self.band = band

    def draw_path(self, renderer, gc, tpath, affine, rgbFace=None):
        fill, band = renderer.new_gc(), renderer.new_gc()
        fill.copy_properties(gc)
        fill.set_linewidth(0)
        renderer.draw_path(fill, tpath, affine, rgbFace)
        band.copy_properties(gc)
        band.set_linewidth(self.band)
        band.set_foreground("white")
        band.set_dashes(0, None)
        renderer.draw_path(band, tpath, affine, None)
        renderer.draw_path(gc, tpath, affine, None)
        fill.restore()
        band.restore()


# A signed value's box (grids.py): solid if >= 0, dashed if negative,
# each on a white band, so that the sign survives a grayscale print.
SIGN_BORDER = {"ec": BLACK, "lw": 1.2, "path_effects": [OnPaper()]}
NEGATIVE_DASH = (0, (3, 2))  # in line widths: 3.6 pt dashes, 2.4 pt gaps

WIDTH = 6.4  # inches: a plot's width; the PDF scales it to the text
TEXT = 5.9  # inches: the PDF's text block; a wider figure prints smaller

RC = {
    "font.family": "DejaVu Sans",
    "font.size": 10,
    "axes.unicode_minus": True,  # ticks print U+2212, as the text does
    "mathtext.fontset": "dejavusans",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.color": "#D9D9D9",
    "grid.linewidth": 0.6,
    # a legend on paper-white, without a border: no grid line runs
    # through its text (its place keeps it off the data's lines)
    "legend.frameon": True,
    "legend.framealpha": 1.0,
    "legend.edgecolor": "none",
    "lines.linewidth": 1.8,
    "lines.markersize": 4,
    "figure.dpi": 110,
    "savefig.bbox": "tight",
    "svg.hashsalt": "backprop-book",  # stable ids: reproducible SVG files
    "svg.fonttype": "path",
    "pdf.compression": 0,  # plain text: tests compare figures number by number
}


# The slides show the figures in what is left of a slide under its title
# and text, which the handouts print smaller than the page: the book's own
# plots printed their log axes' exponents at 5 pt there. So each figure
# that the slides show can draw itself again for a slide (slide_form):
# shorter, with its type and lines as many points as on the page (the
# grids of boxes set theirs a little apart, to fit their boxes). The
# book's build saves that drawing for the slides (booktools/slides.py).
SLIDE_SIZE = (0.95, 0.62)  # of a plot's width and height on the page


def size(height, slide=False, width=WIDTH, on_slide=SLIDE_SIZE):
    """A figure's figsize: width by height inches on the page; on a slide,
    the shares on_slide of them."""
    if slide:
        return width * on_slide[0], height * on_slide[1]
    return width, height


def legend(ax, slide, ncol, **page):
    """The plot's legend: on the page, as page places it; on a slide, in
    ncol columns above the plot, whose short axes have no room for it
    among the lines."""
    if not slide:
        return ax.legend(**page)
    return ax.legend(ncol=ncol, loc="lower left", bbox_to_anchor=(0, 1),
                     columnspacing=0.8, handlelength=1.5)


def y_label(ax, slide, first, rest):
    """The y axis's label, on one line, or on two for a slide's short
    axes."""
    ax.set_ylabel(first + ("\n" if slide else " ") + rest)


def slide_form(draw):
    """For a figure function draw(*data, slide=False): the Figure it
    returns knows how to draw itself again for a slide (fig.for_slide)."""
    @functools.wraps(draw)
    def drawn(*args, **kwargs):
        fig = draw(*args, **kwargs)
        fig.for_slide = lambda: draw(*args, **{**kwargs, "slide": True})
        return fig
    return drawn


def apply():
    """Set the book's matplotlib style for everything drawn afterwards."""
    mpl.rcParams.update(RC)
