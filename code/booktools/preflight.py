"""Before Quarto's own commands run the chapters: is the Python right?

`quarto render` and `quarto preview` execute chapters/*.qmd with the
Python in QUARTO_PYTHON, else the first python3 on PATH. Without the
book's packages, every chapter would stop on its first import, with a
stack trace per chapter. Quarto runs this script first (a pre-render
script of _quarto.yml), with that same
Python: it says in one sentence what is missing and what to run.

It also names, in one line, any chapters/*.qmd that _quarto.yml's list
of chapters leaves out: a draft is in no edition, and no notebook.
(A listed chapter with no file, Quarto itself stops on, in one sentence,
before this script runs.)

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


def left_out(root="."):
    """The chapters/*.qmd files that _quarto.yml does not name (read as
    text: no YAML library in the standard library)."""
    folder = os.path.join(root, "chapters")
    with open(os.path.join(root, "_quarto.yml"), encoding="utf-8") as f:
        config = "\n".join(line.split("#")[0] for line in f)  # no comments
    drafts = [name for name in sorted(os.listdir(folder))
              if name.endswith(".qmd") and not name.startswith("_")
              and f"chapters/{name}" not in config]  # _x.qmd: an include
    return [f"chapters/{name}" for name in drafts]


def main():
    absent = missing()
    if absent:
        sys.exit(advice(sys.executable, absent))
    drafts = left_out()
    if drafts:
        print(f"note: {', '.join(drafts)} is not in _quarto.yml's list of "
              "chapters, so no edition or notebook has it", file=sys.stderr)


if __name__ == "__main__":
    main()
