"""Before Quarto's own commands run the chapters: is the Python right?

`quarto render` and `quarto preview` execute chapters/*.qmd with the
Python in QUARTO_PYTHON, else the first python3 on PATH. Without the
book's packages, every chapter would stop on its first import, with a
stack trace per chapter. Quarto runs this script first (a pre-render
script of the `source` profile, _quarto-source.yml), with that same
Python: it says in one sentence what is missing and what to run.

Standard library only: it must run in any Python.
"""

import importlib.util
import os
import sys

# What the chapters import; the book's own two packages come from
# `pip install -e .`, which `make setup` runs.
NEEDED = ["torch", "matplotlib", "numpy", "yaml", "IPython", "ipykernel",
          "backprop", "booktools"]


def missing(names=NEEDED):
    return [name for name in names if importlib.util.find_spec(name) is None]


def advice(python, absent):
    venv = os.path.join(".venv", "Scripts" if os.name == "nt" else "bin",
                        "python.exe" if os.name == "nt" else "python")
    return (f"error: Quarto runs the chapters with {python}, which lacks "
            f"{', '.join(absent)}: run `make setup`, then set QUARTO_PYTHON "
            f"to {venv} (or activate the conda environment of "
            f"environment.yml, then `pip install --no-deps -e .`), and "
            f"render again")


def main():
    absent = missing()
    if absent:
        sys.exit(advice(sys.executable, absent))


if __name__ == "__main__":
    main()
