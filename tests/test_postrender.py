"""booktools/postrender.py repairs a rendered site, and render.py builds
without a browser at all: on small pages with Quarto 1.10's markup (copied
from a render), so no Quarto or browser is needed here. The rendered
book itself is checked in test_site_fixes.py.
"""

import re

import pytest

from booktools import postrender, render

TOOLS = """<div class="sidebar-tools-main tools-wide">
    <a href="{up}backprop.pdf" title="Download the PDF" class="quarto-navigation-tool px-1" aria-label="Download the PDF"><i class="bi bi-file-pdf"></i></a>
    <a href="{up}slides/backprop.html" title="Lecture slides" class="quarto-navigation-tool px-1" aria-label="Lecture slides"><i class="bi bi-easel"></i></a>
    <a href="{up}slides/backprop-handout.pdf" title="Lecture slides as a PDF handout" class="quarto-navigation-tool px-1" aria-label="Lecture slides as a PDF handout"><i class="bi bi-file-earmark-slides"></i></a>
  <a href="" class="quarto-color-scheme-toggle quarto-navigation-tool  px-1" onclick="window.quartoToggleColorScheme(); return false;" title="Toggle dark mode"><i class="bi"></i></a>
</div>"""  # noqa: E501
INDEX = TOOLS.format(up="./") + """
<p>Open the <a href="slides/backprop.html">lecture slides</a> or download the <a href="slides/backprop-handout.pdf">handout</a>; both are also linked at the top of the sidebar.</p>
<p>See <a href="chapters/backprop.html">chapter 1</a> and <a href="https://example.org/x.pdf">a paper</a>.</p>
"""  # noqa: E501
OTHER_LINKS = """<div class="quarto-other-links"><h2>Other Links</h2><ul><li><a href="../notebooks/backprop-notebooks.zip"><i class="bi bi-journal-code"></i>Download the notebooks (zip, with the code they import)</a></li><li><a href="../slides/backprop.html"><i class="bi bi-easel"></i>Lecture slides for chapters 1 to 3</a></li><li><a href="../slides/backprop-handout.pdf"><i class="bi bi-file-earmark-slides"></i>The slides as a PDF handout</a></li></ul></div></nav>"""  # noqa: E501
SHEETS = """<link href="../site_libs/bootstrap/bootstrap-1.min.css" rel="stylesheet" append-hash="true" class="quarto-color-scheme" id="quarto-bootstrap" data-mode="light">
<link href="../site_libs/bootstrap/bootstrap-dark-2.min.css" rel="stylesheet" append-hash="true" class="quarto-color-scheme quarto-color-alternate" id="quarto-bootstrap" data-mode="dark">
<script>
      const bsSheetEl = window.document.querySelector("link#quarto-bootstrap:not([rel=disabled-stylesheet])");
          if (sheetNode.id === "quarto-bootstrap") {
      document.querySelector('link#quarto-bootstrap.quarto-color-scheme-extra').rel = 'disabled-stylesheet';
</script>"""  # noqa: E501
NEXT = """<a href="../chapters/autograd.html" class="pagination-link" aria-label="Automatic differentiation">
        <span class="nav-page-text"><span class="chapter-number">2</span>&nbsp; <span class="chapter-title">Automatic differentiation</span></span> <i class="bi bi-arrow-right-short"></i>
      </a>"""  # noqa: E501
EVERYTHING = {"backprop.pdf", "slides/backprop.html",
              "slides/backprop-handout.pdf",
              "slides/backprop-handout-letter.pdf",
              "notebooks/backprop-notebooks.zip"}


def hrefs(html):
    return re.findall(r'href="([^"]*)"', html)


def test_nothing_changes_when_every_download_was_built():
    page = TOOLS.format(up="../") + OTHER_LINKS
    assert postrender.drop_missing_links(page, "chapters", EVERYTHING) == page
    assert postrender.drop_missing_links(INDEX, ".", EVERYTHING) == INDEX


def test_a_missing_handout_loses_its_sidebar_tool_and_list_item():
    present = EVERYTHING - {"slides/backprop-handout.pdf"}
    page = postrender.drop_missing_links(
        TOOLS.format(up="../") + OTHER_LINKS, "chapters", present)
    assert not any("handout" in href for href in hrefs(page))
    assert "PDF handout" not in page  # the whole item and tool went
    assert page.count("<li>") == 2 and page.count("<a ") == 5
    assert "</a></li></ul></div></nav>" in page  # the list is intact
    assert "\n\n" not in page  # no empty line where the tool was


