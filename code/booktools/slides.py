"""The numbers that the lecture deck takes from the chapters' runs.

slides/numbers.yml lists them as Python expressions under the chapter
that computes them. Each chapter's run evaluates its own (slide_numbers)
and keeps the text in its executed notebook; write_slide_variables then
gathers them into slides/_variables.yml, which the deck reads with
{{< var name >}}. Deck and book therefore never disagree.
"""

from pathlib import Path

import nbformat
import yaml

from booktools import ROOT
from booktools.qmd import executed_path

SLIDES = ROOT / "slides"


def slide_numbers(run, spec_path=SLIDES / "numbers.yml"):
    """{name: text} of the numbers the deck takes from this chapter: each
    is an expression evaluated in the chapter's namespace after the run
    (slides/numbers.yml), as text (the prose helpers' values are the text
    an inline expression shows). Empty if the deck takes none from it."""
    spec = yaml.safe_load(Path(spec_path).read_text())
    mine = {name: part for name, part in spec.items()
            if (ROOT / name).resolve() == run.path}
    numbers = {name: expr for part in mine.values()
               for section in ("settings", "results")
               for name, expr in part[section].items()}
    if not numbers:
        return {}
    # the prose helpers are at hand whether or not the chapter imports them
    texts = run.value(
        "(lambda count, fixed, joined, sci: ["
        + ", ".join(f"str({e})" for e in numbers.values())
        + "])(*(getattr(__import__('backprop.prose').prose, name)"
        " for name in ('count', 'fixed', 'joined', 'sci')))")
    return dict(zip(numbers, texts))


def write_slide_variables(slides=SLIDES):
    """slides/_variables.yml, for {{< var >}} in the deck: the numbers
    that each chapter's run kept, in the order of slides/numbers.yml."""
    spec = yaml.safe_load((Path(slides) / "numbers.yml").read_text())
    numbers = {}
    for chapter, part in spec.items():
        executed = nbformat.read(executed_path(ROOT / chapter), as_version=4)
        kept = executed.metadata["slide-numbers"]
        for section in ("settings", "results"):
            numbers.update({name: kept[name] for name in part[section]})
    (Path(slides) / "_variables.yml").write_text(
        "# Written by `make` from the chapters' runs; do not edit.\n"
        + yaml.safe_dump(numbers, sort_keys=False, allow_unicode=True))
