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
import yaml
from built import BOOK, COURSE, EXECUTED, INSTRUCTOR
from conftest import needs_quarto

from booktools import ROOT

PRINTED = {"student": BOOK / "backprop.pdf",
           "instructor": INSTRUCTOR / "backprop-instructor.pdf",
           "course": COURSE / "backprop.pdf"}
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


Line = collections.namedtuple("Line", "top left text kind size number")


def pdf_text_lines(pdf):
    """Each page as its text lines, top to bottom, from pdftohtml's XML:
    Line(top, left, text, kind, size), in pdftohtml's units (1.5 a point).
    `kind`: "code", "output" (both in the code font) or "text"; `text` and
    `left` leave out a listing's grey line number, which is `number` (an
    empty line's `left` is None)."""
    xml = subprocess.run([tool("pdftohtml"), "-xml", "-i", "-stdout",
                          str(pdf)], capture_output=True, text=True,
                         check=True).stdout
    root = ET.fromstring(re.sub(r"<!DOCTYPE[^>]*>", "", xml))
    pages, fonts = [], {}  # a font is declared on the first page using it
    for page in root.iter("page"):
        fonts |= {f.get("id"): f for f in page.iter("fontspec")}
        rows = {}
        for t in page.iter("text"):
            top = int(t.get("top"))
            key = next((k for k in rows if abs(k - top) <= 5), top)
            rows.setdefault(key, []).append(t)
        lines = []
        for top in sorted(rows):
            runs = sorted(rows[top], key=lambda t: int(t.get("left")))
            font = [fonts[t.get("font")] for t in runs]
            mono = all("DejaVuSansMono" in f.get("family") for f in font)
            numbered = bool(mono and re.fullmatch(r"\s*\d+", runs[0].text
                                                  or "")
                            and font[0].get("color") == "#4e4e4e")
            text = "".join("".join(t.itertext()) for t in runs[numbered:])
            # an empty line of a numbered listing: its number alone
            left = int(runs[numbered].get("left")) if text else None
            # printed output is plain black; code is highlighted
            kind = ("text" if not mono else "output" if all(
                f.get("color") == "#000000" for f in font) else "code")
            lines.append(Line(top, left, text, kind,
                              max(int(f.get("size")) for f in font),
                              int(runs[0].text) if numbered else None))
        pages.append(lines)
    return pages


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


def openers(pages):
    """The PDF page numbers where a chapter (or the contents) opens: its
    title is set at twice the text's size."""
    return [number for number, lines in enumerate(pages, start=1)
            if any(line.size >= 30 for line in lines)]


@EDITIONS
def test_chapters_open_on_right_hand_pages(render_log, edition):
    # duplex copies: each chapter on a fresh sheet, so PDF page 1 (the
    # cover) and every odd page after it are right-hand pages
    pages = pdf_text_lines(printed(edition))
    starts = openers(pages)
    assert len(starts) >= 8  # contents, preface, 4 chapters, back matter
    assert [n for n in starts if n % 2 == 0] == []
    # the page left blank before an opener is wholly blank: no running
    # head, no number
    blanks = [n for n, lines in enumerate(pages, start=1) if lines == []]
    assert blanks and all(n + 1 in starts for n in blanks), blanks


@EDITIONS
def test_no_page_is_blank_but_for_its_head(render_log, edition):
    # no empty page 2, no page with a head alone: every page but the
    # blank left-hand ones before a chapter has words between its
    # running head and its foot
    blank = [number for number, (height, words)
             in enumerate(pdf_pages(printed(edition)), start=1)
             if words and not any(0.1 * height < y0 < 0.9 * height
                                  for _, y0, _ in words)]
    assert blank == []


def listing_runs(lines):
    """The listings on a page, as lists of their Lines: code lines 14
    units apart, or 42 across two empty lines; the next listing or an
    output starts 46 or more below."""
    runs, run = [], []
    for line in lines:
        if line.kind != "text" and run and line.kind == run[-1].kind and (
                line.top - run[-1].top < 45):
            run.append(line)
            continue
        if run:
            runs.append(run)
        run = [line] if line.kind != "text" else []
    return runs + ([run] if run else [])


