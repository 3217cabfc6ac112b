"""site/accessibility.html repairs what axe-core finds in Quarto's template.

The page tests/pages/quarto-like.html carries the landmark and callout
markup of a Quarto book page. Without the repair script axe-core reports
violations on it; with the script, none.
"""

from browser import WatchedPage, axe_violations, chromium, serve

from backprop import book

FIXES = book.ROOT / "site" / "accessibility.html"
PAGE = book.ROOT / "tests" / "pages" / "quarto-like.html"


def violations(tmp_path, with_fixes):
    html = PAGE.read_text().replace(
        "<!--FIXES-->", FIXES.read_text() if with_fixes else "")
    (tmp_path / "index.html").write_text(html)
    with serve(tmp_path) as origin, chromium() as browser:
        page = WatchedPage(browser, origin)
        page.page.goto(f"{origin}/index.html")
        found = axe_violations(page.page)
        header = page.page.locator(".callout-header")
        state = (header.get_attribute("role"), header.get_attribute(
            "tabindex"))
        assert page.problems()["errors"] == []
    return {rule for rule, _ in found}, state


def test_the_quarto_like_page_has_the_known_violations(tmp_path):
    rules, _ = violations(tmp_path, with_fixes=False)
    # the three that QUARTO-NOTES.md lists for the default book template
    assert rules == {"landmark-unique", "region", "aria-allowed-attr"}


def test_the_repair_script_removes_them(tmp_path):
    rules, state = violations(tmp_path, with_fixes=True)
    assert rules == set()
    assert state == ("button", "0")  # the callout toggle is a keyboard button
