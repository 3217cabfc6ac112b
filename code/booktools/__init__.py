"""Build tooling for the book: read the .qmd chapters, execute them once,
export what Quarto, readers and instructors need, and time the build.

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
