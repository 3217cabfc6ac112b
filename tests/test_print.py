"""The printed book: the student PDF and the instructor edition as a class
prints them (site/typst-show.typ, site/print.typ, site/print-layout.lua).

They read the PDFs that the session's render_log fixture builds
(make book, make pdf PROFILE=instructor); without Quarto they are
skipped, as are the other render tests.
"""

import collections
import math
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest
from built import BOOK, INSTRUCTOR

from booktools import ROOT

PRINTED = {"student": BOOK / "backprop.pdf",
           "instructor": INSTRUCTOR / "backprop-instructor.pdf"}
PRINTER_MARGIN = 10  # mm from the paper's edge: what a desktop printer prints
EDITIONS = pytest.mark.parametrize("edition", PRINTED)


def tool(name):
    found = shutil.which(name)
    if found is None:
        pytest.skip(f"{name} (Debian poppler-utils) is not installed")
    return found


def with_filter(name, markdown, to, folder):
    """markdown converted by pandoc (Quarto's) to format `to` through the
    Lua filter site/<name>, with Quarto's `quarto.doc.is_format` and its
    list of profiles (none) stood in for."""
    (folder / "filter.lua").write_text(
        "quarto = {doc = {is_format = function(f) return FORMAT == f end},"
        " project = {profile = {}}}\n"
        + (ROOT / "site" / name).read_text())
    (folder / "doc.md").write_text(markdown)
    return subprocess.run(["quarto", "pandoc", "doc.md", "--to", to,
                           "--lua-filter", "filter.lua"], cwd=folder,
                          check=True, capture_output=True, text=True).stdout


def printed(edition):
    pdf = PRINTED[edition]
    if not pdf.exists():
        pytest.skip(f"{pdf.name} was not built")
    return pdf


def pdf_text(pdf):
    return subprocess.run([tool("pdftotext"), "-layout", str(pdf), "-"],
                          capture_output=True, text=True, check=True).stdout


def page_texts(pdf):
    """The text of each page, laid out (pdftotext ends a page with \\f)."""
    return pdf_text(pdf).split("\f")[:-1]


def bbox(pdf):
    xml = subprocess.run([tool("pdftotext"), "-bbox-layout", str(pdf), "-"],
                         capture_output=True, text=True, check=True).stdout
    return ET.fromstring(xml), {"h": "http://www.w3.org/1999/xhtml"}


def pdf_pages(pdf):
    """Each page as (height, [(x0, y0, text)]), empty pages too."""
    root, ns = bbox(pdf)
    return [(float(page.get("height")),
             [(float(w.get("xMin")), float(w.get("yMin")), w.text or "")
              for w in page.iterfind(".//h:word", ns)])
            for page in root.iterfind(".//h:page", ns)]


def pdf_lines(pdf):
    """Every text line as (height of its page, [(x0, y0, text)])."""
    root, ns = bbox(pdf)
    return [(float(page.get("height")),
             [(float(w.get("xMin")), float(w.get("yMin")), w.text or "")
              for w in line.iterfind("h:word", ns)])
            for page in root.iterfind(".//h:page", ns)
            for line in page.iterfind(".//h:line", ns)]


def pdf_font_names(pdf):
    lines = subprocess.run([tool("pdffonts"), str(pdf)], capture_output=True,
                           text=True, check=True).stdout.splitlines()[2:]
    # "ABCDEF+NewCM10-Regular-Identity-H" -> "NewCM10-Regular"
    return {line.split()[0].split("+")[-1].removesuffix("-Identity-H")
            for line in lines if line.strip()}


def read_pgm(path):
    """(width, height, bytes) of a binary greyscale PGM (pdftoppm -gray)."""
    data = path.read_bytes()
    fields, start = [], 0
    while len(fields) < 4:  # magic, width, height, maximum
        match = re.compile(rb"\s*(\S+)").match(data, start)
        fields.append(match.group(1))
        start = match.end()
    width, height = int(fields[1]), int(fields[2])
    return width, height, data[start + 1:start + 1 + width * height]


@EDITIONS
def test_no_page_is_blank_but_for_its_head(render_log, edition):
    # no blank left-hand page before a chapter, no empty page 2: every
    # page has words between its running head and its foot
    blank = [number for number, (height, words)
             in enumerate(pdf_pages(printed(edition)), start=1)
             if not any(0.1 * height < y0 < 0.9 * height
                        for _, y0, _ in words)]
    assert blank == []


@EDITIONS
def test_ink_stays_within_a_printers_margins(render_log, edition, tmp_path):
    # the cover's band and the chapters' boxes ran off the paper's edge,
    # where a desktop printer clips them
    dpi = 36
    subprocess.run([tool("pdftoppm"), "-r", str(dpi), "-gray",
                    str(printed(edition)), str(tmp_path / "page")],
                   check=True)
    edge = math.ceil(PRINTER_MARGIN / 25.4 * dpi)
    inked = []
    for image in sorted(tmp_path.glob("page-*.pgm")):
        width, height, pixels = read_pgm(image)
        rows = [pixels[y * width:(y + 1) * width] for y in range(height)]
        strips = {"left": [p for row in rows for p in row[:edge]],
                  "right": [p for row in rows for p in row[-edge:]],
                  "top": [p for row in rows[:edge] for p in row],
                  "bottom": [p for row in rows[-edge:] for p in row]}
        inked += [(image.stem, side) for side, strip in strips.items()
                  if min(strip) < 235]
    assert inked == []


