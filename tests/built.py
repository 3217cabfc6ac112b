"""Where the tests build the book: a copy of the repository in a
temporary folder, never the working tree's _book*/ (conftest.py builds
it once per session, with the working tree's .venv)."""

import os
import tempfile
from pathlib import Path

BUILD = Path(tempfile.gettempdir()) / f"backprop-book-test-{os.getpid()}"
BOOK = BUILD / "_book"
INSTRUCTOR = BUILD / "_book-instructor"
COURSE = BUILD / "_book-course"
EXECUTED = BUILD / "_executed"
