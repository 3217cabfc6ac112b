"""How long a build from clean takes, next to Quarto's own floor.

    python -m booktools bench   # what `make bench` prints

A report, not a test: the numbers depend on the machine's load.
"""

import gzip
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from booktools import ROOT

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


def _timed(command, cwd):
    """(seconds, combined output) of a command that must succeed."""
    start = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, capture_output=True,
                            text=True, env={**os.environ,
                                            "QUARTO_PYTHON": sys.executable})
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{result.stdout[-3000:]}"
                 f"{result.stderr[-3000:]}")
    return time.perf_counter() - start, result.stdout + result.stderr


def bench():
    """Print what a build from clean costs, next to Quarto's own floor:
    a two-page book with one torch and matplotlib cell, HTML and PDF.
    A report, not a test: the numbers depend on the machine's load."""
    with tempfile.TemporaryDirectory() as tmp:
        floor_dir = Path(tmp)
        (floor_dir / "_quarto.yml").write_text(FLOOR_CONFIG)
        (floor_dir / "index.qmd").write_text("# Preface {.unnumbered}\n")
        (floor_dir / "chapter.qmd").write_text(FLOOR_CHAPTER)
        floor, _ = _timed(["quarto", "render"], floor_dir)
    _timed(["make", "clean"], ROOT)
    # make book in its two phases: run the chapters, then render them
    running, run_log = _timed(["make", "executed", "notebooks"], ROOT)
    rendering, log = _timed(["make", "book"], ROOT)
    log = run_log + log
    seconds = running + rendering
    ours = log.count("-m booktools execute")
    quartos = log.count("Starting python3 kernel")
    print(f"Quarto's floor (2 pages, 1 cell, HTML + PDF): {floor:6.1f} s")
    print(f"make book, from clean:                        {seconds:6.1f} s")
    print(f"  running the chapters (side by side):        {running:6.1f} s")
    print(f"  rendering site, PDF and slides:             {rendering:6.1f} s")
    for line in re.findall(r"^render: .* took .*$", log, re.MULTILINE):
        print(f"    {line}")  # the two render lanes run side by side
    print(f"ratio:                                        "
          f"{seconds / floor:6.2f}")
    print(f"chapter executions: {ours} by make (once per chapter), "
          f"{quartos} by Quarto")
    for page in sorted((ROOT / "_book" / "chapters").glob("*.html")):
        size = page.stat().st_size
        packed = len(gzip.compress(page.read_bytes()))
        print(f"chapters/{page.name}: {size / 1000:.0f} kB "
              f"({packed / 1000:.0f} kB gzipped)")