def appendix_page(pages):
    """The PDF page where The book's code opens."""
    return next(n for n in openers(pages)[3:]
                if any("The book’s code" in line.text
                       for line in pages[n - 1]))


def indent(line, listing):
    """A code line's indent in columns (of 0.6021 x 8 pt, 1.5 units a
    point), from the leftmost line of its listing."""
    margin = min(other.left for other in listing if other.text)
    return round((line.left - margin) / (0.6021 * 8 * 1.5))


def holds_code(run):
    """Whether a listing's lines hold a statement, not a docstring or
    comments alone (such a part says nothing on its own page)."""
    quoted = False
    for line in run:
        text = line.text.strip()
        if text and not quoted and not text.startswith(("#", '"""', "'''")):
            return True
        if (text.count('"""') + text.count("'''")) % 2:
            quoted = not quoted
    return False


@EDITIONS
def test_listings_break_between_statements_with_five_lines_each_side(
        render_log, edition):
    # a listing that runs on to the next page (which says "continued"
    # above it) leaves five lines at least on each page, more than a
    # docstring or comments before the break, and resumes at a
    # statement of the top level (at the listing's left edge) or at a
    # class's method (four columns in): not inside a function, a call, a
    # docstring or a decorated definition. The book's code may also break
    # a long function between the statements of its body.
    pages = pdf_text_lines(printed(edition))
    appendix = appendix_page(pages)
    broken = []
    for number in range(1, len(pages)):
        body = pages[number][1:]  # after the running head
        if not (body and body[0].text == "continued"
                and body[0].kind == "text"):
            continue
        before = listing_runs(pages[number - 1])[-1]
        after = listing_runs(body)[0]
        first = after[0].text
        # lines, empty ones too: a code line is 13 to 14 units below the
        # one above it
        sizes = [round((run[-1].top - run[0].top) / 13.6) + 1
                 for run in (before, after)]
        if min(sizes) < 5 or not holds_code(before):
            broken.append((number + 1, sizes, first))
        elif after[0].kind == "code" and (
                indent(after[0], after) not in (0, 4)
                # in a chapter, a method; in The book's code, also a
                # statement of a function longer than 30 lines
                or indent(after[0], after) == 4 and number + 1 < appendix
                and not re.match(r"(def|@)\b", first)
                or re.match(r"\s*([)\]}]|\"{3}|'{3})", first)
                or before[-1].text.startswith("@")):
            broken.append((number + 1, len(before), len(after), first))
    assert broken == []


@EDITIONS
def test_code_lines_never_wrap(render_log, edition):
    # a line too long for its box wraps, and Python reads the two parts
    # differently: in a numbered listing (the long ones, and most
    # solutions) every printed line of code has its number
    wrapped = [(number, line.text) for number, lines
               in enumerate(pdf_text_lines(printed(edition)), start=1)
               for run in listing_runs(lines)
               if any(line.number for line in run)
               for line in run if line.text and line.number is None]
    assert wrapped == []


def test_printed_output_fits_its_box(render_log):
    # print.typ wraps an output line too long for its box, and the reader
    # then sees two lines where the cell printed one: at the code's size a
    # text-wide box holds 77 characters, a solution's box 74 (the longest
    # that print whole today); the page's own widgets print nothing here
    import nbformat
    from chapter_run import cells_of
    from sources import chapters

    too_long = []
    for qmd in (page for page in chapters() if page.parent.name == "chapters"):
        solved = "".join(re.findall(r"^::: \{\.solution\}\n(.*?)^:::$",
                                    qmd.read_text(), re.S | re.M))
        in_solution = set(re.findall(r"#\| label: (\S+)", solved))
        notebook = nbformat.read(EXECUTED / "chapters" / f"{qmd.stem}.ipynb",
                                 as_version=4)
        for cell in cells_of(notebook):
            label = cell.options.get("label", "")
            if (cell.kind != "code" or cell.options.get("output") == "asis"
                    or label.startswith(("build-", "check-"))):
                continue
            width = 74 if label in in_solution else 77
            text = "".join(o.get("text", "") for o in cell.outputs
                           if o.output_type == "stream")
            too_long += [(qmd.stem, label, line) for line in
                         text.splitlines() if len(line) > width]
    assert too_long == []


