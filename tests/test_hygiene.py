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
