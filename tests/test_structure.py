"""The book's sources: files, labels, cross-references, citations."""

import json
import os
import re
import shutil
import subprocess
import sys
from collections import namedtuple

import bibtexparser
import pytest
import sources as qmd
import yaml

from booktools import ROOT

CHAPTERS = qmd.chapters()
CROSSREF = re.compile(r"@((?:fig|eq|sec|tbl|exr|alg)-[\w-]*\w)")
CITATION = re.compile(r"(?<![\w.])@([A-Za-z][\w]*\d{4}[a-z]+)")
LABEL_ATTR = re.compile(r"\{#((?:fig|eq|sec|tbl|exr|alg)-[\w-]*\w)")
DIV_OPEN = re.compile(r"^:{3,}\s*\{(.*)\}\s*$")  # ::: {#exr-x}
DIV_CLOSE = re.compile(r"^:{3,}\s*$")
Div = namedtuple("Div", "attributes body previous")
REQUIRED = {
    "article": {"author", "title", "journal", "year", "volume", "pages"},
    "inproceedings": {"author", "title", "booktitle", "year"},
    "incollection": {"author", "title", "booktitle", "publisher", "year",
                     "pages"},
    "book": {"author", "title", "publisher", "year"},
    "misc": {"author", "title", "year", "url"},
    "mastersthesis": {"author", "title", "school", "year"},
    "phdthesis": {"author", "title", "school", "year"},
}


def parsed():
    for path in CHAPTERS:
        yield path, qmd.read_qmd(path)[1]


def prose_and_captions(cells):
    for cell in cells:
        if cell.kind == "markdown":
            yield cell.source
        else:
            for key in ("fig-cap", "tbl-cap", "fig-alt"):
                yield str(cell.options.get(key, ""))


def all_labels():
    labels = []
    for _, cells in parsed():
        for cell in cells:
            if cell.kind == "code" and "label" in cell.options:
                labels.append(str(cell.options["label"]))
            elif cell.kind == "markdown":
                labels += LABEL_ATTR.findall(cell.source)
    return labels


def test_quarto_config_lists_existing_files():
    config = yaml.safe_load((ROOT / "_quarto.yml").read_text())
    assert config["project"]["type"] == "book"
    assert "freeze" not in config.get("execute", {})
    assert config["book"]["author"]  # the Typst book fails without one
    assert set(config["format"]) == {"html", "typst"}
    for path in CHAPTERS:
        assert path.exists(), path


def test_labels_are_unique():
    labels = all_labels()
    duplicates = {x for x in labels if labels.count(x) > 1}
    assert not duplicates


def test_every_cross_reference_resolves():
    labels = set(all_labels())
    for path, cells in parsed():
        for text in prose_and_captions(cells):
            for ref in CROSSREF.findall(text):
                assert ref in labels, f"{path.name}: @{ref} has no label"


def test_every_citation_is_in_the_bibliography():
    keys = {e["ID"] for e in bibliography().entries}
    cited = set()
    for path, cells in parsed():
        for text in prose_and_captions(cells):
            for key in CITATION.findall(text):
                assert key in keys, f"{path.name}: @{key} not in .bib"
                cited.add(key)
    assert cited == keys, f"never cited: {keys - cited}"


def bibliography():
    return bibtexparser.loads((ROOT / "references.bib").read_text())


def test_bibliography_entries_are_complete():
    entries = bibliography().entries
    assert len(entries) >= 5
    for entry in entries:
        missing = REQUIRED[entry["ENTRYTYPE"]] - set(entry)
        assert not missing, f"{entry['ID']} lacks {missing}"
        assert re.fullmatch(r"(19|20)\d\d", entry["year"])
        # theses of the 1970s have neither a DOI nor a stable address
        assert ("doi" in entry or "url" in entry
                or entry["ENTRYTYPE"].endswith("thesis")), entry["ID"]


FIGURE_OPEN = re.compile(r'^:{3,} \{#(fig-[\w-]+) fig-alt="([^"]*)"\}\s*\Z',
                         re.MULTILINE)
# a number typed into a caption or alt text, outside inline code and maths;
# 0 and 1 may stay, as in "layer 1" and "z equals 0"
TYPED_NUMBER = re.compile(r"(?<![\w.])(?:\d*\.\d+|[2-9]|\d{2,})(?![\w])")


def typed_numbers(text):
    text = re.sub(r"`\{python\}[^`]*`|\$[^$]*\$", " ", text)
    return TYPED_NUMBER.findall(text)


