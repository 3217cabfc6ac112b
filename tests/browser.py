"""Headless Chromium for the page tests: a local server and a watched page.

The browser is the one the build prints the handouts with
(booktools/browser.py: BOOK_BROWSER, Playwright's Chromium, Chrome, Edge
or a distribution's Chromium), driven by Playwright's Python client;
without one the page tests are skipped.
"""

import contextlib

import pytest

from booktools import browser as finder
from booktools.browser import serve  # noqa: F401 (the tests' server)
from booktools.render import CHROMIUM_ARGS as ARGS


@contextlib.contextmanager
def chromium():
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        browser = finder.launch(p, ARGS)
        if browser is None:
            pytest.skip("no Chromium-family browser (install Chrome, Edge "
                        "or Chromium, or run .venv/bin/playwright install "
                        "chromium; .ci/run installs Debian's chromium)")
        try:
            yield browser
        finally:
            browser.close()


class WatchedPage:
    """A page that records other-origin requests, failures and errors."""

    def __init__(self, browser, origin):
        self.origin = origin
        self.page = browser.new_page()
        self.foreign, self.failed, self.errors = [], [], []
        self.page.on("request", self._request)
        self.page.on("requestfailed", lambda r: self.failed.append(r.url))
        self.page.on("response", self._response)
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

    def _request(self, request):
        if not request.url.startswith((self.origin, "data:", "blob:")):
            self.foreign.append(request.url)

    def _response(self, response):
        if response.status >= 400:
            self.failed.append(f"{response.status} {response.url}")

    def _console(self, message):
        if message.type == "error":
            self.errors.append(message.text)

    def problems(self):
        return {"other origins": self.foreign, "failed": self.failed,
                "errors": self.errors}


def axe_violations(page):
    """axe-core's violations on the page, as (rule id, targets) pairs."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    return [(v["id"], [n["target"] for n in v["nodes"]])
            for v in results.response["violations"]]
