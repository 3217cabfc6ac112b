"""Shared fixtures: each chapter is executed once per test session, and
the book is rendered once (render_log)."""

import shutil
import subprocess

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


@pytest.fixture(scope="session")
def render_log():
    """Build the book as a reader and an instructor get it, once per test
    session: make book, the instructor PDF and the course edition. The
    log of all three; skipped where Quarto is not installed."""
    if shutil.which("quarto") is None:
        pytest.skip("Quarto is not on PATH: the rendered book cannot be "
                    "built here (CI installs Quarto 1.10 and runs these "
                    "tests)")
    logs = []
    for target in (["book"], ["pdf", "PROFILE=instructor"],
                   ["book", "PROFILE=course"]):
        result = subprocess.run(["make", *target], cwd=ROOT,
                                capture_output=True, text=True, timeout=1800)
        logs.append(result.stdout + result.stderr)
        assert result.returncode == 0, logs[-1][-5000:]
    return "\n".join(logs)