SOLUTION = re.compile(r"^\s*Solution to Exercise (\d+\.\d+)( \(continued\))?"
                      r"\s*$", re.M)
ENDS_SOLUTION = re.compile(r"^\s*(Exercise \d+\.\d+ \(|\d+\.\d+\s+\S)", re.M)


def test_each_split_solution_says_it_continues(render_log):
    # a solution that runs on to the next page repeats its title there,
    # with "(continued)", so that neither part reads as the whole (a
    # solution ends where the next exercise or a section starts)
    pages = page_texts(printed("instructor"))
    starts = openers(pdf_text_lines(printed("instructor")))
    unmarked, split, running = [], 0, None
    for number, text in enumerate(pages, start=1):
        body = [line for line in text.split("\n")[1:] if line.strip()]
        if running and number not in starts and body:
            first = SOLUTION.match(body[0])
            if not ENDS_SOLUTION.match(body[0]):
                split += 1
                if not (first and first.group(1) == running
                        and first.group(2)):
                    unmarked.append((running, number))
        running = None
        titles = list(SOLUTION.finditer(text))
        if titles and not ENDS_SOLUTION.search(text, titles[-1].end()):
            running = titles[-1].group(1)
    assert split >= 3 and unmarked == []


def test_every_answer_in_a_question_box_starts_flush(render_log):
    # an answer after a choice list and one after a prompt begin at the
    # same left edge: the boxes' paragraphs are spaced, never indented
    # (an answer's first line starts where its second line does; an
    # index or a power, set smaller, is not a line)
    indented = []
    for number, page in enumerate(pdf_text_lines(printed("instructor")),
                                  start=1):
        for at, line in enumerate(page):
            after = next((later for later in page[at + 1:]
                          if later.size == line.size), None)
            if (line.text.startswith("Answer:") and after is not None
                    and round(line.left) != round(after.left)):
                indented.append((number, line.text[:20]))
    assert indented == []


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
    # a solution follows its exercise: on the exercise's page, after it,
    # or at the head of the next page (where it starts on a fresh page,
    # rather than leave the page before it a third empty)
    pages = page_texts(printed("instructor"))
    exercises, solutions = {}, {}
    for number, text in enumerate(pages, start=1):
        for found in re.findall(r"^\s*Exercise (\d+\.\d+) \(", text, re.M):
            exercises[found] = number
        for found in re.findall(r"Solution to Exercise (\d+\.\d+)\s*$", text,
                                re.M):
            solutions.setdefault(found, number)  # not its continuation
        assert not re.search(r"^\s*Solution( to)?\s*$", text, re.M), number
    assert len(exercises) >= 10 and solutions.keys() == exercises.keys()
    for name, page in solutions.items():
        text = pages[page - 1]
        above = text[:text.index(f"Solution to Exercise {name}")]
        body = above.split("\n", 1)[1] if "\n" in above else ""
        if len(body.split()) >= 5:  # below other text: its exercise's
            assert page - exercises[name] in (0, 1), name
        else:  # atop a page: its exercise ends on the page before
            assert page - exercises[name] == 1, name


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
    # the course edition names no notebooks: they carry the solutions
    for fact in ("CC BY 4.0", "MIT licence", "built on",
                 "notebooks" if edition != "course" else "explorers"):
        assert fact in imprint, fact
    # a link keeps the punctuation after it: the template set a space
    assert "/by/4.0/):" in imprint
    assert re.search(r"commit [0-9a-f]{7}|uncommitted sources", imprint)
    contents = "".join(pages[2:4])
    # the preface counts in roman numerals, the first chapter from 1
    assert re.search(r"Preface[ .]+\s(v|vi|vii)\s*$", contents, re.M)
    assert re.search(r"^1\s+Backpropagation[ .]+\s1\s*$", contents, re.M)
    # an entry's leader dots end in its page number, never on a line of
    # their own after a title that wrapped with its number on line one
    leaders = [line for line in contents.split("\n") if ". . ." in line]
    assert leaders and all(re.search(r"\s([0-9]+|[ivx]+)\s*$", line)
                           for line in leaders), leaders


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


