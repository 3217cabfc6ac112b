"""The executor behaves like Quarto's Jupyter engine on small documents."""

import nbformat
import pytest

from booktools import notebooks, quiz, run
from booktools.qmd import read_qmd
from booktools.run import ChapterError, execute, execute_chapter

DOC = """---
title: test
---

# A test {#sec-test}

```{python}
#| label: first
#| eval: true
x = 1
```

Inline before the change: `{python} x`.

```{python}
#| label: skipped
#| eval: false
x = 100
```

```{python}
{{< include included.py >}}
```

Inline after the change: `{python} x`.

```python
# a display-only block is prose, never executed
raise SystemExit
```
"""


def test_cells_options_includes_and_inline_order(tmp_path):
    (tmp_path / "included.py").write_text("x = x + 1\n")
    path = tmp_path / "doc.qmd"
    path.write_text(DOC)
    meta, cells = read_qmd(path)
    assert meta == {"title": "test"}
    code = [c for c in cells if c.kind == "code"]
    assert [c.options.get("label") for c in code] == ["first", "skipped",
                                                       None]
    assert code[2].source.strip() == "x = x + 1"
    assert code[0].line == 7  # the fence line in the file
    ran = execute(path)
    shown = [v for c in ran for _, v in c.inline]
    assert shown == ["1", "2"]  # eval: false skipped; order kept


def test_failing_cell_names_file_line_and_label(tmp_path):
    path = tmp_path / "broken.qmd"
    path.write_text("# A chapter\n\n```{python}\n#| label: bad-cell\n"
                    "x = 1\n1 / 0\n```\n")
    with pytest.raises(ChapterError) as failure:
        execute(path)
    message = str(failure.value)
    first = message.splitlines()[0]
    assert first.endswith("broken.qmd:6: ZeroDivisionError: division by zero")
    assert "cell 'bad-cell' at" in message and "broken.qmd:5" in message
    assert "Cell In[" not in message  # frames named by file:line
    assert "nbclient" not in message and "booktools" not in message


def test_failure_in_a_function_points_into_the_included_file(tmp_path):
    (tmp_path / "helper.py").write_text("def f(x):\n    return 1 / x\n")
    path = tmp_path / "calls.qmd"
    path.write_text("```{python}\n{{< include helper.py >}}\n```\n\n"
                    "```{python}\nf(0)\n```\n")
    with pytest.raises(ChapterError) as failure:
        execute(path)
    message = str(failure.value)
    assert message.splitlines()[0].endswith("helper.py:2: ZeroDivisionError: "
                                            "division by zero")
    assert "calls.qmd:6" in message  # the statement that called it


def test_failing_inline_expression_names_file(tmp_path):
    path = tmp_path / "inline.qmd"
    path.write_text("# A page\n\nText, and then\n"
                    "some `{python} undefined_name`.\n")
    with pytest.raises(ChapterError, match=r"inline.qmd:4: the inline "
                       r"expression `undefined_name` failed: NameError"):
        execute(path)


FIGURE_DOC = """# Figures {#sec-figures}

```{python}
#| label: fig-line
#| fig-cap: "A line."
import matplotlib.pyplot as plt

plt.plot([0, 1], [1, 0])
plt.show()
```

```{python}
#| label: plain
print("no figure here")
```
"""


def test_a_run_keeps_its_figures_as_the_book_shows_them(tmp_path):
    # one small chapter run: figures/<label without fig->.svg and .pdf,
    # dated by SOURCE_DATE_EPOCH; Quarto is given the SVG only
    path = tmp_path / "doc.qmd"
    path.write_text(FIGURE_DOC)
    figures = tmp_path / "figures"
    execute_chapter(path, figures=figures)
    assert sorted(p.name for p in figures.iterdir()) == ["line.pdf",
                                                         "line.svg"]
    svg = (figures / "line.svg").read_text()
    assert svg.startswith("<?xml") and "<path" in svg
    assert "<dc:date>1970-01-01T00:00:00+00:00</dc:date>" in svg
    assert run.SOURCE_DATE_EPOCH == "0"
    pdf = (figures / "line.pdf").read_bytes()
    assert pdf.startswith(b"%PDF") and b"(D:19700101000000Z)" in pdf
    executed = nbformat.read(tmp_path / "doc-executed.ipynb", as_version=4)
    figure = next(c for c in executed.cells if "fig-line" in c.source)
    (data,) = [o.data for o in figure.outputs if "data" in o]
    assert "application/pdf" not in data
    assert data["image/svg+xml"] == svg
    assert executed.metadata["slide-numbers"] == {}


def test_a_fig_cell_shows_one_figure(tmp_path):
    path = tmp_path / "two.qmd"
    path.write_text("```{python}\n#| label: fig-two\nprint(2)\n```\n")
    with pytest.raises(ChapterError, match="cell 'fig-two' shows 0 figures"):
        execute_chapter(path, figures=tmp_path / "figures")
    assert not (tmp_path / "two-executed.ipynb").exists()


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


def test_a_failing_chapter_removes_the_built_site(tmp_path, monkeypatch):
    import booktools
    from booktools.__main__ import main

    monkeypatch.setattr(booktools, "ROOT", tmp_path)  # not the real _book/
    (tmp_path / "_book").mkdir()
    (tmp_path / "_book" / "index.html").write_text("stale")
    path = tmp_path / "broken.qmd"
    path.write_text("```{python}\n#| label: bad-cell\n1 / 0\n```\n")
    with pytest.raises(SystemExit) as stopped:
        main(["execute", str(path)])
    message = str(stopped.value.code)
    assert message.startswith("error: ") and "broken.qmd:3" in message
    assert "_book/ removed" in message
    assert not (tmp_path / "_book").exists()
    assert not (tmp_path / "broken-executed.ipynb").exists()
