"""Render the book with Quarto and check what a reader gets.

The render tests are skipped where Quarto is not installed; the GitHub
Actions workflow installs Quarto 1.10, and so does a developer machine
(see README.md). The log filter is tested everywhere.
"""

import collections
import math
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest
import sources as qmd

from booktools import ROOT

needs_quarto = pytest.mark.skipif(
    shutil.which("quarto") is None,
    reason="Quarto is not on PATH: the rendered book cannot be built here "
           "(CI installs Quarto 1.10 and runs these tests)")

from built import BOOK, BUILD, COURSE, INSTRUCTOR  # noqa: E402

DECK = BOOK / "slides" / "backprop.html"
HANDOUT = BOOK / "slides" / "backprop-handout.pdf"
LETTER = BOOK / "slides" / "backprop-handout-letter.pdf"
SLIDE_CHAPTERS = ["backprop", "autograd", "deep"]  # the deck follows them
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
# The one warning the locally built Quarto prints on every Typst render
# (../shared/tools/quarto/README.md, "Known deviations"); CI's official
# build does not print it. Allowed by its exact text, nothing looser.
KNOWN_LOCAL_WARNING = ("WARN: typst-gather analyze failed; staging all "
                       "packages as fallback: typst-gather binary not found.")
PHONE = 390  # CSS pixels: the viewport of a common phone


def warnings_in(log):
    """The warning lines of a render log, colour codes removed."""
    lines = (ANSI.sub("", line).strip() for line in log.splitlines())
    return [line for line in lines
            if re.search(r"\b(WARN(ING)?|ERROR|FATAL)\b", line)
            and line != KNOWN_LOCAL_WARNING]


def test_warning_filter_sees_through_colour():
    coloured = "\x1b[33mWARN: Unable to resolve crossref @fig-x\x1b[39m"
    assert warnings_in(coloured) == ["WARN: Unable to resolve crossref "
                                     "@fig-x"]
    assert warnings_in(f"\x1b[33m{KNOWN_LOCAL_WARNING}\x1b[39m") == []
    # only that exact line is allowed, not others that start like it
    assert warnings_in(KNOWN_LOCAL_WARNING + " more") != []
    assert warnings_in("Output created: _book/index.html") == []
    # Quarto can report a failed filter and still exit with status 0
    assert warnings_in("\x1b[31mFATAL (includes.lua:54) An error occurred:")


def pages():
    """The book's pages (the slides are a deck, tested on their own)."""
    return sorted(p for p in BOOK.rglob("*.html")
                  if not {"site_libs", "slides"} & set(p.parts))


def pdf_text(pdf):
    return subprocess.run([pdftotext(), "-layout", str(pdf), "-"],
                          capture_output=True, text=True, check=True).stdout


def pdftotext():
    found = shutil.which("pdftotext")
    if found is None:
        pytest.skip("pdftotext (Debian poppler-utils) is not installed")
    return found


def pdf_lines(pdf):
    """Every text line of the PDF: (page, width, height, [words]), where a
    word is (x0, y0, x1, text), from pdftotext's bounding boxes."""
    xml = subprocess.run([pdftotext(), "-bbox-layout", str(pdf), "-"],
                         capture_output=True, text=True, check=True).stdout
    ns = {"h": "http://www.w3.org/1999/xhtml"}
    root = ET.fromstring(xml)
    out = []
    for number, page in enumerate(root.iterfind(".//h:page", ns), start=1):
        size = float(page.get("width")), float(page.get("height"))
        for line in page.iterfind(".//h:line", ns):
            words = [(float(w.get("xMin")), float(w.get("yMin")),
                      float(w.get("xMax")), w.text or "")
                     for w in line.iterfind("h:word", ns)]
            out.append((number, *size, words))
    return out


@needs_quarto
def test_book_has_every_page_and_both_pdfs(render_log):
    assert (BOOK / "index.html").exists()
    for path in qmd.chapters()[1:]:
        page = BOOK / path.relative_to(ROOT).with_suffix(".html")
        assert page.exists(), page
    # clean, stable names for the two editions
    assert [p.name for p in BOOK.glob("*.pdf")] == ["backprop.pdf"]
    assert sorted(p.name for p in INSTRUCTOR.glob("*.pdf")) == [
        "backprop-instructor.pdf", "backprop-slides-with-notes-letter.pdf",
        "backprop-slides-with-notes.pdf"]
    assert (BOOK / "notebooks" / "backprop-notebooks.zip").exists()