@pytest.mark.parametrize("site", ["https://someone.github.io/book", None])
def test_pages_name_the_site_only_where_its_address_is_set(tmp_path, site):
    # site/address.lua: the address of _quarto.yml's book: site-url (the
    # Pages workflow sets it), else the span's own words, how to find it
    needs_quarto()
    meta = (f"---\nbook:\n  site-url: {site}\n  repo-url: "
            "https://github.com/a/b\n---\n\n" if site else "")
    document = (meta + "Site: [SITEWORDS]{.book-site}, zip: [FALLBACK]"
                '{.book-site path="notebooks/n.zip"}, code: [REPOWORDS]'
                "{.book-repo}.\n\n```bibtex\n@book{x,\n  year = {2026}\n}\n"
                "```\n")
    for to in ("typst", "html"):
        out = with_filter("address.lua", document, to, tmp_path)
        if site:
            assert "https://someone.github.io/book/notebooks/n.zip" in out
            assert "https://github.com/a/b" in out and "REPOWORDS" not in out
            assert "FALLBACK" not in out and "SITEWORDS" not in out
            # the BibTeX entry gains the url (highlighted apart in HTML)
            assert to == "html" or (
                "url = {https://someone.github.io/book}" in out)
        else:
            assert "SITEWORDS" in out and "FALLBACK" in out
            assert "REPOWORDS" in out
            assert "http" not in out and "url" not in out


def test_a_local_build_prints_how_to_find_the_site(render_log):
    # no address set here: the imprint, the preface and the exercises say
    # where the site is built, and no page prints an address for it
    config = yaml.safe_load((ROOT / "_quarto.yml").read_text())["book"]
    assert "site-url" not in config
    text = " ".join(pdf_text(printed("student")).split())
    assert text.count("this copy was made without the address of either: "
                      "whoever gave you the copy has them") == 2
    assert ("notebooks/backprop-notebooks.zip (in _book/ when you build it "
            "with make book)") in text
    assert text.count("this chapter’s page (_book/chapters/") == 2
    assert "?meta" not in text  # Quarto's mark for a missing value
    imprint = page_texts(printed("student"))[1]
    assert re.findall(r"https?://[^/\s]+", imprint) == [
        "https://creativecommons.org"]


@EDITIONS
def test_inline_formulas_never_break_across_lines(render_log, edition):
    # "(a − | y)": a line of prose that ends inside a formula ends with its
    # operator or its open bracket; "(0.5, | 0)", inside a printed vector
    ends = [line.text for lines in pdf_text_lines(printed(edition))
            for line in lines
            if line.kind == "text" and re.search(
                r"[(+−=×]\s*$|\([−\d.]+,\s*$", line.text)]
    assert ends == []


@EDITIONS
def test_a_formula_keeps_the_sign_after_it_on_its_line(render_log, edition):
    # "∂L/∂b | = −0.146": a line of prose that starts with =, × or a
    # spaced minus ("0.7002 | − 1") was broken between a formula and the
    # text that goes on with it
    starts = [line.text for lines in pdf_text_lines(printed(edition))
              for line in lines if line.kind == "text"
              and re.match(r"\s*[=×−]\s", line.text)
              and len(line.text.strip()) >= 40]  # not a display's line
    assert starts == []


