"""The executor behaves like Quarto's Jupyter engine on small documents."""

import pytest

from booktools import book

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
    meta, cells = book.read_qmd(path)
    assert meta == {"title": "test"}
    code = [c for c in cells if c.kind == "code"]
    assert [c.options.get("label") for c in code] == ["first", "skipped",
                                                       None]
    assert code[2].source.strip() == "x = x + 1"
    assert code[0].line == 7  # the fence line in the file
    ran = book.execute(path)
    shown = [v for c in ran for _, v in c.inline]
    assert shown == ["1", "2"]  # eval: false skipped; order kept


def test_failing_cell_names_file_and_label(tmp_path):
    path = tmp_path / "broken.qmd"
    path.write_text("```{python}\n#| label: bad-cell\n1 / 0\n```\n")
    with pytest.raises(book.ChapterError, match=r"broken.qmd, cell "
                       r"'bad-cell': ZeroDivisionError"):
        book.execute(path)


def test_failing_inline_expression_names_file(tmp_path):
    path = tmp_path / "inline.qmd"
    path.write_text("Text with `{python} undefined_name`.\n")
    with pytest.raises(book.ChapterError, match="inline.qmd.*NameError"):
        book.execute(path)
