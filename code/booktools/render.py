"""Render the executed book: the site, the PDF and the lecture slides.

    python -m booktools.render html pdf slides   # what `make book` runs
    python -m booktools.render pdf --profile instructor
    python -m booktools.render html pdf slides --profile course

Quarto renders the executed notebooks (profile `executed`), with an
edition's profile if given, into _book-<profile>/.

Nothing here executes code: `make` has already run each chapter once into
`chapters/*-executed.ipynb`. Quarto renders one format per call, so the
site and the PDF render side by side, each in its own copy of the book's
sources, and the slides (their own small project in `slides/`) follow
the PDF in the second lane. The copies matter twice: two renders in one
folder would share Quarto's state (and a Typst render of a book clears the
site's pages), and Quarto's project scan walks every folder of the
project, where `.venv/` alone (40,000 files) costs it seconds per render.

The handouts need a Chromium-family browser (browser.py); without one
the build skips them with a note, and postrender.py then removes every
link to them, as to any download this build did not make.
"""

import argparse
import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from booktools import ROOT, browser, postrender

SITE = ROOT / "_book"
SLIDES = ROOT / "slides"
DECK = "backprop"  # slides/backprop.qmd
HANDOUT = SLIDES / f"{DECK}-handout.pdf"  # on A4
LETTER = SLIDES / f"{DECK}-handout-letter.pdf"  # the same on Letter
# The deck with its speaker notes, for the instructor: not on the site.
NOTES = ROOT / "_book-instructor" / f"{DECK}-slides-with-notes.pdf"
# What a render of the book reads: configuration (and every profile's
# _quarto-*.yml), pages, chapters, and the files the site links or loads.
SOURCES = ["_quarto.yml", "index.qmd", "references.qmd", "references.bib",
           "favicon.png", "site", "explorers", "chapters", "notebooks",
           "code/booktools/postrender.py"]  # if _quarto.yml runs it
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


class RenderError(RuntimeError):
    pass


def timed(what, step, *args):
    """step(*args)'s log, followed by a line that says how long it took."""
    start = time.perf_counter()
    log = step(*args)
    return f"{log}{what} took {time.perf_counter() - start:.1f} s\n"


