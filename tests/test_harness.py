"""The build keeps what Quarto's one run of the chapters made: figures,
inline values, cross-reference numbers and the student notebooks."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from sources import read_qmd

from booktools import executed, notebooks, quiz, render
from booktools.render import summary


def figure_cells(name, *svgs):
    """A figure div as Quarto's notebook keeps it: the opening line ends
    a markdown cell, the drawing cell follows, then the caption."""
    opening = nbformat.v4.new_markdown_cell(
        f'Prose.\n\n::: {{#fig-{name} fig-alt="`{{python}} x` wide"}}')
    cell = nbformat.v4.new_code_cell("plot()")
    cell.execution_count = 1
    cell.outputs = [nbformat.v4.new_output(
        "display_data", data={"image/svg+xml": svg, "text/plain": "fig"})
        for svg in svgs]
    return [opening, cell, nbformat.v4.new_markdown_cell("Caption.\n:::")]


def test_a_figure_div_keeps_its_one_figure():
    plain = nbformat.v4.new_code_cell("plot()")
    plain.execution_count = 1
    plain.outputs = figure_cells("x", "<svg>not in a div</svg>")[1].outputs
    nb = nbformat.v4.new_notebook(
        cells=[*figure_cells("one", "<svg>1</svg>"), plain])
    assert executed.figures(nb) == {"one": "<svg>1</svg>"}
    nb.cells += figure_cells("two", "<svg>a</svg>", "<svg>b</svg>")
    with pytest.raises(executed.CollectError, match="fig-two shows 2"):
        executed.figures(nb)


def test_inline_values_are_quartos():
    cell = nbformat.v4.new_markdown_cell(
        "Twice: `{python} x` and `{python} x`; once `{python} f(x)`.")
    cell.metadata["user_expressions"] = [
        {"expression": e, "result": {"data": {"text/plain": v}}}
        for e, v in [("x", "1"), ("x", "1"), ("f(x)", "2")]]
    assert executed.with_values(cell) == "Twice: 1 and 1; once 2."
    # a number that starts a line, then a full stop, starts no list
    cell.source = ("differs by\n`{python} x`. Then\n`{python} x` more, "
                   "`{python} f(x)`.")
    assert executed.with_values(cell) == (
        "differs by\n1\\. Then\n1 more, 2.")


def test_numbers_are_read_from_quartos_index(tmp_path):
    xref = tmp_path / ".quarto" / "xref"
    xref.mkdir(parents=True)
    (xref / "INDEX").write_text(json.dumps(
        {"chapters/a.qmd": {"a.html": "abc"}}))
    entries = [("sec-a", 1, [2, 0, 0]), ("sec-a-b", 3, [2, 1, 0]),
               ("sec-a-b-c", 4, [2, 1, 3]), ("fig-x", 3, [2, 1, 0]),
               ("eq-y", 1, [2, 0, 0])]
    (xref / "abc").write_text(json.dumps({"entries": [
        {"key": k, "order": {"number": n, "section": s}}
        for k, n, s in entries]}))
    assert executed.book_numbers(tmp_path) == {
        "sec-a": "2", "sec-a-b": "2.1", "sec-a-b-c": "2.1.3",
        "fig-x": "2.3", "eq-y": "2.1"}


EXECUTED = """# A chapter {#sec-a}

::: {.content-visible when-format="html"}
Only on the page.

```{python}
#| label: build-page-only
print("html")
```
:::

```{python}
#| label: build-imports
from booktools import quiz
```

```{python}
#| label: kept
#| echo: true
y = 2 * 21
```

