"""site/accessibility.html repairs what axe-core finds in Quarto's template.

The page tests/pages/quarto-like.html carries the landmark, callout,
toggle, output and page-navigation markup of a Quarto book page (copied
from a Quarto 1.10 render). Without the repair script axe-core reports
violations on it; with the script, none.
"""

from browser import WatchedPage, axe_violations, chromium, serve

from booktools import ROOT

FIXES = ROOT / "site" / "accessibility.html"
PAGE = ROOT / "tests" / "pages" / "quarto-like.html"


def violations(tmp_path, with_fixes):
    html = PAGE.read_text().replace(
        "<!--FIXES-->", FIXES.read_text() if with_fixes else "")
    (tmp_path / "index.html").write_text(html)
    with serve(tmp_path) as origin, chromium() as browser:
        page = WatchedPage(browser, origin)
        page.page.goto(f"{origin}/index.html")
        found = axe_violations(page.page)
        state = {name: (el.get_attribute("role"), el.get_attribute(
            "tabindex"), el.get_attribute("aria-label"))
            for name, el in [
                ("callout", page.page.locator(".callout-header")),
                ("toggle", page.page.locator("a[data-bs-toggle]")),
                ("next", page.page.locator(".pagination-link")),
                ("output", page.page.locator(".cell-output pre"))]}
        assert page.problems()["errors"] == []
    return {rule for rule, _ in found}, state


def test_the_quarto_like_page_has_the_known_violations(tmp_path):
    rules, _ = violations(tmp_path, with_fixes=False)
    # the three that QUARTO-NOTES.md lists for the default book template
    assert rules == {"landmark-unique", "region", "aria-allowed-attr"}


def test_the_repair_script_removes_them(tmp_path):
    rules, state = violations(tmp_path, with_fixes=True)
    assert rules == set()
    # the callout header is a keyboard button named by its visible title
    assert state["callout"] == ("button", "0", None)
    # the href-less sidebar toggle is a keyboard button with a name
    assert state["toggle"] == ("button", "0", "Toggle sidebar navigation")
    # the next-chapter link is named by what it shows ("2 Backprop...")
    assert state["next"] == (None, None, None)


def test_long_output_wraps_instead_of_scrolling(tmp_path):
    css = (ROOT / "site" / "site.css").read_text()
    html = PAGE.read_text().replace(
        "</head>", f"<style>{css}</style></head>").replace(
        "<!--FIXES-->", FIXES.read_text())
    (tmp_path / "index.html").write_text(html)
    with serve(tmp_path) as origin, chromium() as browser:
        page = WatchedPage(browser, origin)
        page.page.goto(f"{origin}/index.html")
        box = page.page.locator(".cell-output pre")
        sizes = box.evaluate("b => [b.scrollWidth, b.clientWidth]")
        found = {rule for rule, _ in axe_violations(page.page)}
    assert sizes[0] <= sizes[1]  # nothing hidden to the right
    assert "scrollable-region-focusable" not in found