@EDITIONS
def test_text_and_maths_are_set_in_one_family(render_log, edition):
    # New Computer Modern and its maths, which Typst ships, and Typst's
    # DejaVu Sans Mono for code: no other font fills in a glyph
    fonts = pdf_font_names(printed(edition))
    assert any(f.startswith("NewCM10-") for f in fonts)
    assert any(f.startswith("NewCMMath-") for f in fonts)
    assert {f for f in fonts if not f.startswith(
        ("NewCM10-", "NewCMMath-", "DejaVuSansMono"))} == set()


@EDITIONS
def test_code_is_never_slanted(render_log, edition):
    # exercises were set in italic, their code included
    fonts = pdf_font_names(printed(edition))
    assert "DejaVuSansMono" in fonts
    assert [f for f in fonts if "Mono" in f
            and ("Oblique" in f or "Italic" in f)] == []


def test_each_solution_is_numbered_and_starts_by_its_exercise(render_log):
    # a solution starts where its exercise ends: on the exercise's page,
    # or, for an exercise that runs on to the next page, after its end
    # there (no page turn between the exercise's last line and it)
    pages = page_texts(printed("instructor"))
    exercises, solutions = {}, {}
    for number, text in enumerate(pages, start=1):
        for found in re.findall(r"^\s*Exercise (\d+\.\d+) \(", text, re.M):
            exercises[found] = number
        for found in re.findall(r"Solution to Exercise (\d+\.\d+)", text):
            solutions[found] = number
        assert not re.search(r"^\s*Solution( to)?\s*$", text, re.M), number
    assert len(exercises) >= 10 and solutions.keys() == exercises.keys()
    for name, page in solutions.items():
        assert page - exercises[name] in (0, 1), name
        text = pages[page - 1]
        above = text[:text.index(f"Solution to Exercise {name}")]
        body = above.split("\n", 1)[1] if "\n" in above else ""
        assert len(body.split()) >= 5, (name, page)  # not atop a page


@EDITIONS
def test_back_matter_is_set_as_a_books(render_log, edition):
    pdf = printed(edition)
    text = pdf_text(pdf)
    assert "Industrial; Applied" not in text  # a BibTeX name unbraced
    assert "Society for Industrial and Applied Mathematics" in " ".join(
        text.split())
    # the references are no chapter: no "Chapter 4. References" in a
    # running head, and one entry for them in the contents
    assert not re.search(r"Chapter \d+\. References", text)
    assert len(re.findall(r"References[ .]+\.\s+\d+\s*$", text, re.M)) == 1
    # each entry hangs: its later lines start further right than its first
    lines = pdf_lines(pdf)
    start = max(i for i, (height, words) in enumerate(lines)
                if [w[2] for w in words] == ["References"]
                and words[0][1] > 0.1 * height)  # the heading, not a head
    lefts = collections.Counter(
        round(words[0][0]) for height, words in lines[start + 1:]
        if 0.1 * height < words[0][1] < 0.9 * height)
    (first, entries), (indent, hanging) = sorted(lefts.items())[:2]
    assert entries >= 20 and hanging >= 20
    assert 8 <= indent - first <= 30, lefts


@EDITIONS
def test_front_matter_has_an_imprint_and_roman_numbers(render_log, edition):
    pages = page_texts(printed(edition))
    imprint = " ".join(pages[1].split())  # the back of the cover
    for fact in ("CC BY 4.0", "MIT licence", "built on", "notebooks"):
        assert fact in imprint, fact
    assert re.search(r"commit [0-9a-f]{7}|uncommitted sources", imprint)
    contents = "".join(pages[2:4])
    # the preface counts in roman numerals, the first chapter from 1
    assert re.search(r"Preface[ .]+\s(v|vi|vii)\s*$", contents, re.M)
    assert re.search(r"^1\s+Backpropagation[ .]+\s1\s*$", contents, re.M)


@EDITIONS
def test_operators_are_spaced_as_operators(render_log, edition):
    # \operatorname{Var}(z) and |x| in Typst: "Var(z)" and "log|δ|"
    text = pdf_text(printed(edition))
    assert "Var(" in text and "Var (" not in text
    assert re.search(r"log\|\S", text) and not re.search(r"log\|\s", text)



def test_powers_of_ten_in_the_prose_are_set_as_maths(render_log):
    # prose.sci's Markdown is maths, so the PDF prints 10 to a power as
    # a formula, with no Unicode superscripts for a fallback font to set
    text = pdf_text(BOOK / "backprop.pdf")
    assert not re.search("[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]", text)
    assert re.search(r"\d\.\d+ × 10−\d+", text)
