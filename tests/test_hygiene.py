"""Lint the package, the tests, the chapters' code and the CI workflow;
keep the teaching package free of the build side."""

import ast
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import yaml
from sources import chapters, read_qmd

from booktools import ROOT

BIN = Path(sys.executable).parent
TEACHING = ROOT / "code" / "backprop"


def run(*cmd):
    result = subprocess.run(cmd, cwd=ROOT, capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff():
    run(str(BIN / "ruff"), "check", "code", "tests")


def test_workflow_passes_actionlint():
    actionlint = shutil.which("actionlint", path=str(BIN)) or shutil.which(
        "actionlint")
    if actionlint is None:
        pytest.skip("actionlint is not installed (make setup installs it)")
    workflows = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
    assert workflows
    run(actionlint, "-shellcheck=", *map(str, workflows))


def tracked_files():
    """The files git tracks, or a skip where there is no repository."""
    result = subprocess.run(["git", "ls-files"], cwd=ROOT,
                            capture_output=True, text=True)
    if result.returncode != 0 or not result.stdout.strip():
        pytest.skip("not a git checkout (no .git): no tracked files to "
                    "protect from make clean")
    return result.stdout.split()


def test_make_clean_removes_no_tracked_file():
    tracked = tracked_files()
    dry = subprocess.run(["make", "-n", "--no-print-directory", "clean"],
                         cwd=ROOT,
                         capture_output=True, text=True,
                         check=True).stdout
    patterns = " ".join(dry.replace("\\\n", " ").split()).split()
    assert patterns[:2] == ["rm", "-rf"]
    removed = {p for pattern in patterns[2:] for p in ROOT.glob(pattern)}
    doomed = [f for f in tracked
              if any(p == ROOT / f or p in (ROOT / f).parents
                     for p in removed)]
    assert doomed == []


# ---- the teaching package and the build side ------------------------------

BUILD_SIDE_IMPORTS = {"booktools", "yaml", "html", "os", "nbformat",
                      "nbclient"}
HTML_TAG = re.compile(r"</?(?:div|script|section|span|p|details|summary|"
                      r"a|h[1-6]|style|svg|ul|li|br)\b[^>]*>|\{=html\}")


def modules(folder):
    return sorted(Path(folder).glob("*.py"))


@pytest.mark.parametrize("path", modules(TEACHING), ids=lambda p: p.name)
def test_teaching_package_knows_nothing_of_the_build(path):
    # code/backprop is what a student reads and runs: no environment, no
    # build tooling, no YAML, no HTML (code/README.md)
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            names = {(node.module or "").split(".")[0]}
        else:
            names = set()
        assert not names & BUILD_SIDE_IMPORTS, (path.name, node.lineno)
        if isinstance(node, ast.Attribute):
            assert node.attr not in {"environ", "getenv"}, path.name
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            assert not HTML_TAG.search(node.value), (path.name, node.lineno)


def test_package_check_sees_the_build_side(tmp_path):
    # the check above, on a module that does what it forbids
    bad = tmp_path / "bad.py"
    bad.write_text('import os\nx = os.environ["A"]\n'
                   'print("<div class=\\"quiz\\">")\n')
    with pytest.raises(AssertionError):
        test_teaching_package_knows_nothing_of_the_build(bad)


LIMIT = 300  # lines: a module does one job


@pytest.mark.parametrize("path", sorted((ROOT / "code").rglob("*.py")),
                         ids=lambda p: str(p.relative_to(ROOT / "code")))
def test_no_module_is_over_300_lines(path):
    lines = len(path.read_text().splitlines())
    assert lines <= LIMIT, f"{path.name} has {lines} lines: split it"


# ---- the chapters' code -----------------------------------------------------

# Rules that do not fit a chapter, where code is read in the order of
# the text. The rest of pyproject.toml's rules apply as to code/.
NOTEBOOK_IGNORE = {
    "E402": "imports sit where the text first needs them",
    "F811": "a module pasted by {{< include >}} re-imports, and defines "
            "again, what the chapter's setup cell imported from it",
    "B007": "a loop variable named for the reader: for step in range(50)",
    "B023": "a closure passed on and called in the same iteration",
}


def chapter_notebook(path):
    """A chapter's code as Quarto runs it, as a notebook: the code cells
    (includes pasted) and, in their place, the inline expressions of the
    prose, so that a name only the prose uses counts as used. Returns the
    notebook and, per notebook cell, the chapter's cell it came from."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["language_info"] = {"name": "python"}
    origin = []
    for cell in read_qmd(path)[1]:
        if cell.kind == "code":
            code = cell.source
        elif cell.inline:
            code = "_ = [\n" + "".join(f"    {e},\n" for e, _ in cell.inline)
            code += "]"
        else:
            continue
        nb.cells.append(nbformat.v4.new_code_cell(code))
        origin.append(cell)
    return nb, origin


def ruff_chapters(paths, folder):
    """Ruff's findings on the chapters' code, each naming file and cell."""
    written = {}
    for path in paths:
        nb, origin = chapter_notebook(path)
        target = Path(folder) / f"{path.stem}.ipynb"
        nbformat.write(nb, target)
        written[str(target)] = (path, origin)
    result = subprocess.run(
        [str(BIN / "ruff"), "check", "--output-format", "json", "--config",
         str(ROOT / "pyproject.toml"), "--ignore", ",".join(NOTEBOOK_IGNORE),
         *written], capture_output=True, text=True)
    assert result.returncode in (0, 1), result.stderr
    found = []
    for item in json.loads(result.stdout):
        path, origin = written[item["filename"]]
        cell = origin[item["cell"] - 1]
        place = cell.where if cell.kind == "code" else (
            f"the inline code of line {cell.line}")
        found.append(f"{path.name}, {place}, line {item['location']['row']}"
                     f": {item['code']} {item['message']}")
    return found


def test_chapter_code_passes_ruff(tmp_path):
    paths = [p for p in chapters() if "```{python}" in p.read_text()]
    assert ruff_chapters(paths, tmp_path) == []


def test_chapter_lint_sees_unused_imports_and_counts_inline_use(tmp_path):
    chapter = tmp_path / "chapter.qmd"
    chapter.write_text(
        "```{python}\n#| label: setup\nimport json\nimport math\n\n"
        "import torch\n```\n\nPi is `{python} math.pi`.\n\n"
        "```{python}\n#| label: late\nimport re\n\nre.escape('x')\n"
        "torch.ones(1)\n```\n")
    found = ruff_chapters([chapter], tmp_path)
    assert found == ["chapter.qmd, cell 'setup', line 1: F401 `json` "
                     "imported but unused"]


def test_pages_workflow_names_the_site_in_both_files(tmp_path):
    # the workflow's own step, run on copies: _quarto.yml gains the two
    # addresses under book:, CITATION.cff the same two
    workflow = yaml.safe_load(
        (ROOT / ".github" / "workflows" / "book.yml").read_text())
    step = next(s for s in workflow["jobs"]["build"]["steps"]
                if "site-url" in s.get("run", ""))
    for name in ("_quarto.yml", "CITATION.cff"):
        shutil.copy(ROOT / name, tmp_path / name)
    site, repo = "https://someone.github.io/book/", "https://github.com/a/b"
    subprocess.run(["bash", "-e", "-c", step["run"]], cwd=tmp_path,
                   env={**os.environ, "SITE": site, "REPO": repo},
                   check=True)
    book = yaml.safe_load((tmp_path / "_quarto.yml").read_text())["book"]
    cff = yaml.safe_load((tmp_path / "CITATION.cff").read_text())
    assert (book["site-url"], book["repo-url"]) == (site, repo)
    assert (cff["url"], cff["repository-code"]) == (site, repo)
    assert book["chapters"] == yaml.safe_load(
        (ROOT / "_quarto.yml").read_text())["book"]["chapters"]


def test_readme_opens_with_the_two_commands():
    # a newcomer reads what the book is, then how to build and test it,
    # before anything about how a build runs (CONTRIBUTING.md has that)
    readme = (ROOT / "README.md").read_text()
    first = readme.split("\n## ")[1]
    assert first.startswith("Two commands")
    assert "make book" in first and "make test" in first
    assert "_book/index.html" in first and "_book/backprop.pdf" in first
    assert "## How a build runs" not in readme
    assert "## How the repository is laid out" in (
        ROOT / "CONTRIBUTING.md").read_text()
