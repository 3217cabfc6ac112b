"""The test of make mutants: each exercise's worked solution passes its
check. mutmut mutates solved() in exercises/ (solutions.py writes it)."""

import importlib
from pathlib import Path

import pytest

NAMES = sorted(p.stem for p in (Path(__file__).parent / "exercises").glob(
    "*.py"))


@pytest.mark.parametrize("name", NAMES)
def test_the_check_passes_the_solution(name):
    verdict = importlib.import_module(f"exercises.{name}").solved()
    assert verdict.ok, verdict