def quarto(args, cwd):
    """Run Quarto; return its output, or raise with it if it failed.
    BOOKTOOLS_RENDER: a registered post-render script leaves the output
    alone (render() repairs the finished site); BOOKTOOLS_ROOT: where the
    PDF's imprint finds the version and the commit (a copy has neither)."""
    env = {**os.environ, "BOOKTOOLS_RENDER": "1", "BOOKTOOLS_ROOT": f"{ROOT}"}
    result = subprocess.run(["quarto", "render", *args], cwd=cwd, text=True,
                            env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    if result.returncode != 0:
        raise RenderError(f"quarto render {' '.join(args)} failed:\n"
                          f"{result.stdout}")
    return result.stdout


@contextlib.contextmanager
def book_copy():
    """A temporary folder with a copy of the book's sources."""
    with tempfile.TemporaryDirectory(prefix="book-render-") as tmp:
        profiles = [p.name for p in ROOT.glob("_quarto-*.yml")]
        for name in SOURCES + profiles:
            source = ROOT / name
            if source.is_dir():
                shutil.copytree(source, Path(tmp) / name, ignore=shutil
                                .ignore_patterns("*_files", "*.qmd"))
            elif source.exists():
                (Path(tmp) / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, Path(tmp) / name)
        yield Path(tmp)


def profiles(profile=None):
    """Quarto's --profile for a render of the executed book."""
    return ["--profile", ",".join(["executed"] + ([profile] if profile
                                                  else []))]


def site_dir(profile=None):
    """_book/, or _book-<profile>/ for an edition."""
    return SITE if profile is None else ROOT / f"_book-{profile}"


def render_site(staging, profile=None):
    """The site, rendered in a copy, into staging/site."""
    with book_copy() as tmp:
        log = quarto(["--to", "html", *profiles(profile)], tmp)
        (out,) = tmp.glob("_book*")  # an edition may name its own folder
        shutil.move(out, Path(staging) / "site")
        return log


def render_pdf(staging, profile=None):
    """The PDF, rendered in a copy, into staging/."""
    with book_copy() as tmp:
        log = quarto(["--to", "typst", *profiles(profile)], tmp)
        (pdf,) = tmp.glob("_book*/*.pdf")
        shutil.copy2(pdf, staging)
        return log


NO_BROWSER = ("no Chromium-family browser found: the slides handouts were "
              "skipped; install Chrome, Edge or Chromium, or run the venv's "
              "`python -m playwright install chromium`, or set BOOK_BROWSER")
def print_handouts(deck, executable):
    """The deck printed (handouts.py): the handouts and the notes copy,
    which must show every slide's notes."""
    from booktools import handouts

    try:
        shown = handouts.print_all(deck.as_uri(), executable, CHROMIUM_ARGS,
                                   HANDOUT, LETTER, NOTES)
    except handouts.BrowserError as err:
        raise RenderError(str(err)) from err
    written = deck.read_text(encoding="utf-8").count('<aside class="notes">')
    if shown != written:
        raise RenderError(f"{NOTES.name} shows {shown} slides' notes of "
                          f"the deck's {written}")


def render_slides():
    """The deck (one self-contained file) and its PDF handouts, or
    the deck and a line that says why the handouts were skipped."""
    if not (SLIDES / "_variables.yml").exists():
        raise RenderError("slides/_variables.yml is missing: it is written "
                          "when the main chapter runs (make executed)")
    log = quarto([], SLIDES)
    deck = SLIDES / f"{DECK}.html"
    deck.write_text(postrender.fix_deck(deck.read_text(encoding="utf-8")),
                    encoding="utf-8")
    for stale in (HANDOUT, LETTER, NOTES):  # no old one passes for new
        stale.unlink(missing_ok=True)
    warning = browser.explicit_problem()
    log += f"{warning}\n" if warning else ""
    executable = browser.find()
    if executable is None:
        return f"{log}{NO_BROWSER}\n"
    print_handouts(deck, executable)
    return log


def render(targets, profile=None):
    """Render the targets ("html", "pdf", "slides"): the site in one lane,
    the PDF then the slides in the other. Each log is printed whole.
    Then the site is repaired (postrender.py), and loses its links to
    what is not in it: build the site with the rest (make book), or
    after it, for a site that links everything."""
    with tempfile.TemporaryDirectory(prefix="book-staging-") as staging:
        staging = Path(staging)
        with ThreadPoolExecutor(max_workers=2) as pool:
            lanes = ([pool.submit(timed, "render: the site", render_site,
                                  staging, profile)]
                     if "html" in targets else [])
            lanes.append(pool.submit(_second_lane, targets, staging, profile))
            failures = []
            for lane in lanes:
                try:
                    print(lane.result(), end="", flush=True)
                except RenderError as err:
                    failures.append(str(err))
        if failures:
            raise RenderError("\n".join(failures))
        site = site_dir(profile)
        if "html" in targets:  # the new site replaces the old one whole
            shutil.rmtree(site, ignore_errors=True)
            shutil.move(staging / "site", site)
        if "pdf" in targets:
            site.mkdir(exist_ok=True)
            for pdf in staging.glob("*.pdf"):
                shutil.copy2(pdf, site)
    if "slides" in targets:
        (site / "slides").mkdir(parents=True, exist_ok=True)
        for made in (SLIDES / f"{DECK}.html", HANDOUT, LETTER):
            if made.exists():
                shutil.copy2(made, site / "slides" / made.name)
            else:
                (site / "slides" / made.name).unlink(missing_ok=True)
    if profile == "course":  # its notebooks would carry the answers
        shutil.rmtree(site / "notebooks", ignore_errors=True)
    if (site / "index.html").exists():  # links only what this site has
        postrender.fix_site(site)


def _second_lane(targets, staging, profile):
    logs = []
    if "pdf" in targets:
        logs.append(timed("render: the PDF", render_pdf, staging, profile))
    if "slides" in targets:
        logs.append(timed("render: the slides and handouts", render_slides))
    return "".join(logs)


def main(argv):
    parser = argparse.ArgumentParser(
        prog="python -m booktools.render",
        description="Render the executed book into _book/.")
    parser.add_argument("targets", nargs="+",
                        choices=["html", "pdf", "slides"])
    parser.add_argument("--profile", help="an edition's Quarto profile, "
                        "instructor or course (into _book-<profile>/)")
    args = parser.parse_args(argv)
    os.chdir(ROOT)
    try:
        render(args.targets, args.profile)
    except RenderError as err:
        html = "html" in args.targets
        site = site_dir(args.profile)
        if html:  # nothing half-built may look complete
            shutil.rmtree(site, ignore_errors=True)
        sys.exit(f"{err}\nerror: the render failed (see above)"
                 + (f"; {site.name}/ was removed" if html else ""))


if __name__ == "__main__":
    main(sys.argv[1:])