@needs_quarto
def test_each_chapter_runs_once_and_quarto_runs_none(render_log):
    # make book, the instructor PDF and the course edition after it: one
    # execution per chapter with code, by Quarto's engine, in all three
    executable = [p for p in qmd.chapters() if "```{python}" in
                  p.read_text()]
    assert render_log.count("Starting python3 kernel") == len(executable)
    executing = re.findall(r"Executing '([\w-]+)\.quarto_ipynb'",
                           render_log)
    assert sorted(executing) == sorted(p.stem for p in executable)


@needs_quarto
def test_every_page_stays_within_its_budget(render_log):
    # 250 kB of HTML each (issue 10): most of the weight is code, math
    # and the explorer's data (three significant digits, test_explorers.py)
    for path in pages():
        size = path.stat().st_size
        assert size <= 250_000, f"{path.name}: {size / 1000:.0f} kB"
        # the empty per-line links of pandoc's highlighting are dropped
        # (render.py), and the highlighted lines themselves are kept
        text = path.read_text(encoding="utf-8")
        assert 'tabindex="-1"></a>' not in text, path.name
        if "sourceCode" in text:
            assert re.search(r'<span id="cb\d+-1">', text), path.name


@needs_quarto
def test_render_log_has_no_warnings(render_log):
    assert warnings_in(render_log) == []


@needs_quarto
def test_pages_show_numbered_figures_and_computed_values(render_log):
    html = (BOOK / "chapters" / "backprop.html").read_text()
    assert "Figure&nbsp;1.1" in html or "Figure 1.1" in html
    assert "{python}" not in html  # every inline expression was replaced
    # the worked neuron's dL/dw = (a - y) a (1 - a) x, derived by hand for
    # w = 0.7, x = 2, b = -0.5, y = 0.1 and the half squared error
    a = 1 / (1 + math.exp(-(0.7 * 2 - 0.5)))
    assert f"{(a - 0.1) * a * (1 - a) * 2:.5f}" in html


# "0.12555 × 2 = 0.25110": a sum, difference or product of printed figures
# (not a power of ten's "× 10", and not maths, whose MathML is no text)
SHOWN_SUM = re.compile(r"(−?\d+(?:\.\d+)?) (×|\+|−) (−?\d+(?:\.\d+)?) = "
                       r"(−?\d+(?:\.\d+)?)(?! × 10)")


def test_arithmetic_shown_from_rounded_figures_adds_up_as_printed(
        render_log):
    from decimal import Decimal

    def number(text):
        return Decimal(text.replace("−", "-"))

    shown = 0
    for page in pages():
        html = re.sub(  # a lone $\times$ is the times sign; other maths
            r"<math\b.*?</math>", lambda m: " × " if re.sub(
                r"<annotation.*?</annotation>|<[^>]+>", "",
                m.group(0)).strip() == "×" else " ",
            page.read_text("utf-8"), flags=re.S)
        # a number kept with its operator (site/math-nowrap.lua)
        text = main_text(html.replace("&nbsp;", " ")).replace("\xa0", " ")
        for match in SHOWN_SUM.finditer(text):
            a, op, b, c = match.groups()
            a, b, c = number(a), number(b), number(c)
            exact = {"×": a * b, "+": a + b, "−": a - b}[op]
            printed = exact.quantize(Decimal(1).scaleb(c.as_tuple().exponent),
                                     rounding="ROUND_HALF_UP")
            assert printed == c, f"{page.name}: {match.group(0)}"
            shown += 1
    assert shown >= 3  # the worked neuron's products are among them


@needs_quarto
def test_no_line_starts_with_the_punctuation_after_a_formula(render_log):
    # site/math-nowrap.lua: a formula and its comma share a nowrap span,
    # on the book's pages and on the slides (a full stop stood alone on a
    # line of slide 9)
    kept = 0
    for page in [*pages(), BOOK / "slides" / "backprop.html"]:
        html = page.read_text("utf-8")
        for match in re.finditer(r"</math>([,.;:)!?]+)(.{7})", html):
            assert match.group(2) == "</span>", (page.name, match.group(0))
            kept += 1
    assert kept > 10


