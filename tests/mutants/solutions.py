"""make mutants: each exercise's worked solution, as its chapter writes
it, mutated by mutmut (setup.cfg here), with the exercise's check as the
test (graded.py).

    python solutions.py        # exercises/, from the chapters
    mutmut run
    python solutions.py table  # killed and survived, by exercise

A solution is the code of the cells after its exercise's `check-NAME`
cell, cut to the statements that the check call of SOLVED
(tests/test_checks.py) reads, directly or in turn, less what the starter
gives: they become solved(), which returns the check's verdict. The
earlier cells that they read run first, unmutated (exercises/prelude/).
A survivor that is not a bug is in equivalent.txt, with the reason.
"""

import ast
import importlib
import shutil
import subprocess
import symtable
import sys
import textwrap
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from sources import read_qmd  # noqa: E402

from booktools import ROOT  # noqa: E402

# an exercise whose fix is code the chapter showed earlier: the fixed
# backward pass of Exercise bug is backward of @sec-blame
EARLIER = {"bug": ["blame-code"]}


def reads(table):
    """The global names that code reads, in its nested scopes too."""
    names = {s.get_name() for s in table.get_symbols() if s.is_referenced()
             and (table.get_type() == "module" or s.is_global())}
    return names.union(*map(reads, table.get_children()))


def statements(code, modules=frozenset()):
    """(source, compound, binds, changes, reads) for each top-level
    statement of code. x.f(...) on a line of its own changes x, as x[i] =
    and x.a = do, unless x is a module."""
    lines = code.splitlines()
    for node in ast.parse(code).body:
        text = "\n".join(lines[node.lineno - 1:node.end_lineno])
        table = symtable.symtable(text, "cell", "exec")
        binds = {s.get_name() for s in table.get_symbols()
                 if s.is_assigned() or s.is_imported()}
        inner = [] if isinstance(node, (ast.FunctionDef, ast.ClassDef)
                                 ) else list(ast.walk(node))
        targets = [n.value.func for n in inner if isinstance(n, ast.Expr)
                   and isinstance(n.value, ast.Call)] + [
            n for n in inner if isinstance(getattr(n, "ctx", 0), ast.Store)]
        changes = {n.value.id for n in targets if isinstance(
            n, (ast.Attribute, ast.Subscript))
            and isinstance(n.value, ast.Name)} - modules
        yield (text, isinstance(node, (ast.For, ast.While, ast.If, ast.With,
                                       ast.Try)), binds, changes,
               reads(table))


def needed(parts, wanted):
    """The parts that the wanted names need, in order, and the names that
    those need from before them. A compound statement (a loop, an if) may
    not bind what it binds."""
    kept = []
    for text, compound, binds, changes, read in reversed(parts):
        if (binds | changes) & wanted:
            kept.insert(0, text)
            wanted = (wanted | read - binds if compound else
                      wanted - binds | read)
    return kept, wanted


def program(chapter, exercise, call):
    """(prelude, solution): the earlier cells that the solution reads,
    and `def solved()`, the solution that returns call's verdict."""
    cells = [c for c in read_qmd(ROOT / "chapters" / f"{chapter}.qmd")[1]
             if c.kind == "code" and not c.label.startswith(("build-",
                                                             "quiz-"))]
    labels = [c.label for c in cells]
    start = labels.index(f"check-{exercise}")
    end = next((i for i in range(start, len(cells))
                if labels[i].startswith("starter-")), len(cells))
    mine = [cells[labels.index(label)] for label in EARLIER.get(
        exercise, [])] + cells[start + 1:end]
    modules = {a.asname or a.name.split(".")[0] for c in cells
               for node in ast.parse(c.source).body
               if isinstance(node, (ast.Import, ast.ImportFrom))
               for a in node.names}
    given = {p[0] for c in cells if c.label == f"starter-{exercise}"
             for p in statements(c.source)}
    body, wanted = needed([p for c in mine for p in statements(
        c.source, modules) if p[0] not in given], reads(symtable.symtable(
            call, "call", "exec")))
    check = call.split("(")[0]
    before = []
    for cell in cells[:start]:
        parts = list(statements(cell.source, modules))
        binds = set().union(*(p[2] | p[3] for p in parts))
        before.append((cell.source, False, binds, set(),
                       needed(parts, binds)[1]))
    prelude, _ = needed([b for b, c in zip(before, cells) if c not in mine],
                        wanted - {check})
    module = next(name for name in ("checks", "checks_torch")
                  if hasattr(importlib.import_module(f"backprop.{name}"),
                             check))
    return "\n\n".join(prelude), (
        f"from backprop.{module} import {check}\n\n\ndef solved():\n"
        + textwrap.indent("\n".join(body + [f"return {call}"]), "    "))


def write(solved, folder=HERE / "exercises"):
    """exercises/NAME.py and exercises/prelude/NAME.py, for SOLVED."""
    shutil.rmtree(folder, ignore_errors=True)
    shutil.rmtree(HERE / "mutants", ignore_errors=True)  # mutmut's, stale
    (folder / "prelude").mkdir(parents=True)
    for chapter, calls in solved.items():
        for exercise, call in calls.items():
            prelude, solution = program(chapter, exercise, call)
            name = exercise.replace("-", "_")
            (folder / "prelude" / f"{name}.py").write_text(prelude + "\n")
            (folder / f"{name}.py").write_text(
                f'"""Exercise {exercise}, from chapters/{chapter}.qmd."""\n'
                f"from exercises.prelude.{name} import *  # noqa: F403\n"
                f"{solution}\n")


def mutmut(*args):
    return subprocess.run([sys.executable, "-m", "mutmut", *args], cwd=HERE,
                          capture_output=True, text=True, check=True).stdout


def table():
    """Print killed, survived and equivalent by exercise; 1 if a survivor
    is not in equivalent.txt, or a line there no longer survives."""
    listed = {tuple(f.strip() for f in line.split(" | ")[:3]) for line in (
        HERE / "equivalent.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")}
    counts, unexplained, used = defaultdict(Counter), [], set()
    for line in mutmut("results", "--all", "true").splitlines():
        name, status = line.strip().rsplit(": ", 1)
        exercise = name.split(".")[1].replace("_", "-")
        if status in ("killed", "timeout"):
            counts[exercise]["killed"] += 1
            continue
        diff = mutmut("show", name).splitlines()
        key = (exercise, *(" / ".join(d[1:].strip() for d in diff if d[:1]
                                      == sign and d[:3] != sign * 3)
                           for sign in "-+"))
        seen = key in listed and status == "survived"
        counts[exercise]["equivalent" if seen else "survived"] += 1
        used.add(key)
        if not seen:
            unexplained.append(f"{name}: {status}\n" + "\n".join(diff[1:]))
    print(f"{'exercise':12}{'killed':>8}{'survived':>10}{'equivalent':>12}")
    for exercise, n in sorted(counts.items()):
        print(f"{exercise:12}{n['killed']:8}{n['survived']:10}"
              f"{n['equivalent']:12}")
    stale = [f"listed, but not a survivor: {' | '.join(k)}"
             for k in sorted(listed - used)]
    for text in unexplained + stale:
        print(f"\n{text}")
    return 1 if unexplained or stale else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["table"]:
        sys.exit(table())
    from test_checks import SOLVED
    write(SOLVED)
