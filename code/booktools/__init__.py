"""Build tooling for the book: what Quarto lacks. Quarto executes and
renders the chapters; this package keeps what that one run made (the
figures, the slides' numbers, the student notebooks), renders the PDF
and the editions from it, prints the handouts, and times the build.

The teaching code that the chapters run is the package `backprop`; this
package is the build side, which knows about Quarto, output formats,
HTML and the slides (code/README.md maps both). Chapters reach it only
through cells labelled build-... or quiz-..., which the student notebook
leaves out. Run it as `python -m booktools COMMAND` (see __main__.py).
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the book's repository

# nbformat validates notebooks with jsonschema, which, when the optional
# rfc3987-syntax is installed (Jupyter pulls it in), compiles 38 grammars
# on import to check "iri" strings: 1.3 s in every build process. No
# notebook field has that format, so the check is never used; a None
# entry makes the import fail, and jsonschema then skips that format.
sys.modules.setdefault("rfc3987_syntax", None)


def chapters(root=ROOT):
    """The book's .qmd chapters, in order: the one list, `book: chapters:`
    (and `appendices:`) of _quarto.yml, parts' chapters included. Pages
    without code (index.qmd, references.qmd) are in it too."""
    import yaml

    book = yaml.safe_load((root / "_quarto.yml").read_text())["book"]
    files = []
    for entry in book.get("chapters", []) + book.get("appendices", []):
        if isinstance(entry, dict):  # a part: {part: ..., chapters: [...]}
            files += entry.get("chapters", [])
        else:
            files.append(entry)
    return [root / f for f in files]


def site_url(root=ROOT):
    """The site's address, `book: site-url` of _quarto.yml, which the
    Pages workflow sets (site/address.lua), or "" in a local build."""
    import yaml

    book = yaml.safe_load((root / "_quarto.yml").read_text())["book"]
    return (book.get("site-url") or "").rstrip("/")
