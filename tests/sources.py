"""The tests' reader of the .qmd sources, for checks of what an author
wrote (labels, captions, line widths, the notation a chapter uses).

The build never reads a .qmd file: Quarto does (booktools/executed.py).
Nothing here runs code, and no test of a rendered page relies on it.
"""

import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from booktools import ROOT
from booktools.notebooks import DIV_CLOSE, DIV_OPEN, cell_options

FENCE = re.compile(r"^(`{3,})\s*(.*?)\s*$")
INLINE = re.compile(r"(?:^|[^`])`\{python\}[ \t]([^`]+)`", re.MULTILINE)
INCLUDE = re.compile(r"^\{\{<\s*include\s+(\S+)\s*>\}\}\s*$")
HEADING = re.compile(r"^(#{1,3}) .*?(\{#(sec-[\w-]+)\})?\s*$")


@dataclass
class Cell:
    kind: str  # "markdown" or "code"
    source: str
    line: int  # 1-based line of the cell's first line in the .qmd
    options: dict = field(default_factory=dict)
    inline: list = field(default_factory=list)  # (expression, value)
    header: str = ""  # the `#| key: value` lines, as written
    outputs: list = field(default_factory=list)  # once executed
    # (file, line) of every line of a code cell's source, includes too
    origins: list = field(default_factory=list)

    @property
    def where(self):
        label = self.options.get("label")
        return f"cell '{label}'" if label else f"line {self.line}"

    @property
    def label(self):
        return str(self.options.get("label", ""))


def chapters(root=ROOT):
    """The book's pages, as _quarto.yml lists them (booktools.chapters)."""
    from booktools import chapters as listed

    return listed(root)


def split_front_matter(text):
    """(front matter dict, body, number of lines the front matter took)."""
    if text.startswith("---\n"):
        end = text.index("\n---\n", 4)
        meta = yaml.safe_load(text[4:end]) or {}
        return meta, text[end + 5:], text[:end + 5].count("\n")
    return {}, text, 0


def resolve_includes(source, folder):
    """Replace `{{< include path >}}` lines by the file's text."""
    return "\n".join(text for text, _ in _included(source, folder, None, 1))


def _included(source, folder, path, first):
    """(text, (file, line)) for each line of source, with include lines
    replaced by the included file's lines; first is source's first line
    number in path. Error messages use the origins (run.py)."""
    out = []
    for n, line in enumerate(source.split("\n"), start=first):
        match = INCLUDE.match(line.strip())
        if match:
            included = (folder / match.group(1)).resolve()
            text = included.read_text().rstrip("\n").split("\n")
            out += [(t, (included, k)) for k, t in enumerate(text, 1)]
        else:
            out.append((line, (path, n)))
    return out


def read_qmd(path):
    """The chapter as alternating markdown and executable code cells."""
    path = Path(path)
    meta, body, offset = split_front_matter(path.read_text())
    cells, prose, prose_line = [], [], offset + 1
    lines = body.split("\n")
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            prose.append(lines[i])
            i += 1
            continue
        ticks, info = match.groups()
        end = i + 1
        while end < len(lines) and lines[end].strip() != ticks:
            end += 1
        block = lines[i + 1:end]
        if re.match(r"^\{python[\s,}]", info):
            cells.append(Cell("markdown", "\n".join(prose), prose_line))
            options, code = cell_options("\n".join(block))
            header = "\n".join(block[:len(block) - code.count("\n") - 1])
            first = offset + i + 2 + (header.count("\n") + 1 if header
                                      else 0)  # the code's first line
            lines_of = _included(code, path.parent, path, first)
            cells.append(Cell("code", "\n".join(t for t, _ in lines_of),
                              offset + i + 1, options, header=header,
                              origins=[o for _, o in lines_of]))
            prose, prose_line = [], offset + end + 2
        else:  # a display-only block stays part of the prose
            prose += lines[i:end + 1]
        i = end + 1
    cells.append(Cell("markdown", "\n".join(prose), prose_line))
    for cell in cells:
        if cell.kind == "markdown":
            cell.inline = [(e.strip(), None) for e in INLINE.findall(
                cell.source)]
    return meta, [c for c in cells if c.source.strip() or c.kind == "code"]


# ---- cross-reference numbers -------------------------------------------

def _chapter_numbers(number, cells):
    """Labels of one chapter: sections, figures, tables, equations..."""
    names, counters = {}, dict.fromkeys(["fig", "tbl", "eq", "exr"], 0)
    labels, section, depth = [], [0, 0], 0
    for cell in cells:
        if cell.kind == "code":
            labels.append(cell.label)
            continue
        for line in cell.source.split("\n"):
            depth += bool(DIV_OPEN.match(line)) - bool(DIV_CLOSE.match(line))
            heading = HEADING.match(line)
            if heading and depth == 0:  # headings in divs are titles
                level = len(heading.group(1)) - 1
                if level:
                    section[level - 1] += 1
                    section[level:] = [0] * (2 - level)
                if heading.group(3):
                    parts = [number] + section[:level]
                    names[heading.group(3)] = ".".join(map(str, parts))
            labels += re.findall(r"\{#((?:eq|exr)-[\w-]+)", line)
    for label in labels:
        kind = label.split("-")[0]
        if kind in counters:
            counters[kind] += 1
            names[label] = f"{number}.{counters[kind]}"
    return names


def book_numbers(root=ROOT):
    """Every cross-reference label of the book with its number, as the
    PDF numbers them (chapters in order, unnumbered ones skipped)."""
    names, number = {}, 0
    for path in chapters(root):
        _, cells = read_qmd(path)
        prose = "\n".join(c.source for c in cells if c.kind == "markdown")
        first = re.search(r"^# (.*)$", prose, re.MULTILINE)
        if first and ".unnumbered" not in first.group(1):
            number += 1
            names.update(_chapter_numbers(number, cells))
    return names