def test_running_text_keeps_the_words_of_a_missing_link():
    present = EVERYTHING - {"slides/backprop-handout.pdf"}
    page = postrender.drop_missing_links(INDEX, ".", present)
    assert "or download the handout; both" in page
    assert hrefs(page) == ["./backprop.pdf", "./slides/backprop.html", "",
                           "slides/backprop.html", "chapters/backprop.html",
                           "https://example.org/x.pdf"]


def test_a_list_left_empty_goes_whole():
    page = postrender.drop_missing_links(OTHER_LINKS, "chapters", set())
    assert page == "</nav>"


def test_only_downloads_are_checked():
    # a missing chapter is a broken link to fix, not one to hide
    page = '<li><a href="chapters/gone.html">Gone</a></li>'
    assert postrender.drop_missing_links(page, ".", set()) == page


def test_links_are_resolved_from_their_page():
    assert postrender.site_path("../slides/a.pdf#p=2", "chapters") == (
        "slides/a.pdf")
    assert postrender.site_path("./backprop.pdf", ".") == "backprop.pdf"
    assert postrender.site_path("/backprop.pdf", "chapters") == (
        "backprop.pdf")
    for outside in ("https://x.org/a.pdf", "//x.org/a", "#top",
                    "mailto:a@b.c", "../../a.pdf"):
        assert postrender.site_path(outside, "chapters") is None


def test_theme_stylesheets_lose_their_shared_id():
    fixed = postrender.unique_sheet_ids(SHEETS)
    assert 'id="quarto-bootstrap"' not in fixed
    assert fixed.count('data-sheet="quarto-bootstrap"') == 2
    assert "link[data-sheet=quarto-bootstrap]:not(" in fixed
    assert 'sheetNode.dataset.sheet === "quarto-bootstrap"' in fixed
    assert postrender.unique_sheet_ids(fixed) == fixed


def test_a_page_that_finds_the_sheets_otherwise_is_left_alone():
    # the theme switch must keep finding its stylesheets
    other = SHEETS + '<script>document.getElementById("quarto-bootstrap")'
    assert postrender.unique_sheet_ids(other) == other


def test_deck_declares_its_charset_first():
    late = ("<!DOCTYPE html>\n<html><head>\n<script>" + "x" * 2000
            + '</script>\n  <meta charset="utf-8">\n<title>t</title>')
    fixed = postrender.fix_deck(late)
    assert fixed.index('<meta charset="utf-8">') < 1024
    assert fixed.count("charset") == 1
    charset = '<meta charset="utf-8">'
    assert fixed.replace(f"\n{charset}", "") == late.replace(
        f"\n  {charset}", "")  # moved, nothing else changed
    assert postrender.fix_deck(fixed) == fixed


def small_site(root):
    """A site with the book's download links and the downloads given."""
    (root / "chapters").mkdir(parents=True)
    (root / "index.html").write_text(INDEX)
    (root / "chapters" / "backprop.html").write_text(
        TOOLS.format(up="../") + OTHER_LINKS + NEXT)
    (root / "backprop.pdf").write_text("%PDF")
    (root / "notebooks").mkdir()
    (root / "notebooks" / "backprop-notebooks.zip").write_text("zip")
    return root


def test_fix_site_drops_links_to_what_was_not_built(tmp_path):
    site = small_site(tmp_path / "site")  # no slides at all
    postrender.fix_site(site)
    for page in site.rglob("*.html"):
        assert not [h for h in hrefs(page.read_text()) if "slides/" in h]
    chapter = (site / "chapters" / "backprop.html").read_text()
    assert "../notebooks/backprop-notebooks.zip" in chapter
    assert "../backprop.pdf" in chapter


def test_the_post_render_script_reads_quartos_output_folder(
        tmp_path, monkeypatch):
    site = small_site(tmp_path / "site")
    monkeypatch.setenv("QUARTO_PROJECT_OUTPUT_DIR", str(site))
    monkeypatch.setenv("BOOKTOOLS_RENDER", "1")  # render.py's own run
    postrender.main([])
    assert "slides/backprop.html" in (site / "index.html").read_text()
    monkeypatch.delenv("BOOKTOOLS_RENDER")
    postrender.main([])
    assert "slides/backprop.html" not in (site / "index.html").read_text()


# ---- a build without a browser ---------------------------------------------

DECK_HTML = ('<!DOCTYPE html>\n<html lang="en"><head>\n<script>'
             + "/* inlined */" * 200 + '</script>\n<meta charset="utf-8">\n'
             '</head><body><div class="reveal"><aside class="notes">'
             "<p>n</p></aside></div></body></html>")


