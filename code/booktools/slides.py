"""The numbers and figures the lecture deck takes from the chapters' runs.

slides/numbers.yml lists them as Python expressions under the chapter
that computes them. A chapter's last cell, `build-slides-x`, calls keep():
the expressions are evaluated in the chapter's namespace, and their text
is the cell's (hidden) output, which stays in the executed notebook that
Quarto keeps. write_slide_variables() gathers them into
slides/_variables.yml, which the deck reads with {{< var name >}}. Deck
and book therefore never disagree.

The deck's figures come from the same runs: draw_figures(), called in a
chapter's `build-imports-x` cell, has every figure drawn a second time,
for a slide, and executed.py saves that drawing to figures/slides/.
"""

import io
from pathlib import Path

import yaml

from booktools import ROOT, site_url

SLIDES = ROOT / "slides"
MIME = "application/vnd.backprop.slide-numbers+json"
FIGURE = "image/vnd.backprop.slide+svg+xml"  # a figure drawn for a slide


def expressions(chapter, spec_path=SLIDES / "numbers.yml"):
    """{name: expression} of the numbers the deck takes from a chapter
    (chapters/x.qmd, as slides/numbers.yml names it)."""
    part = yaml.safe_load(Path(spec_path).read_text()).get(chapter, {})
    return {name: expr for section in ("settings", "results")
            for name, expr in part.get(section, {}).items()}


def keep(chapter, namespace):
    """Show this chapter's numbers as a hidden output of its last cell:
    each expression evaluated in the chapter's namespace, as the Markdown
    the book prints (the prose helpers, count, fixed, joined and sci, are
    at hand)."""
    from IPython.display import display

    from backprop import prose

    scope = {name: getattr(prose, name)
             for name in ("count", "fixed", "joined", "sci")}
    scope.update(namespace)
    values = {name: eval(expr, scope)  # noqa: S307 (the book's own)
              for name, expr in expressions(chapter).items()}
    # as the book prints them: a power of ten as maths (prose.Sci)
    texts = {name: getattr(value, "markdown", str(value))
             for name, value in values.items()}
    display({MIME: texts}, raw=True)


def kept(notebook):
    """The numbers a chapter's run kept: {name: text}, or {}."""
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if MIME in output.get("data", {}):
                return dict(output["data"][MIME])
    return {}


def write_slide_variables(executed, slides=SLIDES):
    """slides/_variables.yml, for {{< var >}} in the deck, in the order of
    slides/numbers.yml. executed: {chapters/x.qmd: executed notebook}."""
    spec_path = Path(slides) / "numbers.yml"
    numbers = {}
    for chapter in yaml.safe_load(spec_path.read_text()):
        found = kept(executed[chapter])
        for name in expressions(chapter, spec_path):
            if name not in found:
                raise KeyError(f"{chapter} kept no slide number {name}: "
                               f"does it end with slides.keep()?")
            numbers[name] = found[name]
    # the title slide says where the book is (site/address.lua's rule)
    numbers["site"] = site_url() or (
        "ask whoever gave you these slides for its address")
    (Path(slides) / "_variables.yml").write_text(
        "# Written by `make` from the chapters' runs; do not edit.\n"
        + yaml.safe_dump(numbers, sort_keys=False, allow_unicode=True))


def draw_figures():
    """From now on, every figure that the chapter shows has a second
    output, of type FIGURE, that only the build reads: the figure drawn
    for a slide (backprop.style.slide_form), as SVG, or as the page shows
    it if it has no slide form. executed.py saves it to figures/slides/."""
    import matplotlib
    import matplotlib.pyplot as plt
    from IPython import get_ipython
    from IPython.core.formatters import BaseFormatter
    from matplotlib.figure import Figure
    from traitlets import ObjectName, Unicode

    # start the inline backend first: as it starts, it takes Figure from
    # every formatter, and would take it from this one
    plt.switch_backend(matplotlib.get_backend())

    class SlideFigure(BaseFormatter):
        format_type = Unicode(FIGURE)
        print_method = ObjectName("_repr_slide_svg_")

    formatter = SlideFigure(parent=get_ipython().display_formatter)
    formatter.for_type(Figure, _slide_svg)
    get_ipython().display_formatter.formatters[FIGURE] = formatter


def _slide_svg(fig):
    import matplotlib.pyplot as plt

    slide = fig.for_slide() if hasattr(fig, "for_slide") else fig
    out = io.StringIO()
    slide.savefig(out, format="svg")
    if slide is not fig:
        plt.close(slide)  # or IPython would show it after the cell
    return out.getvalue()