@EDITIONS
def test_an_edition_names_itself_on_its_cover_imprint_and_heads(
        render_log, edition):
    pages = pdf_text_lines(printed(edition))
    cover = [line for line in pages[0] if line.text.strip()]
    # the title is the largest line, the subtitle's last line no orphan
    assert cover[0].text.strip() == "Backpropagation"
    assert cover[0].size > 1.3 * max(line.size for line in cover[1:])
    assert not any(line.text.strip() == "checked" for line in cover)
    name = {"student": None, "instructor": "Instructor edition",
            "course": "Course edition"}[edition]
    # the running heads, in 9.5 pt (a chapter opener's first line is larger)
    heads = [lines[0].text for lines in pages[8:]
             if lines and lines[0].size < 10 * 1.5]
    imprint = " ".join(line.text for line in pages[1])
    if name is None:
        assert not any("edition" in head for head in heads)
    else:
        assert f"({name.lower()})" in " ".join(line.text for line in cover)
        assert f"This is the {name.lower()}" in imprint
        # every page's head that carries a number: left-hand pages (the
        # number first) and right-hand ones (the number last)
        left = [head for head in heads if re.match(r"\d+\s", head)]
        right = [head for head in heads if re.search(r"\s\d+$", head)
                 and head not in left]
        assert len(left) > 20 and len(right) > 20
        assert all(name in head for head in left + right), left + right


@EDITIONS
def test_no_section_heading_is_left_at_a_page_foot(render_log, edition):
    # a numbered section's heading (set at 1.2 em or more) keeps four lines
    # at least of what follows it on its page
    stranded = [(number, line.text) for number, lines
                in enumerate(pdf_text_lines(printed(edition)), start=1)
                for i, line in enumerate(lines)
                if line.kind == "text" and line.size >= 18
                and re.match(r"\d+\.\d+(\.\d+)?\s+\S", line.text)
                and len(lines) - i - 1 < 4]
    assert stranded == []


@pytest.mark.parametrize("edition", ["student", "course"])
def test_no_long_listing_interrupts_a_chapter(render_log, edition):
    # a listing of more than 30 lines (across a page break too) is printed
    # in The book's code, and the chapter keeps its outline and a pointer
    # with the page (site/print-drop-folded.lua). One is printed whole: the
    # engine that Section 2.1 builds, which is that section's subject.
    pages = pdf_text_lines(printed(edition))
    appendix = appendix_page(pages)
    long, length, first = [], 0, ""
    for number, lines in enumerate(pages[8:appendix - 1], start=9):
        body = lines[1:]
        runs = listing_runs(lines)
        continues = body and body[0].text == "continued"
        for k, run in enumerate(runs):
            size = round((run[-1].top - run[0].top) / 13.6) + 1
            if k == 0 and continues:
                length += size
            else:
                length, first = size, run[0].text
            engine = first.startswith('"""A scalar reverse-mode autograd')
            if length > 30 and not engine:
                long.append((number, length, run[0].text))
    assert long == []
    text = " ".join(pdf_text(printed(edition)).split())
    pointers = re.findall(r"(code/backprop/\w+\.py) is printed in full in "
                          r"The book’s code, p\. (\d+)", text)
    assert len(pointers) == 3
    texts = page_texts(printed(edition))
    for module, page in pointers:  # the page where its listing starts
        heading = re.escape(module.split("/")[-1]) + ":"
        assert re.search(rf"^\s*{heading}", texts[int(page) + 7], re.M), (
            module, page)