def test_typed_numbers_are_found():
    assert typed_numbers("from 1 to 30, about 0.25, at z equals 0") == [
        "30", "0.25"]
    assert typed_numbers("from `{python} a` to `{python} b`, $w = 0.7$, "
                         "layer 1, the 3–4–4–1 network") == ["3", "4", "4"]


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_every_figure_has_a_caption_and_alt_text_with_computed_numbers(
        path):
    # a figure is a div (::: {#fig-x fig-alt="..."}) around the one cell
    # that draws it, with its caption last; so caption and alt text can
    # hold inline values, and do for every number but 0 and 1
    cells = qmd.read_qmd(path)[1]
    for before, cell, after in zip(cells, cells[1:], cells[2:]):
        draws = "plt.show()" in cell.source or "figures." in cell.source
        if cell.kind != "code" or not draws:
            continue
        opened = FIGURE_OPEN.search(before.source.rstrip())
        assert opened, f"{cell.where} draws outside a figure div"
        label, alt = opened.groups()
        caption = after.source.split("\n:::", 1)[0].strip()
        assert caption and len(alt.split()) >= 15, label
        assert not str(cell.options.get("label", "")).startswith("fig-")
        assert typed_numbers(alt) == typed_numbers(caption) == [], label


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_code_fits_the_printed_page(path):
    for cell in qmd.read_qmd(path)[1]:
        if cell.kind == "code" and cell.options.get("echo", True):
            for line in cell.source.split("\n"):
                assert len(line) <= 79, f"{cell.where}: {line!r}"


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_no_chapter_numbers_typed_into_prose(path):
    # numbers of chapters and sections come from cross-references only
    text = path.read_text()
    assert not re.search(r"\b(Chapter|Section|Figure|Equation) \d", text)


def fenced_divs(text):
    """The fenced divs of a chapter, each as (attributes, body, previous):
    `previous` holds the attributes of the sibling div that closed on the
    last non-blank line before this one opened, else None. Code blocks
    are skipped, so a `:::` inside one is not taken for a fence."""
    divs, stack, closed, code, last = [], [], {}, None, -1
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if code:
            if re.fullmatch(r"`{3,}\s*", line) and len(line.strip()) >= code:
                code = None
        elif fence := re.match(r"`{3,}", line):
            code = len(fence.group(0))
        elif opened := DIV_OPEN.match(line):
            depth = len(stack)
            sibling = closed.get(depth)
            previous = sibling[0] if sibling and sibling[1] == last else None
            closed = {d: c for d, c in closed.items() if d <= depth}
            stack.append((opened.group(1), i, previous))
        elif DIV_CLOSE.match(line) and stack:
            attributes, start, previous = stack.pop()
            divs.append(Div(attributes, "\n".join(lines[start + 1:i]),
                            previous))
            closed[len(stack)] = (attributes, i)
        if line.strip():
            last = i
    return divs


def is_solution(div):
    return ".solution" in div.attributes.split()


def is_exercise(attributes):
    return re.match(r"#exr-[\w-]+$", attributes.split()[0]) is not None


def test_fenced_divs_reader():
    text = ("::: {#exr-a}\n## Pencil\n\nDo.\n:::\n\n::: {.solution}\n"
            "```{python}\n:::\n```\n:::\n\nProse.\n\n::: {.solution}\n:::\n")
    exercise, first, second = fenced_divs(text)
    assert exercise.attributes == "#exr-a" and exercise.previous is None
    assert is_solution(first) and first.previous == "#exr-a"
    assert first.body == "```{python}\n:::\n```"  # a fence in code is code
    assert is_solution(second) and second.previous is None  # prose between
    nested = fenced_divs(":::: {.outer}\n::: {#exr-b}\n:::\n::::\n"
                         "::: {.solution}\n:::\n")
    assert nested[-1].previous == ".outer"  # not the inner exercise


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_solutions_number_nothing(path):
    # the student PDF leaves the solutions out (site/solution.lua drops
    # them before Quarto numbers anything): a numbered equation, figure
    # or table in one would shift the numbers after it between the PDF
    # and the site
    text = path.read_text()
    solutions = [div.body for div in fenced_divs(text) if is_solution(div)]
    assert solutions or "{#exr-" not in text
    for solution in solutions:
        assert not re.search(r"\{#(eq|fig|tbl)-|^#\|\s*label:\s*(fig|tbl)-",
                             solution, re.MULTILINE), solution[:200]


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_solutions_are_solution_divs(path):
    # site/solution.lua writes the callout, its title and the rule of who
    # sees it; the chapters hold no hand-written wrapper for it any more
    text = path.read_text()
    # the old wrapper: a div shown only in HTML and the instructor PDF
    assert not re.search(r'^:+ *\{\.content-hidden[^}]*unless-profile='
                         r'"instructor"', text, re.MULTILINE)
    assert not re.search(r"^#+ Solution\b", text, re.MULTILINE)


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_every_exercise_is_directly_followed_by_its_solution(path):
    # the filter titles a solution "Solution to Exercise N" after the div
    # just before it, which must be that exercise
    divs = fenced_divs(path.read_text())
    solutions = [div for div in divs if is_solution(div)]
    for solution in solutions:
        assert solution.previous and is_exercise(solution.previous), \
            f"{path.name}: a .solution follows {solution.previous!r}"
    exercises = [div for div in divs if is_exercise(div.attributes)]
    assert len(solutions) == len(exercises), path.name


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name)
def test_cell_labels_use_only_figure_and_table_prefixes(path):
    # Quarto reads a label's prefix as a cross-reference type: a code
    # cell labelled exr-... or eq-... would be taken for one.
    reserved = ("eq", "sec", "exr", "thm", "lem", "cor", "prp", "cnj",
                "def", "exm", "lst", "sol", "rem")
    for cell in qmd.read_qmd(path)[1]:
        label = str(cell.options.get("label", ""))
        assert label.split("-")[0] not in reserved, label


