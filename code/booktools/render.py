"""Build the book: Quarto runs the chapters once, and everything else is
rendered from that run.

    python -m booktools.render execute             # the site, and the run
    python -m booktools.render html pdf slides     # what `make book` runs
    python -m booktools.render pdf --profile instructor
    python -m booktools.render html pdf --profile course

`execute` is a plain `quarto render --to html -M keep-ipynb:true`: Quarto's
own Jupyter engine executes every chapter of _quarto.yml's list once and
renders the site into _book/; executed.py keeps the notebooks it ran,
the figures and the slides' numbers, and the student notebooks and their
zip are made from them. The PDF, and the editions' sites (_book-course/),
are rendered from those executed notebooks, in a copy of the repository
where each listed chapter is its executed notebook, so that nothing runs
twice (Quarto renders an executed .ipynb without a kernel). The PDF and
the slides render side by side.

The handouts need a Chromium-family browser (browser.py); without one
the build skips them with a note, and postrender.py then removes every
link to them, as to any download this build did not make.
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

from booktools import ROOT, browser, bundle, chapters, executed, postrender
from booktools import notebooks as student

SITE = ROOT / "_book"
SLIDES = ROOT / "slides"
DECK = "backprop"  # slides/backprop.qmd
HANDOUT = SLIDES / f"{DECK}-handout.pdf"  # on A4
LETTER = SLIDES / f"{DECK}-handout-letter.pdf"  # the same on Letter
# The deck with its speaker notes, for the instructor: not on the site.
NOTES = ROOT / "_book-instructor" / f"{DECK}-slides-with-notes.pdf"
NOTES_LETTER = NOTES.with_name(f"{DECK}-slides-with-notes-letter.pdf")
# What a copy of the repository for a render leaves out: what Quarto
# would scan in vain (.venv/ alone has 40,000 files) and earlier output.
NOT_COPIED = shutil.ignore_patterns(
    ".git", ".venv", "venv", "node_modules", ".quarto",
    "_book", "_book-*", "_executed", "notebooks", "__pycache__",
    "*.quarto_ipynb*", ".pytest_cache", ".ruff_cache", "*.egg-info")
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
        log = STACK.sub("", result.stdout)  # Quarto's own, not the chapter's
        raise RenderError(f"quarto render {' '.join(args)} failed:\n{log}"
                          f"{summary(result.stdout)}")
    return result.stdout


ANSI = re.compile(r"\x1b\[[0-9;]*m")
STACK = re.compile(r"^\s*(?:Stack trace:|at \S.*)\n", re.MULTILINE)


def summary(log):
    """One line that says where a render failed: Quarto's own ERROR line,
    or the file, the cell and the exception of a cell that raised."""
    log = ANSI.sub("", log)
    errors = re.findall(r"^ERROR: (.*)$", log, re.MULTILINE)
    if errors:
        return f"error: {errors[0]}"
    files = re.findall(r"^\[\d+/\d+\] (\S+)$", log, re.MULTILINE)
    cells = re.findall(r"^\s*Cell \d+/\d+: '([^']*)'\.*(Done)?", log,
                       re.MULTILINE)
    raised = re.findall(r"^(\w+(?:Error|Exception)\b.*)$", log, re.MULTILINE)
    if files and cells and raised:
        label, done = cells[-1]  # a cell that finished: the prose after it
        where = (f"an inline expression after cell '{label}'" if done
                 else f"cell '{label}'")
        return f"error: {files[-1]}, {where}: {raised[-1]}"
    return "error: Quarto failed (its log is above)"


def site_dir(profile=None):
    """_book/, or _book-<profile>/ for an edition."""
    return SITE if profile is None else ROOT / f"_book-{profile}"


def execute():
    """Quarto runs every chapter once and renders the site into _book/;
    keep what the run made (executed.py), and make the student notebooks
    and their zip from it."""
    executed.forget()
    shutil.rmtree(executed.EXECUTED, ignore_errors=True)
    log = quarto(["--to", "html", "-M", "keep-ipynb:true"], ROOT)
    notebooks = executed.keep()
    written = student.export(notebooks)
    zip_path = bundle.bundle_notebooks(written)
    (SITE / "notebooks").mkdir(exist_ok=True)
    shutil.copy2(zip_path, SITE / "notebooks" / zip_path.name)
    (executed.EXECUTED / ".done").touch()  # make's mark of a whole run
    return log


@contextlib.contextmanager
def executed_copy(root=ROOT):
    """A temporary copy of the repository in which every chapter of the
    list is the notebook Quarto executed for it: a render of the copy
    runs no code. Everything else the sources name is there as it is."""
    with tempfile.TemporaryDirectory(prefix="book-render-") as tmp:
        tmp = Path(tmp) / "book"
        shutil.copytree(root, tmp, ignore=NOT_COPIED, symlinks=True)
        config = (tmp / "_quarto.yml").read_text(encoding="utf-8")
        for chapter in chapters(root):
            notebook = executed.executed_path(chapter, root)
            if not notebook.exists():
                continue  # a page without code renders as it is
            name = chapter.relative_to(root).as_posix()
            (tmp / name).unlink()  # Quarto takes x.qmd over x.ipynb
            shutil.copy2(notebook, (tmp / name).with_suffix(".ipynb"))
            config = config.replace(f"- {name}\n",
                                    f"- {name[:-len('.qmd')]}.ipynb\n")
        (tmp / "_quarto.yml").write_text(config, encoding="utf-8")
        yield tmp


def profile_args(profile=None):
    return ["--profile", profile] if profile else []


def render_site(staging, profile):
    """An edition's site, rendered from the executed notebooks, into
    staging/site."""
    with executed_copy() as tmp:
        log = quarto(["--to", "html", *profile_args(profile)], tmp)
        (out,) = tmp.glob("_book*")  # an edition may name its own folder
        shutil.move(out, Path(staging) / "site")
        return log


def render_pdf(staging, profile=None):
    """The PDF, rendered from the executed notebooks, into staging/."""
    with executed_copy() as tmp:
        log = quarto(["--to", "typst", *profile_args(profile)], tmp)
        (pdf,) = tmp.glob("_book*/*.pdf")
        shutil.copy2(pdf, staging)
        return log


NO_BROWSER = ("no Chromium-family browser found: the slides handouts were "
              "skipped; install Chrome, Edge or Chromium, or run the venv's "
              "`python -m playwright install chromium`, or set BOOK_BROWSER")
def render_slides():
    """The deck (one self-contained file) and its PDF handouts, printed
    by a browser (handouts.py), or the deck and a line that says why the
    handouts were skipped."""
    from booktools import handouts

    if not (SLIDES / "_variables.yml").exists():
        raise RenderError("slides/_variables.yml is missing: it is written "
                          "when the chapters run (make executed)")
    log = quarto([], SLIDES)
    deck = SLIDES / f"{DECK}.html"
    deck.write_text(postrender.fix_deck(deck.read_text(encoding="utf-8")),
                    encoding="utf-8")
    for stale in (HANDOUT, LETTER, NOTES, NOTES_LETTER):  # no old for new
        stale.unlink(missing_ok=True)
    try:
        shown = handouts.print_all(deck.as_uri(), CHROMIUM_ARGS, HANDOUT,
                                   LETTER, NOTES, NOTES_LETTER)
    except browser.BrowserError as err:
        raise RenderError(str(err)) from err
    if shown is None:
        return f"{log}{NO_BROWSER}\n"
    written = deck.read_text(encoding="utf-8").count('<aside class="notes">')
    if shown != [written, written]:
        raise RenderError(f"{NOTES.name} and {NOTES_LETTER.name} show "
                          f"{shown} slides' notes of the deck's {written}")
    return log


def render(targets, profile=None):
    """Render the targets ("html", "pdf", "slides") from the executed
    notebooks: an edition's site in one lane, the PDF then the slides in
    the other. Each log is printed whole. Then the site is repaired
    (postrender.py), and loses its links to what is not in it: build the
    site with the rest (make book), or after it, for a site that links
    everything. The public site is the executing render's own (execute)."""
    with tempfile.TemporaryDirectory(prefix="book-staging-") as staging:
        staging = Path(staging)
        with ThreadPoolExecutor(max_workers=2) as pool:
            lanes = ([pool.submit(timed, "render: the site", render_site,
                                  staging, profile)]
                     if "html" in targets and profile else [])
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
        if "html" in targets and profile:  # replaces the old one whole
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
        description="Run the chapters, or render the book from that run.")
    parser.add_argument("targets", nargs="+",
                        choices=["execute", "html", "pdf", "slides"])
    parser.add_argument("--profile", help="an edition's Quarto profile, "
                        "instructor or course (into _book-<profile>/)")
    args = parser.parse_args(argv)
    os.chdir(ROOT)
    try:
        if "execute" in args.targets:
            print(timed("execute: Quarto ran the chapters and rendered the "
                        "site", execute), end="", flush=True)
        rest = [t for t in args.targets if t != "execute"]
        if rest:  # repairs the site once the downloads are in it
            render(rest, args.profile)
    except (RenderError, executed.CollectError, KeyError) as err:
        html = bool({"execute", "html"} & set(args.targets))
        site = site_dir(args.profile if "execute" not in args.targets
                        else None)
        if html:  # nothing half-built may look complete
            for built in (site, executed.EXECUTED, student.NOTEBOOKS):
                shutil.rmtree(built, ignore_errors=True)
            executed.forget()
        sys.exit(f"{err}" + (f"; {site.name}/ was removed" if html else ""))


if __name__ == "__main__":
    main(sys.argv[1:])
