"""Lint the package, the tests and the CI workflow."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from booktools import book

BIN = Path(sys.executable).parent


def run(*cmd):
    result = subprocess.run(cmd, cwd=book.ROOT, capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff():
    run(str(BIN / "ruff"), "check", "code", "tests")


def test_workflow_passes_actionlint():
    actionlint = shutil.which("actionlint", path=str(BIN)) or shutil.which(
        "actionlint")
    if actionlint is None:
        pytest.skip("actionlint is not installed (make setup installs it)")
    workflows = sorted((book.ROOT / ".github" / "workflows").glob("*.yml"))
    assert workflows
    run(actionlint, "-shellcheck=", *map(str, workflows))


def test_make_clean_removes_no_tracked_file():
    dry = subprocess.run(["make", "-n", "--no-print-directory", "clean"],
                         cwd=book.ROOT,
                         capture_output=True, text=True,
                         check=True).stdout
    patterns = " ".join(dry.replace("\\\n", " ").split()).split()
    assert patterns[:2] == ["rm", "-rf"]
    removed = {p for pattern in patterns[2:] for p in book.ROOT.glob(pattern)}
    tracked = subprocess.run(["git", "ls-files"], cwd=book.ROOT,
                             capture_output=True, text=True).stdout.split()
    doomed = [f for f in tracked
              if any(p == book.ROOT / f or p in (book.ROOT / f).parents
                     for p in removed)]
    assert doomed == []
