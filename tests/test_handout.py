"""The slides handouts that the browser prints (booktools/render.py,
slides/slides.css): on A4 and on US Letter, several slides a sheet, each
with room for notes. They come with the book that `make book` built (the
fixture of test_site_fixes.py, which builds it when it is missing or
stale); without Quarto these tests are skipped.
"""

import math
import re
import subprocess

import pytest
from test_print import tool as poppler
from test_site_fixes import BOOK, DECK
from test_site_fixes import book as built_book  # noqa: F401 (a fixture)

# name: the paper's size in points, as pdfinfo rounds it
PAPER = {"backprop-handout.pdf": (595, 842),
         "backprop-handout-letter.pdf": (612, 792)}


def page_sizes(pdf):
    info = subprocess.run([poppler("pdfinfo"), "-f", "1", "-l", "9999",
                           str(pdf)], capture_output=True, text=True,
                          check=True).stdout
    return [(float(w), float(h)) for w, h in re.findall(
        r"^Page\s+\d+ size:\s+([\d.]+) x ([\d.]+) pts", info, re.M)]


def boxes(pdf):
    """Each page's words as (x1, height, text), from pdftotext's boxes."""
    xml = subprocess.run([poppler("pdftotext"), "-bbox", str(pdf), "-"],
                         capture_output=True, text=True, check=True).stdout
    return [[(float(x1), float(y1) - float(y0), text) for y0, x1, y1, text
             in re.findall(r'<word xMin="[\d.]+" yMin="([\d.]+)" '
                           r'xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>',
                           page)]
            for page in xml.split("<page ")[1:]]


def words(pdf):
    """Each page's words as (x1, text)."""
    return [[(x1, text) for x1, _, text in page] for page in boxes(pdf)]


def type_size(pdf):
    """The median height of the words' boxes, in points: about 1.2 times
    the size of the type that most of the text is set in."""
    heights = sorted(h for page in boxes(pdf) for _, h, _ in page)
    return heights[len(heights) // 2]


@pytest.mark.usefixtures("built_book")
@pytest.mark.parametrize("name", PAPER)
def test_handout_prints_slides_on_paper_with_room_for_notes(name):
    pdf = BOOK / "slides" / name
    width, height = PAPER[name]
    slides = DECK.read_text(encoding="utf-8").count('<section id="')
    sizes = page_sizes(pdf)
    assert sizes and {(round(w), round(h)) for w, h in sizes} == {
        (width, height)}  # portrait A4 or Letter, not the deck's 16:9
    pages = words(pdf)
    assert len(pages) == len(sizes) <= math.ceil(slides / 2)
    shown = []  # each slide's number, printed beneath it
    for page in pages:
        text = " ".join(word for _, word in page)
        numbers = [int(n) for n, total in re.findall(
            r"slide (\d+) of (\d+)", text) if int(total) == slides]
        shown.append(numbers)
        # the slides take the left of the sheet: the right is for notes
        assert max(float(x1) for x1, _ in page) < 0.76 * width
    assert [n for numbers in shown for n in numbers] == list(
        range(1, slides + 1))
    assert all(len(numbers) >= 2 for numbers in shown[:-1])
    # the slides' body text prints at about 10 pt (boxes of 12 pt), not 8
    assert type_size(pdf) >= 11.5


@pytest.mark.usefixtures("built_book")
def test_instructor_notes_print_on_a4_at_a_reading_size():
    pdf = BOOK.parent / "_book-instructor" / "backprop-slides-with-notes.pdf"
    assert {(round(w), round(h)) for w, h in page_sizes(pdf)} == {(595, 842)}
    assert type_size(pdf) >= 13  # notes at 11 pt: boxes of about 14 pt