def test_notebook_numbering_follows_the_book(render_log):
    from built import BUILD

    from booktools.executed import book_numbers

    numbers = book_numbers(BUILD)  # Quarto's, from the test build
    # the preface is unnumbered; the chapters are numbered in the list's
    # order, whatever is added to it
    labels = [re.search(r"^# .*\{#(sec-[\w-]+)[^}]*\}", path.read_text(),
                        re.MULTILINE) for path in qmd.chapters()]
    labels = [m.group(1) for m in labels if m and ".unnumbered" not in m[0]]
    assert [numbers[label] for label in labels] == [
        str(n) for n in range(1, len(labels) + 1)]
    # inside a chapter: sections, exercises, equations, figures from 1
    ch = {name: numbers[f"sec-{name}"] for name in ("backprop", "autograd",
                                                    "deep")}
    assert numbers["sec-chain"] == f"{ch['backprop']}.1"
    assert numbers["sec-engine"] == f"{ch['autograd']}.1"
    assert numbers["exr-tanh"] == f"{ch['autograd']}.1"
    assert numbers["exr-float32"] == f"{ch['deep']}.1"
    assert numbers["eq-descent"] == numbers["fig-numeric"] == numbers[
        "exr-by-hand"] == numbers["alg-backprop"] == f"{ch['backprop']}.1"
    unnumbered = {m for path in qmd.chapters() for m in re.findall(
        r"\{#(sec-[\w-]+)[^}]*\.unnumbered", path.read_text())}
    referable = {x for x in all_labels() if CROSSREF.match("@" + x)}
    assert set(numbers) == referable - unnumbered  # every numbered target


def test_math_has_no_negative_thin_spaces():
    # `\!` looks right in MathML but Typst prints it far too wide, so
    # that a prime or a transpose collides with what follows (PDF p. 8).
    for path in CHAPTERS:
        assert "\\!" not in path.read_text(), path.name


def test_citation_facts_agree_everywhere():
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    config = yaml.safe_load((ROOT / "_quarto.yml").read_text())
    cite = config["citation"]
    assert cff["title"] == cite["title"]
    assert cff["authors"][0]["name"] == cite["author"]
    assert str(cff["date-released"]) == str(cite["issued"])
    preface = (ROOT / "index.qmd").read_text()
    year = str(cite["issued"])[:4]
    assert f"year = {{{year}}}" in preface
    assert f"{cite['author']} ({year})" in preface
    footer = config["book"]["page-footer"]["center"]
    assert f"{cite['author']} ({year})" in footer
    # the site's and the repository's addresses: both set, or neither
    # (the Pages workflow sets both in both files)
    assert cff.get("url") == config["book"].get("site-url")
    assert cff.get("repository-code") == config["book"].get("repo-url")


needs_quarto = pytest.mark.skipif(
    shutil.which("quarto") is None,
    reason="Quarto is not on PATH: the solution filter cannot be rendered "
           "here (CI installs Quarto 1.10 and runs this test)")

FIXTURE_CHAPTER = """# One

::: {#exr-first}
## Pencil, easy

Compute six times seven.
:::

::: {.solution}
The answer is FIRSTSOLUTION.
:::

::: {#exr-second}
## Code, easy

Print it, as @exr-first asks.
:::

::: {.solution}
SECONDSOLUTION.
:::
"""


