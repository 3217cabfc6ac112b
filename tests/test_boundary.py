"""The boundary between the chapters, the teaching package and the build.

These tests need no kernel: they read the sources.
- A chapter that pastes a module's source into its namespace never also
  imports that module, directly or through another module: one copy of
  each function per kernel, so editing the pasted code changes what the
  chapter computes afterwards.
- Every name that questions.yml and slides/numbers.yml evaluate in a
  chapter is assigned in that chapter.
- The package's functions leave torch's global random generator alone,
  so a chapter's values do not depend on which cell ran before.
"""

import ast
import builtins
import re

import pytest
import torch
import yaml
from sources import ROOT, chapters, read_qmd

PACKAGE = ROOT / "code" / "backprop"
# the chapters the list names (a draft it leaves out is not the book's)
CHAPTERS = [path for path in chapters() if path.parent.name == "chapters"]
CELL = re.compile(r"^```\{python\}\n(.*?)^```", re.MULTILINE | re.DOTALL)
INCLUDE = re.compile(r"\{\{<\s*include\s+\.\./code/backprop/(\w+)\.py\s*>\}\}")
# what slides/numbers.yml may use besides the chapter's names: the prose
# helpers, which booktools provides when it evaluates the expressions
HELPERS = {"count", "fixed", "joined", "sci"}


def imports_of(tree):
    """The backprop modules that a piece of code imports."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[1] for a in node.names
                      if a.name.startswith("backprop.")}
        elif isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "backprop":
                found |= {a.name for a in node.names}
            elif node.module.startswith("backprop."):
                found.add(node.module.split(".")[1])
    return found


def module_imports(name):
    return imports_of(ast.parse((PACKAGE / f"{name}.py").read_text()))


def closure(modules):
    """The modules, and every backprop module they import, transitively."""
    seen, todo = set(), list(modules)
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo += module_imports(name)
    return seen


def pasted_and_imported(path):
    """(modules pasted into the chapter, modules loaded by its imports)."""
    pasted = set()
    for block in CELL.findall(path.read_text()):  # eval: false only shows
        if not re.search(r"^#\|\s*eval:\s*false", block, re.MULTILINE):
            pasted |= set(INCLUDE.findall(block))
    _, cells = read_qmd(path)  # includes resolved: pasted code runs too
    code = "\n".join(c.source for c in cells if c.kind == "code"
                     and c.options.get("eval", True) is not False)
    return pasted, closure(imports_of(ast.parse(code)))


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_pasted_modules_are_never_imported(path):
    pasted, imported = pasted_and_imported(path)
    assert not pasted & imported, (
        f"{path.name} pastes and also imports {sorted(pasted & imported)}")


def test_the_paste_check_sees_an_import_through_another_module():
    source = ("```{python}\n{{< include ../code/backprop/cost.py >}}\n```\n"
              "```{python}\nfrom backprop.modes import reverse_mode\n```\n")
    pasted = set(INCLUDE.findall(source))
    imported = closure(imports_of(ast.parse(
        "from backprop.modes import reverse_mode")))  # modes imports cost
    assert pasted & imported == {"cost"}


def bound_names(path):
    """Every name a chapter's executed code binds at its top level or in
    its functions: assignments, loops, imports, defs and classes."""
    _, cells = read_qmd(path)
    names = set()
    for cell in cells:
        if cell.kind != "code" or cell.options.get("eval", True) is False:
            continue
        for node in ast.walk(ast.parse(cell.source)):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names |= {(a.asname or a.name).split(".")[0]
                          for a in node.names}
    return names


def free_names(expression):
    """The names an expression reads that it does not bind itself."""
    tree = ast.parse(expression, mode="eval")
    bound = {n.id for n in ast.walk(tree)
             if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    read = {n.id for n in ast.walk(tree)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return read - bound - set(dir(builtins))


def yaml_expressions():
    """(chapter file, where, expression) for both YAML files."""
    questions = yaml.safe_load((ROOT / "chapters" / "questions.yml")
                               .read_text())
    for chapter, sections in questions.items():
        for qs in sections.values():
            for q in qs:
                if q["kind"] == "number":
                    yield (ROOT / "chapters" / f"{chapter}.qmd",
                           f"questions.yml {q['id']}", q["answer"])
    numbers = yaml.safe_load((ROOT / "slides" / "numbers.yml").read_text())
    for chapter, parts in numbers.items():
        for part in parts.values():
            for name, expression in part.items():
                yield (ROOT / chapter, f"numbers.yml {name}",
                       str(expression))


def test_yaml_names_are_assigned_in_their_chapters():
    bound = {}
    missing = []
    for path, where, expression in yaml_expressions():
        if path not in bound:
            bound[path] = bound_names(path) | HELPERS
        missing += [f"{where}: {name} is not assigned in {path.name}"
                    for name in sorted(free_names(expression) - bound[path])]
    assert missing == []


def test_the_name_check_sees_an_undeclared_name():
    assert free_names("fixed(gains[small]) + len(xs)") == {
        "fixed", "gains", "small", "xs"}
    assert free_names("[m.out for m in model]") == {"model"}


def rng_kept(call):
    """Whether call() leaves torch's global generator as it found it."""
    torch.manual_seed(1234)
    before = torch.get_rng_state()
    call()
    return torch.equal(before, torch.get_rng_state())


def test_package_functions_leave_the_global_generator_alone():
    from backprop import cost, depth, energy, fans, saved, tasks

    calls = {
        "tasks.example_network": tasks.example_network,
        "tasks.xor_problem": tasks.xor_problem,
        "depth.build_mlp": lambda: depth.build_mlp(3, width=8, batch=4),
        "energy.signal_std": lambda: energy.signal_std(
            lambda n_in, n_out: 0.1, depth=2, width=8, batch=4),
        "fans.signal_and_blame": lambda: fans.signal_and_blame(
            [8, 4, 2], "fan_in", batch=4),
        "cost.mlp": lambda: cost.mlp([4, 3, 1]),
        "saved.checkpoint_sweep": lambda: saved.checkpoint_sweep(
            [2], width=4, batch=2),
    }
    changed = [name for name, call in calls.items() if not rng_kept(call)]
    assert changed == []
    assert not rng_kept(lambda: torch.manual_seed(6050))  # the check works


def test_seeded_functions_repeat_whatever_ran_before():
    from backprop import depth

    first = depth.build_mlp(2, width=4, batch=3)[0]
    torch.randn(100)  # a cell in between that draws
    again = depth.build_mlp(2, width=4, batch=3)[0]
    assert torch.equal(first, again)