::: {#exr-one}
## Code, easy

Compute it, as in @sec-a.
:::

::: {.solution}
The answer.

```{python}
#| label: one-solution
secret = 42
```
:::

```{python}
#| label: skipped
#| eval: false
never = 1
```

```{python}
#| label: quiz-sec-a
#| output: asis
print(quiz.block("c", "sec-a", globals()))
```
"""


def test_student_notebook_is_made_from_the_executed_one(tmp_path):
    # no kernel: an executed notebook by hand, with a quiz cell's output
    path = tmp_path / "c.qmd"
    path.write_text(EXECUTED)
    form = "**Check your understanding**\n\nQuestion 1."
    printed = "\n\n".join(quiz._div(f, text) for f, text in [
        ("html", "<div>widget</div>"), ("typst", "box"), ("ipynb", form)])
    nb = nbformat.v4.new_notebook()
    nb.cells.append(nbformat.v4.new_raw_cell("---\ntitle: c\n---"))
    for cell in read_qmd(path)[1]:
        if cell.kind == "markdown":
            nb.cells.append(nbformat.v4.new_markdown_cell(cell.source))
            continue
        code = nbformat.v4.new_code_cell(f"{cell.header}\n{cell.source}")
        if cell.label == "quiz-sec-a":
            code.outputs = [nbformat.v4.new_output(
                "stream", name="stdout", text=printed + "\n")]
        nb.cells.append(code)
    student = notebooks.to_notebook(nb, {"sec-a": "1", "exr-one": "1.1"})
    nbformat.validate(student)
    code = [c.source for c in student.cells if c.cell_type == "code"]
    assert code == ["y = 2 * 21"]  # no #| options, no build- cells
    text = "\n".join(c.source for c in student.cells)
    assert "# 1 A chapter" in text and "as in Chapter 1." in text
    assert "### Exercise 1.1 (Code, easy)" in text
    for gone in ("Only on the page", "The answer", "secret", "never",
                 "widget", "box", ":::", "{#"):
        assert gone not in text, gone
    assert student.cells[-1].source == form  # the questions, as markdown


def quarto_book(folder, chapters):
    """A two-page book in folder, rendered to HTML: (exit code, log)."""
    if shutil.which("quarto") is None:
        pytest.skip("Quarto is not on PATH")
    (folder / "_quarto.yml").write_text(
        "project: {type: book}\nbook: {title: T, author: A, chapters: "
        f"[index.qmd, {', '.join(chapters)}]}}\n")
    (folder / "index.qmd").write_text("# Preface {.unnumbered}\n")
    result = subprocess.run(["quarto", "render", "--to", "html"],
                            cwd=folder, capture_output=True, text=True,
                            env={**os.environ,
                                 "QUARTO_PYTHON": sys.executable})
    return result.returncode, result.stdout + result.stderr


def test_a_failing_cell_stops_the_build_and_says_where(tmp_path):
    (tmp_path / "broken.qmd").write_text(
        "# Broken\n\n```{python}\n#| label: bad-cell\nx = 1\n1 / 0\n```\n")
    code, log = quarto_book(tmp_path, ["broken.qmd"])
    assert code != 0
    assert summary(log) == ("error: broken.qmd, cell 'bad-cell': "
                            "ZeroDivisionError: division by zero")


def test_a_failing_inline_value_is_told_from_its_cell(tmp_path):
    (tmp_path / "broken.qmd").write_text(
        "# Broken\n\n```{python}\n#| label: fine\nx = 1\n```\n\n"
        "Shown: `{python} x / 0`.\n")
    code, log = quarto_book(tmp_path, ["broken.qmd"])
    assert code != 0
    assert summary(log) == ("error: broken.qmd, an inline expression after "
                            "cell 'fine': ZeroDivisionError: division by "
                            "zero")


def test_a_listed_chapter_with_no_file_is_named_in_one_sentence(tmp_path):
    code, log = quarto_book(tmp_path, ["missing.qmd"])
    assert code != 0
    assert summary(log) == "error: Book chapter 'missing.qmd' not found"


FIXTURE = Path(__file__).parent / "fixture-book"


def same_run(text):
    """A page's text, without the kernel's process id, which a warning's
    place names (/tmp/ipykernel_4883/...)."""
    return re.sub(r"ipykernel_\d+", "ipykernel_N", text)


def pdf_words(pdf):
    text = subprocess.run(["pdftotext", str(pdf), "-"], check=True,
                          capture_output=True, text=True).stdout
    return same_run(" ".join(text.split()))


def test_make_renders_the_pages_that_quarto_render_renders(tmp_path,
                                                           monkeypatch):
    # the differential test: a chapter with what Quarto authors write,
    # built as plain `quarto render` builds it (every format executes)
    # and as make builds it (one execution, then every format and edition
    # rendered from the notebook Quarto kept): the same pages
    if shutil.which("quarto") is None or shutil.which("pdftotext") is None:
        pytest.skip("Quarto or pdftotext is not on PATH")
    from test_render import main_text

    monkeypatch.setenv("QUARTO_PYTHON", sys.executable)
    plain, ours = tmp_path / "plain", tmp_path / "ours"
    for folder in (plain, ours):
        shutil.copytree(FIXTURE, folder)
    render.quarto([], plain)
    render.quarto(["--to", "html", "-M", "keep-ipynb:true"], ours)
    assert list(executed.collect(ours)) == ["chapter.qmd"]
    with render.executed_copy(ours) as copy:
        logs = render.quarto(["--to", "typst"], copy)
        printed = pdf_words(copy / "_book" / "Fixture.pdf")
        logs += render.quarto(["--to", "html"], copy)  # clears the folder
        assert "Starting python3 kernel" not in logs  # nothing ran again
        edition = same_run(main_text((copy / "_book" / "chapter.html")
                                     .read_text()))
    page = same_run(main_text((plain / "_book" / "chapter.html")
                              .read_text()))
    assert same_run(main_text((ours / "_book" / "chapter.html")
                              .read_text())) == page
    assert edition == page
    assert printed == pdf_words(plain / "_book" / "Fixture.pdf")
    # and the pages say what the chapter computed, as Quarto means it
    for shown in ("Inline before the change: 1", "after the change: 2",
                  "the include gave 42", "as Markdown", "folded code",
                  "after a hidden warning",
                  "UserWarning: a warning everybody sees",
                  "ValueError : shown, not fatal", "(b) A flat line.",
                  "Two panels.", "Only the page says 20.",
                  "#| label: not-a-cell"):
        assert shown in page, shown
    for hidden in ("never shown", "UserWarning: a warning nobody sees",
                   "setup", "Only print"):
        assert hidden not in page, hidden
    assert "Only print says 200" in printed and "Only the page" not in printed


def test_kernels_started_side_by_side_all_start():
    # the tests' kernels (chapter_run.py) use IPC sockets: four at once,
    # five times over, and each answers
    from concurrent.futures import ThreadPoolExecutor

    from chapter_run import start_kernel
    from nbclient import NotebookClient

    def answer(n):
        client = NotebookClient(nbformat.v4.new_notebook(),
                                kernel_name="python3")
        start_kernel(client)
        try:
            reply = client.wait_for_reply(client.kc.execute(
                "", user_expressions={"x": f"{n} * 2"}))
            return reply["content"]["user_expressions"]["x"]["data"][
                "text/plain"]
        finally:
            client._cleanup_kernel()

    with ThreadPoolExecutor(max_workers=4) as pool:
        for _ in range(5):
            assert list(pool.map(answer, range(4))) == ["0", "2", "4", "6"]