def fixture_notebook():
    """A chapter as the executed notebooks hold one: the solution opens
    in one prose cell, holds a code cell and closes in a later one."""
    def markdown(text):
        return {"cell_type": "markdown", "metadata": {},
                "source": text.splitlines(keepends=True)}
    code = {"cell_type": "code", "execution_count": 1, "metadata": {},
            "source": ["print('THIRDOUTPUT')"],
            "outputs": [{"output_type": "stream", "name": "stdout",
                         "text": ["THIRDOUTPUT\n"]}]}
    cells = [markdown("# Two\n\n::: {#exr-third}\n## Code, medium\n\n"
                      "Run it.\n:::\n\n::: {.solution}\nTHIRDBEFORE"),
             code, markdown("THIRDAFTER.\n:::\n\nTHE END.")]
    return {"cells": cells, "nbformat": 4, "nbformat_minor": 5,
            "metadata": {"kernelspec": {"name": "python3",
                                        "display_name": "Python 3",
                                        "language": "python"}}}


@pytest.fixture(scope="module")
def solution_renders(tmp_path_factory):
    """A two-chapter book, with the book's own filters, rendered as the
    site, the student PDF, the instructor PDF and the course site."""
    root = tmp_path_factory.mktemp("solutions")
    config = yaml.safe_load((ROOT / "_quarto.yml").read_text())
    formats = {name: {"filters": config["format"][name]["filters"]}
               for name in ("html", "typst")}
    formats["typst"]["keep-typ"] = True
    for name in formats:
        for entry in formats[name]["filters"]:
            path = entry["path"] if isinstance(entry, dict) else entry
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / path, root / path)
    (root / "_quarto.yml").write_text(yaml.safe_dump({
        "project": {"type": "book"},
        "book": {"title": "Fixture", "author": "Fixture",
                 "chapters": ["index.qmd", "one.qmd", "two.ipynb"]},
        "format": formats}))
    (root / "index.qmd").write_text("# Preface {.unnumbered}\n\nHello.\n")
    (root / "one.qmd").write_text(FIXTURE_CHAPTER)
    (root / "two.ipynb").write_text(json.dumps(fixture_notebook()))
    env = dict(os.environ, QUARTO_PYTHON=os.environ.get("QUARTO_PYTHON",
                                                        sys.executable))
    env.pop("QUARTO_PROFILE", None)
    renders = {}
    for name, args in {"html": ["--to", "html"],
                       "typst": ["--to", "typst"],
                       "instructor": ["--to", "typst", "--profile",
                                      "instructor"],
                       "course": ["--to", "html", "--profile", "course"]
                       }.items():
        out = root / f"_{name}"
        result = subprocess.run(
            ["quarto", "render", *args, "--output-dir", str(out)],
            cwd=root, env=env, capture_output=True, text=True, timeout=300)
        log = result.stdout + result.stderr
        assert result.returncode == 0, log[-3000:]
        # Quarto goes on after these; they would mean a broken div or title
        assert "fenced div" not in log and "Unable to resolve" not in log
        assert "does not directly follow" not in log, log
        typ = "".join(p.read_text() for p in root.glob("*.typ"))
        renders[name] = {"dir": out, "typ": typ, "log": log}
    return renders


def callouts(html):
    """(title, header classes, body) of each callout-tip of a page."""
    found = re.findall(
        r'<div class="callout-header ([^"]*)".*?'
        r'<div class="callout-title-container[^>]*>(.*?)</div>.*?'
        r'<div class="callout-body-container callout-body">(.*?)'
        r'(?=<div id="exr-|<p>THE END|</main>)', html, re.DOTALL)
    def text(title):  # without the "Tip" said only to screen readers
        title = re.sub(r'<span class="screen-reader-only">.*?</span>', "",
                       title)
        return " ".join(re.sub(r"<[^>]+>", "", title)
                        .replace("&nbsp;", " ").split())
    return [(text(title), header, body) for header, title, body in found]


def pdf_text(pdf):
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext (Debian poppler-utils) is not installed")
    return subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True,
                          text=True, check=True).stdout