@EDITIONS
def test_no_page_inside_a_chapter_is_more_than_a_third_empty(
        render_log, edition, tmp_path):
    # the last ink above the text block's foot, on a greyscale render; a
    # chapter's last page (before a blank page or an opener) may be short,
    # and so may a page whose section's question box, which never breaks,
    # heads the next page (the instructor's boxes carry their answers)
    pdf = printed(edition)
    dpi = 36
    subprocess.run([tool("pdftoppm"), "-r", str(dpi), "-gray", str(pdf),
                    str(tmp_path / "page")], check=True)
    pages = pdf_text_lines(pdf)
    ends = {n - 1 for n in openers(pages)} | {
        n - 1 for n, lines in enumerate(pages, start=1) if lines == []}
    top, foot = (round(mm / 25.4 * dpi) for mm in (30, 27))
    underfull = []
    for number, image in enumerate(sorted(tmp_path.glob("page-*.pgm")),
                                   start=1):
        width, height, pixels = read_pgm(image)
        inked = [y for y in range(top, height - foot)
                 if min(pixels[y * width:(y + 1) * width]) < 200]
        empty = (height - foot - max(inked, default=top)) / (
            height - foot - top)
        boxed = number < len(pages) and [  # [0] is the running head
            line.text for line in pages[number][1:2]] == [
                "Check your understanding"]
        if (number > 2 and number not in ends | {len(pages)}
                and pages[number - 1] and empty > 1 / 3 and not boxed):
            underfull.append((number, round(empty, 2)))
    assert underfull == []


def test_a_long_modules_outline_is_python_with_the_parts_it_keeps(tmp_path):
    # print-drop-folded.lua on each print-appendix cell of the chapters:
    # the outline parses as Python, lists every class and function of the
    # module (no nested one), and keeps the keep-NAME functions whole
    import ast

    needs_quarto()
    cells = re.findall(r"#\| label: (\w+)-code\n#\| classes: ([^\n]*"
                       r"print-appendix[^\n]*)\n",
                       "".join(p.read_text() for p in
                               (ROOT / "chapters").glob("*.qmd")))
    assert len(cells) == 3
    for name, classes in cells:
        source = (ROOT / "code" / "backprop" / f"{name}.py").read_text()
        names = " ".join("." + c.lstrip(".") for c in classes.split())
        document = (f"::: {{#{name}-code .cell {names}}}\n```{{.python "
                    f".cell-code}}\n{source}```\n:::\n")
        out = with_filter("print-drop-folded.lua", document, "typst",
                          tmp_path)
        assert f"code/backprop/{name}.py` is printed in full in" in out
        assert f"counter(page).at(<code-{name}>)" in out
        outline = out.split("```python\n", 1)[1].split("```", 1)[0]
        tree = ast.parse(outline)
        module = ast.parse(source)
        top = [n.name for n in module.body
               if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
        assert [n.name for n in tree.body] == top, name
        kept = {c.removeprefix(".keep-") for c in classes.split()
                if "keep-" in c}
        for node in ast.walk(module):
            if isinstance(node, ast.FunctionDef) and node.name in kept:
                assert ast.get_source_segment(source, node) in outline
        assert len(outline.splitlines()) <= 30, name


@EDITIONS
def test_a_right_hand_head_names_the_section_that_begins_there(
        render_log, edition):
    # a right-hand page (odd) on which a numbered section begins names
    # that section in its head, not the one before
    pages = pdf_text_lines(printed(edition))
    checked, wrong = 0, []
    for number, lines in enumerate(pages, start=1):
        if number % 2 == 0 or len(lines) < 2 or number in openers(pages):
            continue
        # a section's title is set at 1.4 em (its number hangs apart)
        begun = [line.text.strip() for line in lines[1:]
                 if line.kind == "text" and 25 <= line.size < 30]
        if begun and re.match(r"\d+\.\d+\s", lines[0].text):
            checked += 1
            # its number, or (unnumbered) the end of its first line
            number = re.match(r"\d+\.\d+", begun[0])
            title = (number.group(0) + " " if number
                     else re.sub(r"\s", "", begun[0])[-12:])
            head = lines[0].text if number else re.sub(r"\s", "",
                                                       lines[0].text)
            if not (head.startswith(title) if number else title in head):
                wrong.append((number, lines[0].text, begun[0]))
    assert checked >= 5 and wrong == []


def luminance(hex_colour):
    """WCAG's relative luminance of "#rrggbb": what a greyscale printer
    keeps of a colour."""
    def linear(c):
        c /= 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b)


