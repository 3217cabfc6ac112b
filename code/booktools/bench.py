"""How long a build from clean takes, next to Quarto's own floor.

    python -m booktools bench   # what `make bench` prints

A report, not a test: the numbers depend on the machine's load.
"""

import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from booktools import ROOT
from booktools.render import NOT_COPIED

FLOOR_CONFIG = """\
project:
  type: book
book:
  title: Floor
  author: Bench
  chapters: [index.qmd, chapter.qmd]
format:
  html:
    html-math-method: mathml
  typst:
    papersize: a4
"""
FLOOR_CHAPTER = """\
# A chapter

```{python}
import matplotlib.pyplot as plt
import torch

plt.plot(torch.arange(3))
plt.show()
```
"""


def _timed(command, cwd, env=None):
    """(seconds, combined output) of a command that must succeed."""
    start = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, capture_output=True,
                            text=True, env={**os.environ, **(env or {}),
                                            "QUARTO_PYTHON": sys.executable})
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{result.stdout[-3000:]}"
                 f"{result.stderr[-3000:]}")
    return time.perf_counter() - start, result.stdout + result.stderr


def bench():
    """Print what a build from clean costs, next to Quarto's own floor:
    a two-page book with one torch and matplotlib cell, HTML and PDF."""
    with tempfile.TemporaryDirectory() as tmp:
        floor_dir = Path(tmp)
        (floor_dir / "_quarto.yml").write_text(FLOOR_CONFIG)
        (floor_dir / "index.qmd").write_text("# Preface {.unnumbered}\n")
        (floor_dir / "chapter.qmd").write_text(FLOOR_CHAPTER)
        floor, _ = _timed(["quarto", "render"], floor_dir)
    with tempfile.TemporaryDirectory(prefix="book-bench-") as tmp:
        copy = Path(tmp) / "book"  # never the working tree's build
        shutil.copytree(ROOT, copy, ignore=NOT_COPIED, symlinks=True)
        (copy / ".venv").symlink_to(ROOT / ".venv")
        env = {"PYTHONPATH": str(copy / "code")}  # the copy's own code
        # -o: the venv as it is, never reinstalled from the copy
        seconds, log = _timed(["make", "-o", ".venv/.installed", "book"],
                              copy, env)
        report(floor, seconds, log, copy / "_book")
    with tempfile.TemporaryDirectory(prefix="book-bench-") as tmp:
        copy = Path(tmp) / "book"  # what a Quarto user runs: both formats
        shutil.copytree(ROOT, copy, ignore=NOT_COPIED, symlinks=True)
        plain, _ = _timed(["quarto", "render"], copy)
    print(f"plain quarto render, from clean:              {plain:6.1f} s")
    print_preview_edit()
    print(f"lines of machinery: {machinery_lines()}")


# What the book runs on, apart from its text and its teaching code; a
# vendored library's own files do not count
MACHINERY = ["code/booktools", "site", "explorers", "slides/_quarto.yml",
             "slides/*.html", "slides/*.css", "Makefile", "_quarto*.yml"]


def machinery_lines():
    listed = subprocess.run(["git", "ls-files", *MACHINERY], cwd=ROOT,
                            capture_output=True, text=True, check=True)
    files = [name for name in listed.stdout.split()
             if not re.search(r"vendor|\.min\.js", name)]
    return sum(len((ROOT / name).read_bytes().splitlines())
               for name in files)


def report(floor, seconds, log, site):
    """What the build from clean printed of itself, and its pages."""
    print(f"Quarto's floor (2 pages, 1 cell, HTML + PDF): {floor:6.1f} s")
    print(f"make book, from clean:                        {seconds:6.1f} s")
    for line in re.findall(r"^(?:execute|render): .* took .*$", log,
                           re.MULTILINE):
        print(f"    {line}")  # the PDF and the slides run side by side
    print(f"ratio:                                        "
          f"{seconds / floor:6.2f}")
    kernels = log.count("Starting python3 kernel")
    print(f"chapter executions: {kernels} (Quarto's, once per chapter)")
    for page in sorted((site / "chapters").glob("*.html")):
        size = page.stat().st_size
        packed = len(gzip.compress(page.read_bytes()))
        print(f"chapters/{page.name}: {size / 1000:.0f} kB "
              f"({packed / 1000:.0f} kB gzipped)")
    print_live_start(site)


