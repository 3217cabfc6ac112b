"""Shared fixtures: each chapter is executed once per test session."""

import pytest

from booktools import ROOT
from booktools.run import ChapterRun


@pytest.fixture(scope="session")
def run_chapter():
    """run_chapter(name) -> a ChapterRun of chapters/<name>.qmd, cached."""
    runs = {}

    def get(name):
        if name not in runs:
            path = ROOT / "chapters" / f"{name}.qmd"
            runs[name] = ChapterRun(path)
        return runs[name]

    yield get
    for run in runs.values():
        run.close()