@EDITIONS
def test_every_text_colour_prints_dark_in_grey(render_log, edition):
    # text, links, highlighted code and line numbers: a contrast of 7 at
    # least with the code's grey ground (luma 242), the lightest that text
    # sits on, so that a greyscale printer keeps them legible
    xml = subprocess.run([tool("pdftohtml"), "-xml", "-i", "-stdout",
                          str(printed(edition))], capture_output=True,
                         text=True, check=True).stdout
    colours = set(re.findall(r'<fontspec [^>]*color="(#[0-9a-f]{6})"', xml))
    ground = luminance("#f2f2f2")
    pale = {c: round((ground + 0.05) / (luminance(c) + 0.05), 1)
            for c in colours
            if (ground + 0.05) / (luminance(c) + 0.05) < 7}
    assert len(colours) >= 8 and pale == {}


def test_solution_titles_print_dark_on_their_band(render_log, tmp_path):
    # a solution's title band is tinted, and its link, "Exercise 1.1", in
    # the book's blue had a contrast of 6.9 with it: each title's colours,
    # against the band's grey measured beside the title, have 7 or more
    pdf = printed("instructor")
    xml = subprocess.run([tool("pdftohtml"), "-xml", "-i", "-stdout",
                          str(pdf)], capture_output=True, text=True,
                         check=True).stdout
    root = ET.fromstring(re.sub(r"<!DOCTYPE[^>]*>", "", xml))
    fonts, titles = {}, []
    for page in root.iter("page"):
        fonts |= {f.get("id"): f.get("color") for f in page.iter("fontspec")}
        runs = list(page.iter("text"))
        for run in runs:
            if "".join(run.itertext()).startswith("Solution to"):
                line = [r for r in runs if abs(int(r.get("top"))
                                               - int(run.get("top"))) <= 3]
                titles.append((int(page.get("number")), run,
                               {fonts[r.get("font")] for r in line}))
    assert len(titles) >= 13
    worst = []
    for number, run, colours in titles:
        image = tmp_path / f"p{number}"
        subprocess.run([tool("pdftoppm"), "-r", "108", "-gray", "-f",
                        str(number), "-l", str(number), "-singlefile",
                        str(pdf), str(image)], check=True)
        width, _, pixels = read_pgm(image.with_suffix(".pgm"))
        # pdftohtml's units are 1.5 a point, the image's 1.5 a point too
        x = int(run.get("left")) - 4
        y = int(run.get("top")) + int(run.get("height")) // 2
        ground = luminance("#" + f"{pixels[y * width + x]:02x}" * 3)
        worst.append(min((ground + 0.05) / (luminance(c) + 0.05)
                         for c in colours))
    assert min(worst) >= 7, worst


def test_vectors_are_set_alike_in_print_on_the_site_and_slides(render_log):
    # the site and the slides (texmath's MathML) set \mathbf{a} bold and
    # italic, and Typst set it upright: each now sets a vector or a matrix
    # in bold italic, and none in bold upright (Unicode's mathematical
    # alphabets, which pdftotext and the MathML carry)
    def alphabets(text):
        return ({ch for ch in text if 0x1D400 <= ord(ch) <= 0x1D433},
                {ch for ch in text if 0x1D468 <= ord(ch) <= 0x1D49B})
    for name, text in [
            ("PDF", pdf_text(printed("student"))),
            ("site", (BOOK / "chapters" / "backprop.html").read_text()),
            ("slides", (BOOK / "slides" / "backprop.html").read_text())]:
        upright, italic = alphabets(text)
        assert {"𝑾", "𝒂"} <= italic and upright == set(), (name, upright)
