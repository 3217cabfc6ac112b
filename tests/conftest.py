"""Shared fixtures: each chapter is executed once per test session."""

import pytest

from booktools import book


@pytest.fixture(scope="session")
def run_chapter():
    """run_chapter(name) -> a ChapterRun of chapters/<name>.qmd, cached."""
    runs = {}

    def get(name):
        if name not in runs:
            path = book.ROOT / "chapters" / f"{name}.qmd"
            runs[name] = book.ChapterRun(path)
        return runs[name]

    yield get
    for run in runs.values():
        run.close()