@needs_quarto
def test_every_page_has_its_own_description(render_log):
    found = {}
    for path in pages():
        match = re.search(r'<meta name="description" content="([^"]+)"',
                          path.read_text())
        assert match, f"{path.name} has no meta description"
        found[path.name] = match.group(1)
    assert len(set(found.values())) == len(found), found


@needs_quarto
def test_site_links_the_pdf_but_not_the_instructor_edition(render_log):
    for path in pages():
        html = path.read_text()
        links = {(path.parent / link).resolve() for link
                 in re.findall(r'href="([^"]*\.pdf)"', html)}
        expected = {BOOK / "backprop.pdf", HANDOUT} | (
            {LETTER} if path.name == "index.html" else set())
        assert links == expected, path.name
        assert "backprop-instructor" not in html


def visited_pages():
    """(url, WatchedPage) for every page of the site, served locally."""
    from browser import WatchedPage, chromium, serve

    with serve(BOOK) as origin, chromium() as browser:
        for path in pages():
            watched = WatchedPage(browser, origin)
            url = f"{origin}/{path.relative_to(BOOK).as_posix()}"
            watched.page.goto(url, wait_until="networkidle")
            yield url, watched
            watched.page.close()


@needs_quarto
def test_every_page_is_offline_accessible_and_error_free(render_log):
    from browser import axe_violations

    for url, watched in visited_pages():
        assert watched.page.title()
        assert watched.problems() == {"other origins": [], "failed": [],
                                      "errors": []}, url
        assert axe_violations(watched.page) == [], url
        ids = watched.page.evaluate(
            "() => [...document.querySelectorAll('[id]')].map(e => e.id)")
        repeated = [i for i, n in collections.Counter(ids).items()
                    if n > 1]
        assert repeated == [], f"{url}: ids used twice: {repeated}"


@needs_quarto
def test_no_page_is_wider_than_a_phone(render_log):
    from browser import chromium, serve

    with serve(BOOK) as origin, chromium() as browser:
        # a small phone too, and Firefox at 390 px, whose scroll bar
        # leaves 378 (an outside trial found a table and a link wider)
        for narrow in (378, 360):
            small = browser.new_page(viewport={"width": narrow,
                                               "height": 800})
            for path in pages():
                small.goto(f"{origin}/{path.relative_to(BOOK).as_posix()}")
                width = small.evaluate(
                    "document.documentElement.scrollWidth")
                assert width <= narrow, (narrow, path.name, width)
                # the chapter links at the foot: each name within its
                # link, the two apart (they ran together as "Preface2")
                apart = small.evaluate(
                    "() => { const a = [...document.querySelectorAll("
                    "'.page-navigation .nav-page a')]; return a.every("
                    "l => l.scrollWidth <= l.clientWidth + 1) && (a.length "
                    "< 2 || a[0].getBoundingClientRect().right <= "
                    "a[1].getBoundingClientRect().left); }")
                assert apart, (narrow, path.name)
        page = browser.new_page(viewport={"width": PHONE, "height": 800})
        for path in pages():
            page.goto(f"{origin}/{path.relative_to(BOOK).as_posix()}",
                      wait_until="networkidle")
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= PHONE, f"{path.name} is {width} px wide"
            # printed output wraps: nothing hides behind a scroll bar
            hidden = page.evaluate(
                "() => [...document.querySelectorAll('.cell-output pre')]"
                ".filter(p => p.scrollWidth > p.clientWidth + 1)"
                ".map(p => p.textContent.slice(0, 40))")
            assert hidden == [], f"{path.name}: {hidden}"
        # the explorer's axis text keeps a readable size on the phone
        page.goto(f"{origin}/chapters/deep.html")
        page.wait_for_selector('[data-explorer="depth"][data-ready="true"]')
        heights = page.evaluate(
            "() => [...document.querySelectorAll('.explorer-plot text')]"
            ".map(t => t.getBoundingClientRect().height)")
        assert heights and min(heights) >= 11, heights


@needs_quarto
def test_explorers_run_in_the_rendered_pages(render_log):
    from browser import WatchedPage, chromium, serve

    with serve(BOOK) as origin, chromium() as browser:
        for page, kind in [("deep", "depth"), ("by-hand", "step")]:
            watched = WatchedPage(browser, origin)
            watched.page.goto(f"{origin}/chapters/{page}.html")
            watched.page.wait_for_selector(
                f'[data-explorer="{kind}"][data-ready="true"]')
            watched.page.close()


