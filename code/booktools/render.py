"""Render the executed book: the site, the PDF and the lecture slides.

    python -m booktools.render html pdf slides   # what `make book` runs
    python -m booktools.render pdf --profile instructor

Nothing here executes code: `make` has already run each chapter once into
`chapters/*-executed.ipynb`. Quarto renders one format per call, so the
site and the PDF render side by side, each in its own copy of the book's
sources, and the slides (their own small project in `slides/`) follow
the PDF in the second lane. The copies matter twice: two renders in one
folder would share Quarto's state (and a Typst render of a book clears the
site's pages), and Quarto's project scan walks every folder of the
project, where `.venv/` alone (40,000 files) costs it seconds per render.
"""

import argparse
import contextlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from booktools import ROOT

SITE = ROOT / "_book"
SLIDES = ROOT / "slides"
DECK = "backprop"  # slides/backprop.qmd
# What a render of the book reads: configuration, pages, chapters, and
# the files the site links or loads.
SOURCES = ["_quarto.yml", "_quarto-instructor.yml", "index.qmd",
           "references.qmd", "references.bib", "favicon.png", "site",
           "explorers", "chapters", "notebooks"]
# Debian's Chromium, driven by Playwright (its own browsers are not used).
CHROMIUM = (shutil.which("chromium") or shutil.which("chromium-browser")
            or shutil.which("google-chrome"))
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
    """Run Quarto; return its output, or raise with it if it failed."""
    result = subprocess.run(["quarto", "render", *args], cwd=cwd, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if result.returncode != 0:
        raise RenderError(f"quarto render {' '.join(args)} failed:\n"
                          f"{result.stdout}")
    return result.stdout


@contextlib.contextmanager
def book_copy():
    """A temporary folder with a copy of the book's sources."""
    with tempfile.TemporaryDirectory(prefix="book-render-") as tmp:
        for name in SOURCES:
            source = ROOT / name
            if source.is_dir():
                shutil.copytree(source, Path(tmp) / name, ignore=shutil
                                .ignore_patterns("*_files", "*.qmd"))
            elif source.exists():
                shutil.copy2(source, tmp)
        yield Path(tmp)


# Pandoc gives every line of highlighted code an empty, hidden link to
# itself, for line numbers that this book never shows: about 70 bytes a
# line, a tenth of a chapter page. Nothing on the page uses them.
LINE_ANCHOR = re.compile(
    r'<a href="#cb\d+-\d+" aria-hidden="true" tabindex="-1"></a>')


def drop_line_anchors(site):
    for page in Path(site).rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        page.write_text(LINE_ANCHOR.sub("", text), encoding="utf-8")


def render_site(staging):
    """The site, rendered in a copy, into staging/site."""
    with book_copy() as tmp:
        log = quarto(["--to", "html"], tmp)
        shutil.move(tmp / "_book", Path(staging) / "site")
        drop_line_anchors(Path(staging) / "site")
        return log


def render_pdf(staging, profile=None):
    """The PDF, rendered in a copy, into staging/."""
    with book_copy() as tmp:
        args = ["--to", "typst"] + (["--profile", profile] if profile else [])
        log = quarto(args, tmp)
        (pdf,) = (tmp / "_book").glob("*.pdf")
        shutil.copy2(pdf, staging)
        return log


def print_handout(deck, pdf):
    """The deck printed by Chromium, one page per slide (Reveal.js's own
    print layout, `?print-pdf`)."""
    if CHROMIUM is None:
        raise RenderError("the slides handout needs Chromium: install "
                          "Debian's chromium package (apt install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM,
                                    args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.goto(deck.as_uri() + "?print-pdf")
            page.wait_for_function("window.Reveal && Reveal.isReady()")
            page.pdf(path=str(pdf), prefer_css_page_size=True,
                     print_background=True)
        finally:
            browser.close()


def render_slides():
    """The deck (one self-contained file) and its PDF handout."""
    if not (SLIDES / "_variables.yml").exists():
        raise RenderError("slides/_variables.yml is missing: it is written "
                          "when the main chapter runs (make executed)")
    log = quarto([], SLIDES)
    deck = SLIDES / f"{DECK}.html"
    print_handout(deck, SLIDES / f"{DECK}-handout.pdf")
    return log


def render(targets, profile=None):
    """Render the targets ("html", "pdf", "slides"): the site in one lane,
    the PDF then the slides in the other. Each log is printed whole."""
    with tempfile.TemporaryDirectory(prefix="book-staging-") as staging:
        staging = Path(staging)
        with ThreadPoolExecutor(max_workers=2) as pool:
            lanes = ([pool.submit(timed, "render: the site", render_site,
                                  staging)]
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
        if "html" in targets:  # the new site replaces the old one whole
            shutil.rmtree(SITE, ignore_errors=True)
            shutil.move(staging / "site", SITE)
        if "pdf" in targets:
            outdir = SITE if profile is None else ROOT / f"_book-{profile}"
            outdir.mkdir(exist_ok=True)
            for pdf in staging.glob("*.pdf"):
                shutil.copy2(pdf, outdir)
    if "slides" in targets:
        (SITE / "slides").mkdir(parents=True, exist_ok=True)
        for name in (f"{DECK}.html", f"{DECK}-handout.pdf"):
            shutil.copy2(SLIDES / name, SITE / "slides" / name)


def _second_lane(targets, staging, profile):
    logs = []
    if "pdf" in targets:
        logs.append(timed("render: the PDF", render_pdf, staging, profile))
    if "slides" in targets:
        logs.append(timed("render: the slides and handout", render_slides))
    return "".join(logs)


def main(argv):
    parser = argparse.ArgumentParser(
        prog="python -m booktools.render",
        description="Render the executed book into _book/.")
    parser.add_argument("targets", nargs="+",
                        choices=["html", "pdf", "slides"])
    parser.add_argument("--profile", help="a Quarto profile for the PDF, "
                        "such as instructor (into _book-<profile>/)")
    args = parser.parse_args(argv)
    os.chdir(ROOT)
    try:
        render(args.targets, args.profile)
    except RenderError as err:
        html = "html" in args.targets
        if html:  # nothing half-built may look complete
            shutil.rmtree(SITE, ignore_errors=True)
        sys.exit(f"{err}\nerror: the render failed (see above)"
                 + ("; _book/ was removed" if html else ""))


if __name__ == "__main__":
    main(sys.argv[1:])