@pytest.fixture
def no_browser(tmp_path, monkeypatch):
    """render.py on a tmp site and slides folder, with a fake Quarto and
    no browser to be found; the handouts of an earlier build are there."""
    monkeypatch.chdir(tmp_path)  # render.main() moves to the repository
    site = small_site(tmp_path / "_book")
    slides = tmp_path / "slides"
    slides.mkdir()
    (slides / "_variables.yml").write_text("{}\n")
    for old in ("backprop-handout.pdf", "backprop-handout-letter.pdf",
                "backprop-slides-with-notes.pdf",
                "backprop-slides-with-notes-letter.pdf"):
        (slides / old).write_text("%PDF old")
    (site / "slides").mkdir()
    (site / "slides" / "backprop-handout.pdf").write_text("%PDF old")

    def fake_quarto(args, cwd):
        (slides / "backprop.html").write_text(DECK_HTML)
        return "Output created: backprop.html\n"

    monkeypatch.setattr(render, "SITE", site)
    monkeypatch.setattr(render, "SLIDES", slides)
    monkeypatch.setattr(render, "HANDOUT", slides / "backprop-handout.pdf")
    monkeypatch.setattr(render, "LETTER",
                        slides / "backprop-handout-letter.pdf")
    monkeypatch.setattr(render, "NOTES",
                        slides / "backprop-slides-with-notes.pdf")
    monkeypatch.setattr(render, "NOTES_LETTER",
                        slides / "backprop-slides-with-notes-letter.pdf")
    monkeypatch.setattr(render, "quarto", fake_quarto)
    monkeypatch.setattr(render.browser, "launch", lambda p, args: None)
    monkeypatch.delenv("BOOK_BROWSER", raising=False)
    return site


def test_without_a_browser_only_the_handouts_are_skipped(no_browser, capsys):
    render.main(["slides"])  # no SystemExit: make goes on, status 0
    out = capsys.readouterr().out
    assert [line for line in out.splitlines()
            if "skipped" in line] == [render.NO_BROWSER]
    assert "BOOK_BROWSER" in render.NO_BROWSER
    assert "playwright install chromium" in render.NO_BROWSER
    slides = no_browser / "slides"
    assert (slides / "backprop.html").exists()  # the deck is published
    assert not (slides / "backprop-handout.pdf").exists()  # not the old one
    assert not render.NOTES.exists() and not render.HANDOUT.exists()
    assert not render.LETTER.exists() and not render.NOTES_LETTER.exists()
    for page in no_browser.rglob("*.html"):
        assert not [h for h in hrefs(page.read_text())
                    if h.endswith("backprop-handout.pdf")], page.name
    index = (no_browser / "index.html").read_text()
    assert "slides/backprop.html" in index  # the deck is still linked
    deck = (slides / "backprop.html").read_text()
    assert deck.index('<meta charset="utf-8">') < 1024


def test_callout_titles_keep_the_words_of_a_cross_reference():
    from booktools.postrender import fix_page

    page = ('<div class="callout-title-container flex-fill">\n'
            '<span class="screen-reader-only">Tip</span>Solution to '
            '<a href="#exr-by-hand" class="quarto-xref">Exercise&nbsp;'
            '<span>1.1</span></a>\n</div>\n'
            '<p>See <a href="#exr-by-hand" class="quarto-xref">Exercise'
            '&nbsp;<span>1.1</span></a>.</p>')
    fixed = fix_page(page, ".", set())
    title, body = fixed.split("</div>")
    assert "<a" not in title
    assert "Solution to Exercise&nbsp;<span>1.1</span>" in title
    assert 'class="quarto-xref"' in body  # links elsewhere stay


def test_a_note_about_a_missing_download_goes_whole():
    from booktools.postrender import fix_page

    page = ('<p>Before.</p>\n<div class="download-note">\n<p>Open the '
            '<a href="slides/backprop.html">slides</a> or download the '
            '<a href="slides/backprop-handout.pdf">handout</a>.</p>\n'
            '</div>\n<p>After.</p>')
    all_there = {"slides/backprop.html", "slides/backprop-handout.pdf"}
    assert "download the" in fix_page(page, ".", all_there)
    fixed = fix_page(page, ".", {"slides/backprop.html"})
    assert "download" not in fixed and "slides" not in fixed
    assert "Before." in fixed and "After." in fixed


def test_formulas_lose_their_tex_annotation_and_keep_their_mathml():
    from booktools.postrender import fix_page

    page = ('<math><semantics><mrow><mi>x</mi></mrow><annotation '
            'encoding="application/x-tex">x</annotation></semantics></math>')
    fixed = fix_page(page, ".", set())
    assert "annotation" not in fixed and "<mi>x</mi>" in fixed