@needs_quarto
def test_pdf_shows_static_figures_and_no_plumbing(render_log):
    text = pdf_text(BOOK / "backprop.pdf")
    assert "needs JavaScript" not in text
    assert "website has an explorer here" in text  # print's stand-in
    assert "Solution" not in text  # solutions only in the instructor PDF
    # the site folds the drawing calls; print leaves them out
    assert "plt.show()" not in text
    assert "grids.blame_flow" not in text
    assert "def backward(" in text  # teaching code stays


@needs_quarto
def test_instructor_pdf_prints_the_solutions(render_log):
    text = pdf_text(INSTRUCTOR / "backprop-instructor.pdf")
    assert "instructor edition" in text
    assert text.count("Solution") >= 5


@needs_quarto
def test_pdf_back_matter_and_citations_match_the_site(render_log):
    text = pdf_text(BOOK / "backprop.pdf")
    # one reference list, under one heading, with its entries
    assert "Bibliography" not in text
    # the text after the chapter's own heading (a line of its own; the
    # running heads and the contents carry more words on their lines)
    heading = list(re.finditer(r"^\s*References\s*$", text, re.M))[-1]
    last = text[heading.end():]
    assert "Karpathy, Andrej" in last and "Glorot, Xavier" in last
    # author-year citations, as on the site, not numbers
    assert "Karpathy 2020" in text
    assert not re.search(r"micrograd \[\d+\]", text)
    # a cross-reference to a chapter has no stray full stop
    assert "Chapter 1: one neuron" in text and "Chapter 1.:" not in text


@needs_quarto
def test_pdf_page_number_is_printed_once_per_page(render_log):
    zones = collections.defaultdict(lambda: collections.defaultdict(set))
    lines = pdf_lines(BOOK / "backprop.pdf")
    leaders = collections.Counter(  # dot leaders: a page of the contents
        page for page, _, _, words in lines
        if [w for *_, w in words].count(".") > 5)
    for page, _, height, words in lines:
        if leaders[page] > 2:
            continue  # its numbers are chapter and page numbers
        for _, y0, _, word in words:
            if word.isdigit():
                zone = ("top" if y0 < 0.1 * height
                        else "bottom" if y0 > 0.9 * height else "body")
                zones[page][zone].add(word)
    twice = [p for p, z in zones.items() if z["top"] & z["bottom"]]
    assert twice == []
    assert len(zones) > 20  # the numbers were found at all


@needs_quarto
def test_pdf_code_output_is_not_justified(render_log):
    # In a monospace line every word starts on the character grid; a
    # justified line stretches the spaces and leaves the grid.
    lines = [words for _, _, _, words in pdf_lines(BOOK / "backprop.pdf")
             if any(w[3] == "warns:" for w in words)]
    assert lines
    for words in lines:
        x0, _, x1, first = words[0]
        char = (x1 - x0) / len(first)
        for x, _, _, _ in words[1:]:
            cells = (x - x0) / char
            assert abs(cells - round(cells)) < 0.1, words


@needs_quarto
def test_pdf_captions_are_left_aligned(render_log):
    lines = pdf_lines(BOOK / "backprop.pdf")
    caption = next(i for i, (_, _, _, words) in enumerate(lines)
                   if [w[3] for w in words[:2]] == ["Figure", "1.1:"])
    left = lines[caption][3][0][0]
    following = lines[caption + 1][3][0][0]  # the caption's next line
    assert abs(following - left) < 1



@needs_quarto
def test_student_pdf_hides_every_answer_and_the_instructor_pdf_shows_all(
        render_log):
    from booktools import quiz

    student = pdf_text(BOOK / "backprop.pdf")
    instructor = pdf_text(INSTRUCTOR / "backprop-instructor.pdf")
    questions = sum(len(list(quiz.numbered(c))) for c in quiz.load())
    assert "Answer:" not in student  # no answer escaped its div
    assert instructor.count("Answer:") == questions
    assert student.count("Answers to the questions.") == len(quiz.load())


@needs_quarto
def test_every_page_says_how_to_cite_the_book(render_log):
    for path in pages():
        html = path.read_text()
        assert re.search(r'<html [^>]*lang="en"', html), path.name
        for tag in ("citation_title", "citation_author", "citation_year"):
            assert f'<meta name="{tag}"' in html, (path.name, tag)
        assert "Cite as: The backprop-book contributors (2026)" in html
        assert re.search(r'href="[^"]*index\.html#how-to-cite"', html)
    assert 'id="how-to-cite"' in (BOOK / "index.html").read_text()