def _served(url, word, deadline):
    """Poll url until its text contains word; the seconds it took."""
    import urllib.request

    start = time.perf_counter()
    while time.perf_counter() - start < deadline:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                if word in response.read().decode("utf-8", "replace"):
                    return time.perf_counter() - start
        except OSError:
            pass  # the server is busy, or not up yet
        time.sleep(0.5)
    return None


def preview_edit(root=ROOT, chapter="backprop", port=4987, deadline=900):
    """Seconds from saving a one-word prose edit of a chapter to the
    updated page being served by `quarto preview`, beside its floor:
    `quarto render` of that chapter alone (execution and rendering).
    In a copy of the repository."""
    with tempfile.TemporaryDirectory(prefix="book-preview-") as tmp:
        copy = Path(tmp) / "book"
        shutil.copytree(root, copy, symlinks=True, ignore=NOT_COPIED)
        source = copy / "chapters" / f"{chapter}.qmd"
        env = {**os.environ, "QUARTO_PYTHON": sys.executable}
        preview = subprocess.Popen(
            ["quarto", "preview", "--no-browser", "--port", str(port)],
            cwd=copy, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
            env=env)
        try:  # the first render executes every chapter: minutes
            url = f"http://localhost:{port}/chapters/{chapter}.html"
            if _served(url, "</html>", deadline) is None:
                sys.exit("quarto preview did not serve the chapter")
            word = "Benchmarkword"
            source.write_text(source.read_text().replace(" the ",
                                                         f" {word} ", 1))
            seconds = _served(url, word, deadline)
        finally:
            preview.terminate()
            preview.wait()
        rendered, _ = _timed(["quarto", "render", str(source), "--to",
                              "html"], copy)
    return seconds, rendered


def print_preview_edit():
    seconds, rendered = preview_edit()
    if seconds is None:
        sys.exit("the edited page was not served")
    print(f"edit to preview (one word in chapters/backprop.qmd): "
          f"{seconds:6.1f} s")
    print(f"  quarto render of that chapter alone:              "
          f"{rendered:6.1f} s (preview / this: {seconds / rendered:.2f})")


def live_start(site, chapter="autograd", cell="engine-check"):
    """Seconds from pressing Run on a live cell to its output, measured
    twice: in the page (performance.now() at the click, and when the
    output appears) and by the clock here; the first Run loads Pyodide,
    the second does not. None without a browser."""
    from playwright.sync_api import sync_playwright

    from booktools.browser import launch, serve
    from booktools.render import CHROMIUM_ARGS

    timed_run = """async (id) => {
      const cell = document.getElementById(id);
      const pre = cell.querySelector(".live-output pre");
      const start = performance.now();
      cell.querySelector(".live-bar button").click();
      const end = start + 300000;  // a failed start ends the wait too
      while (!/Value engine|could not/.test(pre.textContent)
             && performance.now() < end) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return (performance.now() - start) / 1000;
    }"""
    times = []
    with serve(site) as origin, sync_playwright() as p:
        browser = launch(p, CHROMIUM_ARGS)
        if browser is None:
            return None
        page = browser.new_page()
        page.goto(f"{origin}/chapters/{chapter}.html")
        page.wait_for_selector(f"#{cell} .live-bar")
        for _ in range(2):
            start = time.perf_counter()
            in_page = page.evaluate(timed_run, cell)
            times.append((in_page, time.perf_counter() - start))
        browser.close()
    return times


def print_live_start(site):
    times = live_start(site)
    if times is None:
        print("live cells: no Chromium-family browser to time them in")
        return
    (first, first_clock), (again, again_clock) = times
    print(f"live cell, first Run (starts Pyodide): {first:5.2f} s in the "
          f"page, {first_clock:5.2f} s by the clock here")
    print(f"live cell, second Run:                 {again:5.2f} s in the "
          f"page, {again_clock:5.2f} s by the clock here")
