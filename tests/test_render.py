"""Render the book with Quarto (skipped where Quarto is not installed).

The GitHub Actions workflow installs Quarto 1.10, so these run there.
"""

import re
import shutil
import subprocess

import pytest

from backprop import book

pytestmark = pytest.mark.skipif(
    shutil.which("quarto") is None,
    reason="Quarto is not on PATH: the rendered book cannot be built here "
           "(CI installs Quarto 1.10 and runs these tests)")

BOOK = book.ROOT / "_book"


@pytest.fixture(scope="module")
def render_log():
    result = subprocess.run(["make", "book"], cwd=book.ROOT,
                            capture_output=True, text=True, timeout=1800)
    log = result.stdout + result.stderr
    assert result.returncode == 0, log[-5000:]
    return log


def test_book_has_every_page_and_the_pdf(render_log):
    assert (BOOK / "index.html").exists()
    for path in book.chapters()[1:]:
        page = BOOK / path.relative_to(book.ROOT).with_suffix(".html")
        assert page.exists(), page
    assert list(BOOK.glob("*.pdf")), "no PDF in _book/"
    for name in ("backprop", "by-hand"):
        assert (BOOK / "notebooks" / f"{name}.ipynb").exists()


def test_render_log_has_no_warnings(render_log):
    warnings = [line for line in render_log.splitlines()
                if re.search(r"\bWARN(ING)?\b", line)]
    assert not warnings, "\n".join(warnings)


def test_pages_show_numbered_figures_and_computed_values(render_log):
    html = (BOOK / "chapters" / "backprop.html").read_text()
    assert "Figure&nbsp;1.1" in html or "Figure 1.1" in html
    assert "{python}" not in html  # every inline expression was replaced
    assert "0.337801" in html


def pages():
    return sorted(p for p in BOOK.rglob("*.html")
                  if "site_libs" not in p.parts)


def test_every_page_is_offline_accessible_and_error_free(render_log):
    from browser import WatchedPage, axe_violations, chromium, serve

    with serve(BOOK) as origin, chromium() as browser:
        for path in pages():
            watched = WatchedPage(browser, origin)
            url = f"{origin}/{path.relative_to(BOOK).as_posix()}"
            watched.page.goto(url, wait_until="networkidle")
            assert watched.page.title()
            assert watched.problems() == {"other origins": [], "failed": [],
                                          "errors": []}, url
            assert axe_violations(watched.page) == [], url
            watched.page.close()


def test_explorers_run_in_the_rendered_pages(render_log):
    from browser import WatchedPage, chromium, serve

    with serve(BOOK) as origin, chromium() as browser:
        for page, kind in [("backprop", "depth"), ("by-hand", "chain")]:
            watched = WatchedPage(browser, origin)
            watched.page.goto(f"{origin}/chapters/{page}.html")
            watched.page.wait_for_selector(
                f'[data-explorer="{kind}"][data-ready="true"]')
            watched.page.close()


def test_pdf_shows_static_figures_instead_of_explorers(render_log):
    pdftotext = shutil.which("pdftotext")
    if pdftotext is None:
        pytest.skip("pdftotext (Debian poppler-utils) is not installed")
    pdf = next(BOOK.glob("*.pdf"))
    text = subprocess.run([pdftotext, str(pdf), "-"], capture_output=True,
                          text=True, check=True).stdout
    assert "needs JavaScript" not in text
    assert "central difference" in text  # the static chain-rule figure
    assert "Solution" not in text  # solutions only in the instructor PDF