@needs_quarto
def test_dark_theme_is_offline_and_accessible(render_log):
    from browser import axe_violations

    for url, watched in visited_pages():
        watched.page.locator(".quarto-color-scheme-toggle").first.click()
        watched.page.wait_for_function(
            "document.body.classList.contains('quarto-dark')")
        assert axe_violations(watched.page) == [], url
        # figures keep their light paper; the explorers' text is light
        papers = watched.page.evaluate(
            "() => [...document.querySelectorAll("
            "'.cell-output-display img')]"
            ".map(i => getComputedStyle(i).backgroundColor)")
        assert set(papers) <= {"rgb(255, 255, 255)"}, url
        ticks = watched.page.evaluate(
            "() => [...document.querySelectorAll('.explorer-plot text')]"
            ".map(t => getComputedStyle(t).fill)")
        assert all(t != "rgb(33, 37, 41)" for t in ticks), url
        assert watched.problems() == {"other origins": [], "failed": [],
                                      "errors": []}, url


@needs_quarto
def test_pdf_numbers_the_same_equations_as_the_site(render_log):
    text = pdf_text(BOOK / "backprop.pdf")
    printed = set(re.findall(r"\s\((\d+\.\d+)\)\n", text))
    labelled = {n for label, n in qmd.book_numbers().items()
                if label.startswith("eq-")}
    assert printed == labelled


# ---- the lecture slides ----------------------------------------------------

@needs_quarto
def test_slides_and_handout_are_published_and_linked(render_log):
    assert DECK.exists() and HANDOUT.exists()
    for path in [BOOK / "index.html"] + [BOOK / "chapters" / f"{name}.html"
                                         for name in SLIDE_CHAPTERS]:
        links = {(path.parent / link).resolve() for link in re.findall(
            r'href="([^"#]*slides/[^"#]*)"', path.read_text())}
        both = {DECK, HANDOUT} | ({LETTER} if path.name == "index.html"
                                  else set())
        assert links == both, path.name
    assert "?var:" not in DECK.read_text()  # every number was found


@needs_quarto
def test_deck_is_offline_accessible_and_fits_its_slides(render_log):
    from browser import WatchedPage, axe_violations, chromium, serve

    with serve(BOOK) as origin, chromium() as browser:
        watched = WatchedPage(browser, origin)
        page = watched.page
        page.set_viewport_size({"width": 1280, "height": 720})
        page.goto(f"{origin}/slides/backprop.html", wait_until="networkidle")
        page.wait_for_function("window.Reveal && Reveal.isReady()")
        total = page.evaluate("Reveal.getTotalSlides()")
        for index in range(total):
            page.evaluate(f"Reveal.slide({index})")
            page.wait_for_timeout(100)
            slide = page.evaluate("""() => {
                const s = Reveal.getCurrentSlide();
                // the lowest edge of the slide's content, in slide pixels
                const bottom = Math.max(...[...s.children]
                  .filter(c => c.tagName !== 'ASIDE')  // speaker notes
                  .map(c => c.offsetTop + c.offsetHeight));
                return {height: bottom, room: Reveal.getConfig().height,
                        images: [...s.querySelectorAll('img')]
                          .map(i => i.complete && i.naturalWidth > 0),
                        unlabelled: [...s.querySelectorAll('img')]
                          .filter(i => !i.getAttribute('aria-label')
                                       && !i.alt).length};
            }""")
            assert slide["height"] <= slide["room"], f"slide {index + 1}"
            # every in-page link leads to an element (pa11y's NoSuchID)
            assert page.evaluate("""() => [...document.querySelectorAll(
                'a[href^="#"]')].map(a => a.getAttribute('href').slice(1))
                .filter(id => id && !document.getElementById(id))""") == [], (
                f"slide {index + 1}")
            assert all(slide["images"]), f"slide {index + 1}"
            assert slide["unlabelled"] == 0, f"slide {index + 1}"
        assert axe_violations(page) == []
        assert watched.problems() == {"other origins": [], "failed": [],
                                      "errors": []}
    pdfinfo = shutil.which("pdfinfo") or pytest.skip("pdfinfo is missing")
    pages = re.search(r"Pages:\s+(\d+)", subprocess.run(
        [pdfinfo, str(HANDOUT)], capture_output=True, text=True,
        check=True).stdout)
    assert int(pages.group(1)) == math.ceil(total / 2)  # two a sheet


