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
  and the runner explorers/live.py;
- codemirror/: the cells' editor, CodeMirror 6 (MIT), each package's ES
  module and licence, as package-lock.json pins them (the packages that
  are not dev dependencies) and checked against its SHA-512s. The page's
  import map names them, so no bundler, and no Node.js, is needed.

Without the runtime or the editor (no network on the first build),
every page keeps its cells as static code, the Run buttons are removed,
and the build says so in one line.
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
LOCK = ROOT / "package-lock.json"
EDITOR_CACHE = ROOT / ".cache" / "codemirror"
# What the live cells import, as the site's live/ folder holds it.
PACKAGE = {"backprop/__init__.py": None,  # empty: the real one needs torch
           **{f"backprop/{m}.py": ROOT / f"code/backprop/{m}.py" for m in (
               "engine", "checks", "checks_pencil", "checks_companion",
               "checks_values", "verdicts")},
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
IMPORT_MAP = re.compile(r'<script type="importmap">.*?</script>\n', re.S)
BLOCK = re.compile(r'<p class="live-note" hidden>.*?<script type="module" '
                   r'src="[^"]*live\.js"></script>', re.S)


def editor_packages(lock=LOCK):
    """{name: (version, tarball, integrity)} of the editor's packages: the
    ones package-lock.json installs that are not dev dependencies (those
    drive the test browsers), from the address the lock records or, as
    npm may leave it out, the registry's."""
    packages = json.loads(lock.read_text(encoding="utf-8"))["packages"]
    found = {}
    for key, entry in packages.items():
        if key and not entry.get("dev"):
            name, version = key.removeprefix("node_modules/"), entry["version"]
            url = entry.get("resolved") or (
                f"https://registry.npmjs.org/{name}/-/"
                f"{name.rpartition('/')[2]}-{version}.tgz")
            found[name] = (version, url, entry["integrity"])
    return found


def html_block(prelude=""):
    """The page's live-cell set-up, as a pandoc raw block for a cell with
    `output: asis`. prelude: Python run once before the page's first
    live cell, for names that the page's set-up cell imports along with
    torch (which the browser does not have)."""
    config = json.dumps({"prelude": prelude, "runtime": "../pyodide/",
                         "files": "../live/", "package": sorted(PACKAGE)})
    imports = json.dumps({"imports": {
        name: f"../codemirror/{name}/index.js" for name in editor_packages()}})
    return ("```{=html}\n"
            f'<p class="live-note" hidden>{NOTE}</p>\n'
            f'<script type="application/json" id="live-config">{config}'
            "</script>\n"
            f'<script type="importmap">{imports}</script>\n'
            '<script type="module" src="../explorers/live.js"></script>\n'
            "```")


def download(url, integrity, what):
    """The npm tarball at url, as an open tarfile, if it matches the
    registry's integrity; else OSError, with a sentence that says what
    went wrong."""
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            data = response.read()
    except OSError as error:
        raise OSError(f"{what} could not be downloaded from {url} "
                      f"({error})") from None
    algorithm, _, expected = integrity.partition("-")
    got = base64.b64encode(hashlib.new(algorithm, data).digest()).decode()
    if got != expected:
        raise OSError(f"the download of {url} does not match the "
                      "registry's checksum")
    return tarfile.open(fileobj=io.BytesIO(data))


def fetch(cache=CACHE, url=TARBALL, integrity=INTEGRITY):
    """The runtime's files in cache/, downloaded once. Returns the folder,
    or raises OSError (see download)."""
    if all((cache / name).is_file() for name in RUNTIME):
        return cache
    with download(url, integrity, f"Pyodide {VERSION}") as tar:
        files = {name: tar.extractfile(f"package/{name}").read()
                 for name in RUNTIME}
    cache.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (cache / name).write_bytes(data)
    return cache


def module_path(tar):
    """Where a package's ES module is, as its package.json says."""
    meta = json.load(tar.extractfile("package/package.json"))
    exports = meta.get("exports", {})
    exports = exports.get(".", exports)
    return (exports.get("import") or meta["module"]).removeprefix("./")


def fetch_editor(cache=EDITOR_CACHE, lock=LOCK):
    """{name: folder} of the editor's packages, each folder holding the
    package's module (index.js) and its LICENSE, downloaded once into
    cache/. Raises OSError (see download)."""
    folders = {}
    for name, (version, url, integrity) in editor_packages(lock).items():
        folder = folders[name] = cache / f"{name}@{version}"
        if (folder / "index.js").is_file():
            continue
        with download(url, integrity, f"the editor's {name} {version}") as tar:
            module = tar.extractfile(f"package/{module_path(tar)}").read()
            licence = tar.extractfile("package/LICENSE").read()
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "LICENSE").write_bytes(licence)
        (folder / "index.js").write_bytes(module)  # last: the folder is whole
    return folders


def map_first(text):
    """The page with its import map before its first script: Firefox
    ignores an import map that comes after a module script, and Quarto's
    head has two."""
    found = IMPORT_MAP.search(text)
    if not found or found.start() < text.index("<script"):
        return text
    text = text.replace(found.group(), "", 1)
    return text.replace("<script", found.group() + "<script", 1)


def install(site, cache=CACHE, url=TARBALL, editor=EDITOR_CACHE, lock=LOCK):
    """Put the runtime, the cells' imports and their editor into the site;
    without the runtime or the editor, take the live set-up out of every
    page. Returns a note for the build's log, or None when the cells are
    live."""
    pages = [p for p in site.rglob("*.html") if "live-config" in
             p.read_text(encoding="utf-8")]
    if not pages:
        return None
    try:
        runtime, folders = fetch(cache, url), fetch_editor(editor, lock)
    except OSError as error:
        for page in pages:
            text = page.read_text(encoding="utf-8")
            page.write_text(BLOCK.sub("", text), encoding="utf-8")
        return (f"note: the code cells stay static, without Run: {error}; "
                "the next build tries again")
    for page in pages:
        text = page.read_text(encoding="utf-8")
        page.write_text(map_first(text), encoding="utf-8")
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
    for name, folder in folders.items():  # MIT: each licence beside its code
        shutil.copytree(folder, site / "codemirror" / name, dirs_exist_ok=True)
    return None