@needs_quarto
def test_site_folds_each_solution_under_its_exercise(solution_renders):
    site = solution_renders["html"]["dir"]
    one = callouts((site / "one.html").read_text())
    assert [title for title, _, _ in one] == ["Solution to Exercise 1.1",
                                              "Solution to Exercise 1.2"]
    assert all("collapsed" in header.split() for _, header, _ in one)
    assert "FIRSTSOLUTION" in one[0][2] and "SECONDSOLUTION" in one[1][2]
    # the notebook's solution is one div, around its code cell
    (title, header, body), = callouts((site / "two.html").read_text())
    assert title == "Solution to Exercise 2.1" and "collapsed" in header
    for text in ("THIRDBEFORE", "THIRDOUTPUT", "THIRDAFTER"):
        assert text in body
    assert ":::" not in (site / "two.html").read_text()


@needs_quarto
def test_student_pdf_and_course_site_have_no_solutions(solution_renders):
    typst = solution_renders["typst"]
    assert "Compute six times seven" in typst["typ"]
    pages = [typst["typ"]]
    course = solution_renders["course"]["dir"]
    pages += [(course / page).read_text() for page in ("one.html",
                                                       "two.html")]
    assert "Compute six times seven" in pages[1]
    for page in pages:
        for text in ("Solution", "SOLUTION", "THIRD", "callout-tip"):
            assert text not in page
    pdf, = typst["dir"].glob("*.pdf")
    assert "Solution" not in pdf_text(pdf)


@needs_quarto
def test_instructor_pdf_prints_numbered_solutions(solution_renders):
    instructor = solution_renders["instructor"]
    assert "Solution to #ref(<exr-first>" in instructor["typ"]
    pdf, = instructor["dir"].glob("*.pdf")
    text = " ".join(pdf_text(pdf).split())
    for title in ("Solution to Exercise 1.1", "Solution to Exercise 1.2",
                  "Solution to Exercise 2.1"):
        assert title in text
    for body in ("FIRSTSOLUTION", "THIRDBEFORE", "THIRDOUTPUT",
                 "THIRDAFTER"):
        assert body in text


def test_preflight_says_in_one_sentence_what_is_missing():
    script = ROOT / "code" / "booktools" / "preflight.py"
    # -S: a Python without site-packages, like a system Python without
    # the book's packages
    result = subprocess.run([sys.executable, "-I", "-S", str(script)],
                            capture_output=True, text=True)
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr
    assert "torch" in lines[0] and "make setup" in lines[0]
    assert "QUARTO_PYTHON" in lines[0]
    ok = subprocess.run([sys.executable, str(script)], capture_output=True,
                        text=True)
    assert ok.returncode == 0, ok.stderr


def test_a_draft_outside_the_list_is_named_in_one_line(tmp_path):
    (tmp_path / "chapters").mkdir()
    (tmp_path / "_quarto.yml").write_text(
        "book:\n  chapters:\n    - index.qmd\n    - chapters/one.qmd\n"
        "    # - chapters/draft.qmd (a comment lists nothing)\n")
    for name in ("one.qmd", "draft.qmd", "questions.yml"):
        (tmp_path / "chapters" / name).write_text("# x\n")
    script = ROOT / "code" / "booktools" / "preflight.py"
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path,
                            capture_output=True, text=True)
    assert result.returncode == 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "chapters/draft.qmd" in lines[0]
    assert "one.qmd" not in lines[0]


# ---- the glossary ----------------------------------------------------------

GLOSSARY_LINK = re.compile(r"\[([^\[\]]+)\]\(\.\./glossary\.qmd#([\w-]+)\)")


def chapters_prose():
    """The chapters' Markdown in reading order, headings and fenced div
    lines (which carry fig-alt) blanked: the text a reader meets."""
    return "\n".join(
        "\n".join("" if line.startswith(("#", ":::")) else line
                  for line in cell.source.split("\n"))
        for path in CHAPTERS if path.parent.name == "chapters"
        for cell in qmd.read_qmd(path)[1] if cell.kind == "markdown")


def test_each_glossary_term_is_linked_from_its_first_use():
    entries = re.findall(r"^\[[^\]]+\]\{#(gloss-[\w-]+)\}$", (
        ROOT / "glossary.qmd").read_text(), re.MULTILINE)
    prose = chapters_prose()
    links = list(GLOSSARY_LINK.finditer(prose))
    assert {m[2] for m in links} == set(entries)  # each term, no dead link
    for entry in entries:
        link = next(m for m in links if m[2] == entry)
        words = re.sub(r"[*`]", "", link[1]).split()
        first = re.search(r"(?<![\w-])" + r"\s+".join(map(re.escape, words))
                          + r"(?![\w-])", prose, re.IGNORECASE)
        assert link.start() < first.start() < link.end(), (
            f"{entry}: '{' '.join(words)}' is used before its link, in "
            f"…{prose[max(first.start() - 60, 0):first.end()]}")