FIREFOX = (os.environ.get("BOOK_FIREFOX") or shutil.which("firefox-esr")
           or shutil.which("firefox"))


@needs_quarto
def test_pages_and_slides_in_firefox(render_log):
    # a second browser: Firefox's display maths is taller, and two slides
    # ran past the deck's box there alone; its line breaking may put a
    # formula's punctuation at a line's start; and the explorers, a
    # question and a live cell must answer there too (tests/js/firefox.mjs)
    import json

    from browser import serve

    node = shutil.which("node")
    if not (node and FIREFOX
            and (ROOT / "node_modules" / "puppeteer-core").is_dir()):
        pytest.skip("the Firefox tests need Node.js, Firefox (firefox-esr, "
                    "or BOOK_FIREFOX) and puppeteer-core (npm install)")
    with serve(BOOK) as origin:
        shown = subprocess.run(
            [node, str(ROOT / "tests" / "js" / "firefox.mjs"), origin,
             FIREFOX], capture_output=True, text=True, check=True,
            timeout=600).stdout
    assert json.loads(shown.splitlines()[-1]) == {"slides": [],
                                                  "broken": [],
                                                  "widgets": []}


@needs_quarto
def test_deck_speaker_view_shows_each_slides_notes(render_log):
    from browser import chromium, serve

    with serve(BOOK) as origin, chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.goto(f"{origin}/slides/backprop.html", wait_until="networkidle")
        page.wait_for_function("window.Reveal && Reveal.isReady()")
        notes = page.evaluate("[...document.querySelectorAll('.slides > "
                              "section')].map(s => !!s.querySelector("
                              "'aside.notes'))")
        assert all(notes[1:]), notes  # every slide after the title
        page.evaluate("Reveal.slide(1)")
        with page.expect_popup() as opened:
            page.keyboard.press("s")  # Reveal.js's speaker view
        speaker = opened.value
        shown = speaker.locator(".speaker-controls-notes")
        shown.wait_for()
        expected = " ".join(page.locator(".slides > section").nth(1)
                            .locator("aside.notes p").text_content().split())
        assert expected in " ".join(shown.inner_text().split())


# Height of each display sum sign, in units of its font size: a math font
# draws it large in display style; a text font draws it at letter size.
SUM_SIGNS = """() => [...document.querySelectorAll('munderover')]
  .filter(m => m.firstElementChild.textContent.trim() === '∑')
  .map(m => m.firstElementChild.getBoundingClientRect().height
            / parseFloat(getComputedStyle(m).fontSize))"""


@needs_quarto
def test_math_is_set_in_a_math_font(render_log):
    # in a text font a sum is letter-sized and its limits crowd it
    # (site/site.css); in a math font it is half as tall again
    from browser import chromium, serve

    with serve(BOOK) as origin, chromium() as browser:
        page = browser.new_page()
        # the deck's print layout shows every slide at once
        for path in ("chapters/backprop.html", "slides/backprop.html"
                                                "?print-pdf"):
            page.goto(f"{origin}/{path}", wait_until="networkidle")
            if "print-pdf" in path:  # Reveal.js lays out its pages later
                page.wait_for_function(
                    "document.querySelectorAll('.pdf-page').length > 0")
            sums = page.evaluate(SUM_SIGNS)
            assert sums and min(sums) > 1.3, (path, sums)


# ---- the course edition (make book PROFILE=course) -------------------------

def exercise_numbers(text):
    return re.findall(r"Exercise (\d+\.\d+)", text)


