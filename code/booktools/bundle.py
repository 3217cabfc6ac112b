"""The zip of student notebooks that the site links, ready to run
(notebooks/backprop-notebooks.zip, which render.py's execute writes).

It holds the notebooks, the teaching package they import (code/backprop),
their licences, and a requirements.txt that pins what they need and
nothing else: the distributions that the notebooks' code and the package
import, plus Jupyter to run them, each at the exact version of the
repository's requirements.txt. The build's own tools (ruff, pytest,
playwright...) stay out of a student's environment.
"""

import ast
import re
import sys
import zipfile
from importlib.metadata import packages_distributions
from pathlib import Path

import nbformat
import yaml
from packaging.utils import canonicalize_name

from booktools import ROOT, site_url

PACKAGE = ROOT / "code" / "backprop"
PINS = ROOT / "requirements.txt"
NOTEBOOKS = ROOT / "notebooks"
ALWAYS = ["jupyter"]  # what runs the notebooks; none of them imports it
FOLDER = "backprop-notebooks"


class PinError(RuntimeError):
    """An import that the pinned requirements do not cover."""


def imported(code):
    """The top-level names that a piece of Python code imports (IPython's
    %magic and !shell lines aside)."""
    code = re.sub(r"^\s*[%!].*$", "", code, flags=re.MULTILINE)
    names = set()
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def read_pins(path=PINS):
    """{normalised name: "Name==version"} of a requirements file."""
    pins = {}
    for line in Path(path).read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if "==" in line:
            pins[canonicalize_name(line.split("==", 1)[0])] = line
    return pins


def requirements(codes, package=PACKAGE, pins_path=PINS):
    """requirements.txt for the given code (the notebooks' code cells)
    and the shipped package: one pinned line per distribution that they
    import, plus Jupyter. Fails on an import that is neither the standard
    library, the package, nor a pinned distribution."""
    names = set().union(*map(imported, codes))
    for module in sorted(Path(package).glob("*.py")):
        names |= imported(module.read_text())
    names -= set(sys.stdlib_module_names) | {Path(package).name}
    pins, owners = read_pins(pins_path), packages_distributions()
    wanted = {canonicalize_name(name) for name in ALWAYS}
    for name in sorted(names):
        found = {canonicalize_name(d) for d in owners.get(name, [])}
        if not found & set(pins):
            owner = ", ".join(sorted(found)) or "not installed"
            raise PinError(f"`import {name}` ({owner}) is not pinned in "
                           f"{pins_path}")
        wanted |= found & set(pins)
    missing = wanted - set(pins)
    if missing:
        raise PinError(f"{', '.join(sorted(missing))} is not pinned in "
                       f"{pins_path}")
    lines = sorted((pins[name] for name in wanted), key=str.lower)
    return ("# What the notebooks import, and Jupyter to run them, at the\n"
            "# versions the book was built with (Python 3.11).\n"
            + "\n".join(lines) + "\n")


def code_of(nb):
    return [c.source for c in nb.cells if c.cell_type == "code"]


README = """\
# Backpropagation: the notebooks

The chapters of the open textbook *Backpropagation* as Jupyter
notebooks, in the book's order:

{names}

They import the small package in `backprop/`, which is here too, so they
run without a copy of the book's repository. The notebooks state the
book's exercises; their worked solutions are on the book's website,
folded under each exercise: {site}.

You need Python 3.11. In this folder, set up once:

    python3 -m venv .venv

(on Windows: `py -3.11 -m venv .venv`, and `.venv\\Scripts\\` in place
of `.venv/bin/` below). On Linux, install PyTorch's CPU build first,
which is all these notebooks need: pip's default build there brings
several gigabytes of GPU libraries (on macOS and Windows the default is
the CPU build):

    .venv/bin/pip install {torch} --index-url https://download.pytorch.org/whl/cpu

Then, on every system:

    .venv/bin/pip install -r requirements.txt

Open the notebooks, and run each from top to bottom:

    .venv/bin/jupyter lab

The notebooks' text, the book's chapters (`chapters/*.qmd` in the
licences' words), is under CC BY 4.0 (`LICENSE-TEXT.md`); their code and
the package, `code/backprop/` there and `backprop/` here, under the MIT
licence (`LICENSE`). The engine follows micrograd, whose MIT notice is in
`THIRD_PARTY_NOTICES.md`.
"""
LICENCES = ["LICENSE", "LICENSE-TEXT.md", "THIRD_PARTY_NOTICES.md"]


def readme(notebooks, pins, about=None, site=None):
    """The zip's README: its notebooks in the book's order, each with a
    line on what it covers (about: {name: line}), where the website is
    (site, by default the book's site-url), the commands to set up and
    open them, with the pinned PyTorch, and their licences."""
    about = about or {}
    site = site_url() if site is None else site
    names = "\n".join(f"- `{name}`" + (f": {about[name]}" if name in about
                                       else "") for name in notebooks)
    site = site or ("ask whoever pointed you to these notebooks for its "
                    "address")
    return README.format(names=names, torch=pins.get("torch", "torch"),
                         site=site)


def bundle(notebooks, zip_path, about=None):
    """A zip with the notebooks ({name: notebook}, in the book's order),
    the package they import, its requirements and the licences, so that a
    download runs, and may be shared, without a copy of the repository."""
    fixed_time = (2020, 1, 1, 0, 0, 0)  # the same bytes on every build
    files = {f"{FOLDER}/{name}": nbformat.writes(nb)
             for name, nb in notebooks.items()}
    for module in sorted(PACKAGE.glob("*.py")):
        files[f"{FOLDER}/backprop/{module.name}"] = module.read_text()
    codes = [code for nb in notebooks.values() for code in code_of(nb)]
    files[f"{FOLDER}/requirements.txt"] = requirements(codes)
    files[f"{FOLDER}/README.md"] = readme(notebooks, read_pins(), about)
    for name in LICENCES:
        files[f"{FOLDER}/{name}"] = (ROOT / name).read_text()
    with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in files.items():
            info = zipfile.ZipInfo(name, fixed_time)
            info.external_attr = 0o644 << 16  # rw-r--r-- when unzipped
            archive.writestr(info, text, zipfile.ZIP_DEFLATED)


def bundle_notebooks(written):
    """The zip that the site links, from the student notebooks written
    for the book's chapters ({path: chapters/x.qmd}, in the book's order),
    and no other; each chapter's description says what its notebook
    covers."""
    found, about = {}, {}
    for path, chapter in written.items():
        found[Path(path).name] = nbformat.read(path, as_version=4)
        front = (ROOT / chapter).read_text(encoding="utf-8").split("---")[1]
        about[Path(path).name] = yaml.safe_load(front).get("description")
    zip_path = NOTEBOOKS / "backprop-notebooks.zip"
    bundle(found, zip_path, about=about)
    return zip_path
