"""Live Python cells: the pure-Python cells of a page run in the
reader's browser, in Pyodide, from the site's own folder.

A cell joins in with `#| classes: live`. A chapter that has such cells
prints html_block() from a build-live-... cell: the page's prelude and
the module explorers/live.js, which loads Pyodide only when the reader
first presses Run. After each render, install() puts into the site:

- pyodide/: the runtime, from npm's pyodide package (MPL-2.0, see
  THIRD_PARTY_NOTICES.md), downloaded once into .cache/ and checked
  against the registry's SHA-512;
- live/: what the cells import, backprop/engine.py, checks.py and
  verdicts.py (pure Python, the same files that the notebooks import),
  and the runner explorers/live.py.

Without the runtime (no network on the first build), every page keeps
its cells as static code, the Run buttons are removed, and the build
says so in one line.
"""

import base64
import hashlib
import io
import json
import re
import shutil
import tarfile
import urllib.request

from booktools import ROOT

VERSION = "314.0.7"  # Python 3.14 in the browser
TARBALL = f"https://registry.npmjs.org/pyodide/-/pyodide-{VERSION}.tgz"
# The registry's dist.integrity for that tarball.
INTEGRITY = ("sha512-0YvXxEhfEdpLfb/XkM2BFAeMROq0iMUX2bzzH9pOttyMcWkwq+"
             "HbE5uyuGD82LN7y2q+SNvi/6V5JEsOlD2R1A==")
# What loadPyodide() reads; the rest of the package (TypeScript types,
# source maps, the consoles, the CommonJS loader) is not served.
RUNTIME = ["pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm",
           "python_stdlib.zip", "pyodide-lock.json"]
CACHE = ROOT / ".cache" / f"pyodide-{VERSION}"
# What the live cells import, as the site's live/ folder holds it.
PACKAGE = {"backprop/__init__.py": None,  # empty: the real one needs torch
           **{f"backprop/{m}.py": ROOT / f"code/backprop/{m}.py" for m in (
               "engine", "checks", "checks_pencil", "checks_companion",
               "verdicts")},
           "live.py": ROOT / "explorers/live.py"}
# Served beside the runtime: MPL-2.0 asks that its readers can find out
# the licence and where the source is.
NOTICE = (f"Pyodide {VERSION} (https://github.com/pyodide/pyodide), "
          "from npm's pyodide package, unmodified.\n"
          "Licence: Mozilla Public License 2.0, https://mozilla.org/MPL/2.0/\n"
          "python_stdlib.zip: CPython's standard library, under the PSF "
          "License, https://docs.python.org/3/license.html\n")
# Shown by live.js once it has set the cells up: without JavaScript, or
# without the runtime, the page promises nothing.
NOTE = ("The pure-Python code cells on this page, the ones with a Run "
        "button, run in your browser, with nothing to install: press Edit "
        "to change a cell, and Run (or Ctrl+Enter in the editor) to run "
        "it. Python starts on the first Run, which takes a few seconds. "
        "Cells that use PyTorch, which the browser does not have, show the "
        "book's own output.")
BLOCK = re.compile(r'<p class="live-note" hidden>.*?<script type="module" '
                   r'src="[^"]*live\.js"></script>', re.S)


def html_block(prelude=""):
    """The page's live-cell set-up, as a pandoc raw block for a cell with
    `output: asis`. prelude: Python run once before the page's first
    live cell, for names that the page's set-up cell imports along with
    torch (which the browser does not have)."""
    config = json.dumps({"prelude": prelude, "runtime": "../pyodide/",
                         "files": "../live/", "package": sorted(PACKAGE)})
    return ("```{=html}\n"
            f'<p class="live-note" hidden>{NOTE}</p>\n'
            f'<script type="application/json" id="live-config">{config}'
            "</script>\n"
            '<script type="module" src="../explorers/live.js"></script>\n'
            "```")


def fetch(cache=CACHE, url=TARBALL, integrity=INTEGRITY):
    """The runtime's files in cache/, downloaded once. Returns the folder,
    or raises OSError with a sentence that says what went wrong."""
    if all((cache / name).is_file() for name in RUNTIME):
        return cache
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            data = response.read()
    except OSError as error:
        raise OSError(f"Pyodide {VERSION} could not be downloaded from "
                      f"{url} ({error})") from None
    algorithm, _, expected = integrity.partition("-")
    got = base64.b64encode(hashlib.new(algorithm, data).digest()).decode()
    if got != expected:
        raise OSError(f"the download of {url} does not match the "
                      "registry's checksum")
    cache.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        for name in RUNTIME:
            member = tar.extractfile(f"package/{name}")
            (cache / name).write_bytes(member.read())
    return cache


def install(site, cache=CACHE, url=TARBALL):
    """Put the runtime and the cells' imports into the site; without the
    runtime, take the live set-up out of every page. Returns a note for
    the build's log, or None when the cells are live."""
    pages = [p for p in site.rglob("*.html") if "live-config" in
             p.read_text(encoding="utf-8")]
    if not pages:
        return None
    try:
        runtime = fetch(cache, url)
    except OSError as error:
        for page in pages:
            text = page.read_text(encoding="utf-8")
            page.write_text(BLOCK.sub("", text), encoding="utf-8")
        return (f"note: the code cells stay static, without Run: {error}; "
                "the next build tries again")
    (site / "pyodide").mkdir(exist_ok=True)
    for name in RUNTIME:
        shutil.copyfile(runtime / name, site / "pyodide" / name)
    (site / "pyodide" / "NOTICE.txt").write_text(NOTICE, encoding="utf-8")
    for name, source in PACKAGE.items():
        target = site / "live" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source is None:
            target.write_text("", encoding="utf-8")
        else:
            shutil.copyfile(source, target)
    return None