@needs_quarto
def test_course_edition_has_every_exercise_and_no_solution_or_key(
        render_log):
    public_pdf = pdf_text(BOOK / "backprop.pdf")
    course_pdf = pdf_text(COURSE / "backprop.pdf")
    assert "course edition" in course_pdf
    assert "Answers to the questions" in public_pdf
    assert "Answers to the questions" not in course_pdf
    assert "Solution" not in course_pdf
    assert set(exercise_numbers(course_pdf)) == set(
        exercise_numbers(public_pdf))
    for page in pages():
        name = page.relative_to(BOOK)
        public = page.read_text(encoding="utf-8")
        course = (COURSE / name).read_text(encoding="utf-8")
        if "Solution to" in public:
            assert "Solution to" not in course, name
            assert re.findall(r'id="exr-[\w-]+"', course) == re.findall(
                r'id="exr-[\w-]+"', public), name  # same exercises, ids
        if "quiz-why" in public:  # the questions keep their hints only
            assert course.count("quiz-hint") == public.count("quiz-hint")
            assert "quiz-why" not in course, name
    # its notebooks would carry the questions' answers: not offered
    assert not (COURSE / "notebooks").exists()
    # the public site is untouched by the course edition's build
    exercises = len(re.findall(r"^::: \{#exr-", (ROOT / "chapters" / (
        "backprop.qmd")).read_text(), re.MULTILINE))
    assert (BOOK / "chapters" / "backprop.html").read_text(
        encoding="utf-8").count("Solution to") == exercises


# ---- Quarto's own commands (the profile `source`) -------------------------

def main_text(html):
    """A page's <main> as words, tags and scripts removed."""
    found = re.search(r"<main\b.*?</main>", html, re.S)
    body = re.sub(r"<script\b.*?</script>|<svg\b.*?</svg>", " ",
                  found.group(0) if found else html, flags=re.S)
    # a link's tags join its words to what follows, as a page reads it:
    # a build without the zip keeps a link's words but not the link
    body = re.sub(r"</?a\b[^>]*>", "", body)
    return " ".join(re.sub(r"<[^>]+>", " ", body).split())


@needs_quarto
def test_quartos_own_preview_serves_the_same_book_and_shows_an_edit(
        render_log, tmp_path):
    # quarto preview of the .qmd chapters executes them itself; its pages
    # are make's pages, and an edit to a chapter reaches the page. The
    # copy is of make's build, as a maintainer previews after make book:
    # the deck make wrote into slides/ is there for the pages to link
    import os
    import socket
    import sys

    from booktools.bench import _served
    from booktools.render import NOT_COPIED

    copy = tmp_path / "book"
    shutil.copytree(BUILD, copy, symlinks=True, ignore=NOT_COPIED)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    preview = subprocess.Popen(
        ["quarto", "preview", "--no-browser", "--port", str(port)],
        cwd=copy, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
        env={**os.environ, "QUARTO_PYTHON": sys.executable,
             "PYTHONPATH": str(copy / "code")})
    try:
        url = f"http://localhost:{port}/chapters/backprop.html"
        assert _served(url, "</html>", 1200) is not None
        for page in pages():
            name = page.relative_to(BOOK)
            ours = main_text((copy / "_book" / name).read_text("utf-8"))
            assert ours == main_text(page.read_text("utf-8")), name
        source = copy / "chapters" / "backprop.qmd"
        source.write_text(source.read_text().replace(
            " the ", " Previewedword ", 1))
        assert _served(url, "Previewedword", 300) is not None
    finally:
        preview.terminate()
        preview.wait()


@needs_quarto
def test_no_page_shows_an_inline_expression_unevaluated(render_log):
    # an inline `{python} x` split over two source lines is not run, and
    # its code is printed as it stands
    for path in pages():
        assert "{python}" not in path.read_text(encoding="utf-8"), path.name


def divs_with_id(html, prefix):
    """The whole of each <div id="prefix..."> element of a page."""
    found = []
    for start in re.finditer(rf'<div id="{prefix}', html):
        depth, at = 0, start.start()
        for tag in re.finditer(r"<(/?)div\b", html[at:]):
            depth += -1 if tag.group(1) else 1
            if depth == 0:
                found.append(html[at:at + tag.end()])
                break
    return found


def test_an_exercise_that_needs_torch_says_so_before_its_cells(render_log):
    # on the site, an exercise with code cells and no live one (its cells
    # import torch) says, before its first cell, where it runs
    said = 0
    for page in sorted((BOOK / "chapters").glob("*.html")):
        for exercise in divs_with_id(page.read_text("utf-8"), "exr-"):
            line = exercise.find("Its cells need PyTorch")
            if 'class="cell' not in exercise or 'class="cell live' in exercise:
                assert line == -1, (page.name, exercise[:60])
                continue
            assert 0 < line < exercise.index('class="cell'), (
                page.name, exercise[:60])
            assert "this chapter’s notebook" in exercise[line:line + 200]
            said += 1
    assert said >= 11  # 1.3–1.5, 2.4–2.6, 3.1–3.5
