"""The zip of student notebooks that the site links, ready to run.

    python -m booktools bundle   # notebooks/backprop-notebooks.zip

It holds the notebooks, the teaching package they import (code/backprop)
and a requirements.txt that pins what they need and nothing else: the
distributions that the notebooks' code and the package import, plus
Jupyter to run them, each at the exact version of the repository's
requirements.txt. The build's own tools (ruff, pytest, playwright...)
stay out of a student's environment.
"""

import ast
import re
import sys
import zipfile
from importlib.metadata import packages_distributions
from pathlib import Path

import nbformat

from booktools import ROOT

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


def _normal(name):
    """A distribution's name as pip compares it (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def read_pins(path=PINS):
    """{normalised name: "Name==version"} of a requirements file."""
    pins = {}
    for line in Path(path).read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if "==" in line:
            pins[_normal(line.split("==", 1)[0])] = line
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
    wanted = {_normal(name) for name in ALWAYS}
    for name in sorted(names):
        found = {_normal(d) for d in owners.get(name, [])}
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
notebooks: {names}. They import the small package in `backprop/`, which
is here too, so they run without a copy of the book's repository. The
notebooks state the book's exercises; their worked solutions are on the
book's website, folded under each exercise.

You need Python 3.11. In this folder, set up once:

    python3 -m venv .venv
    .venv/bin/pip install -r requirements.txt

(on Windows: `py -3.11 -m venv .venv`, then
`.venv\\Scripts\\pip install -r requirements.txt`). Then open the
notebooks, and run each from top to bottom:

    .venv/bin/jupyter lab

(on Windows: `.venv\\Scripts\\jupyter lab`).

PyTorch: on macOS and Windows, pip installs PyTorch's CPU build, which
is all these notebooks need. On Linux, pip's default build also brings
several gigabytes of GPU libraries; to get the CPU build, install it
first:

    .venv/bin/pip install {torch} --index-url https://download.pytorch.org/whl/cpu

then the requirements as above.
"""


def readme(notebooks, pins):
    """The zip's README: what is in it, in the book's order, and the two
    commands to set up and open it, with the pinned PyTorch."""
    names = ", ".join(f"`{name}`" for name in notebooks)
    return README.format(names=names, torch=pins.get("torch", "torch"))


def bundle(notebooks, zip_path, package=PACKAGE, pins_path=PINS):
    """A zip with the notebooks ({name: notebook}), the package they
    import and its requirements, so that a download runs without a copy
    of the repository."""
    fixed_time = (2020, 1, 1, 0, 0, 0)  # the same bytes on every build
    files = {f"{FOLDER}/{name}": nbformat.writes(nb)
             for name, nb in notebooks.items()}
    for module in sorted(Path(package).glob("*.py")):
        files[f"{FOLDER}/backprop/{module.name}"] = module.read_text()
    codes = [code for nb in notebooks.values() for code in code_of(nb)]
    files[f"{FOLDER}/requirements.txt"] = requirements(codes, package,
                                                       pins_path)
    files[f"{FOLDER}/README.md"] = readme(notebooks, read_pins(pins_path))
    with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in files.items():
            info = zipfile.ZipInfo(name, fixed_time)
            info.external_attr = 0o644 << 16  # rw-r--r-- when unzipped
            archive.writestr(info, text, zipfile.ZIP_DEFLATED)


def bundle_notebooks(paths, notebooks=NOTEBOOKS):
    """The zip that the site links, from the student notebooks written
    for the book's chapters (paths), and no other."""
    found = {Path(p).name: nbformat.read(p, as_version=4) for p in paths}
    zip_path = Path(notebooks) / "backprop-notebooks.zip"
    bundle(found, zip_path)
    return zip_path
