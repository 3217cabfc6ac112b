"""Shared fixtures: the book is built once per test session, in a copy
of the repository (tests/built.py), as a reader and an instructor get
it; each chapter that a test asks for is then run again in a kernel."""

import os
import shutil
import subprocess

import pytest
from built import BUILD, EXECUTED
from chapter_run import ChapterRun

from booktools import ROOT
from booktools.render import NOT_COPIED

NO_QUARTO = ("Quarto is not on PATH: the book cannot be built here (CI "
             "installs Quarto 1.10 and runs these tests)")


def needs_quarto():
    if shutil.which("quarto") is None:
        pytest.skip(NO_QUARTO)


@pytest.fixture(scope="session")
def render_log():
    """Build the book in the copy: make book, the instructor PDF and the
    course edition. The log of all three."""
    needs_quarto()
    if not BUILD.exists():
        shutil.copytree(ROOT, BUILD, ignore=NOT_COPIED, symlinks=True)
        (BUILD / ".venv").symlink_to(ROOT / ".venv")
    # the copy's own packages, before the venv's editable install of ROOT's
    env = {**os.environ, "PYTHONPATH": str(BUILD / "code")}
    logs = []
    for target in (["book"], ["pdf", "PROFILE=instructor"],
                   ["book", "PROFILE=course"]):
        # -o: the copy uses the working tree's venv as it is, and never
        # reinstalls the book's package from the copy into it
        result = subprocess.run(["make", "-o", ".venv/.installed", *target],
                                cwd=BUILD, env=env,
                                capture_output=True, text=True, timeout=1800)
        logs.append(result.stdout + result.stderr)
        assert result.returncode == 0, logs[-1][-5000:]
    yield "\n".join(logs)


@pytest.fixture(scope="session")
def run_chapter(render_log):
    """run_chapter(name) -> the ChapterRun of chapters/<name>.qmd, as
    Quarto executed it in the test build; cached."""
    runs = {}

    def get(name):
        if name not in runs:
            runs[name] = ChapterRun(EXECUTED / "chapters" / f"{name}.ipynb",
                                    BUILD / "chapters")
        return runs[name]

    yield get
    for run in runs.values():
        run.close()


def pytest_sessionfinish(session):
    shutil.rmtree(BUILD, ignore_errors=True)
