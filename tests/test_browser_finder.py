"""booktools/browser.py starts a Chromium-family browser as instructors'
machines have one: BOOK_BROWSER alone when it is set, else Playwright's
Chromium, Chrome, Edge, then a distribution's Chromium on PATH. A fake
Playwright records what was tried and starts only what the machine has.
"""

import stat

import pytest

from booktools import browser


class FakePlaywright:
    """playwright.chromium.launch(**options) that starts only the browsers
    in `present` (each a frozenset of launch options) and records every
    try."""

    def __init__(self, *present):
        self.present = {frozenset(p.items()) for p in present}
        self.tried = []
        self.chromium = self

    def launch(self, args, **options):
        self.tried.append(options)
        if frozenset(options.items()) not in self.present:
            raise RuntimeError("Executable doesn't exist")
        return ("started", options)


def runnable(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


@pytest.fixture
def machine(tmp_path):
    """An environment with an empty PATH and no BOOK_BROWSER."""
    (tmp_path / "bin").mkdir()
    return {"PATH": str(tmp_path / "bin")}


def test_none_found_is_none(machine):
    fake = FakePlaywright()
    assert browser.launch(fake, [], machine) is None
    assert fake.tried == browser.CHANNELS  # Playwright's own, Chrome, Edge


def test_playwrights_chromium_comes_first(machine):
    fake = FakePlaywright({}, {"channel": "chrome"})
    assert browser.launch(fake, [], machine) == ("started", {})


def test_chrome_then_edge_by_playwrights_channels(machine):
    fake = FakePlaywright({"channel": "msedge"}, {"channel": "chrome"})
    assert browser.launch(fake, [], machine) == ("started",
                                                 {"channel": "chrome"})
    fake = FakePlaywright({"channel": "msedge"})
    assert browser.launch(fake, [], machine) == ("started",
                                                 {"channel": "msedge"})


def test_a_distributions_chromium_on_path_comes_last(machine, tmp_path):
    path = runnable(tmp_path / "bin" / "chromium")
    fake = FakePlaywright({"executable_path": path}, {"channel": "msedge"})
    assert browser.launch(fake, [], machine)[1] == {"channel": "msedge"}
    fake = FakePlaywright({"executable_path": path})
    assert browser.launch(fake, [], machine)[1] == {"executable_path": path}


def test_the_environment_variable_alone_is_tried(machine, tmp_path):
    mine = runnable(tmp_path / "my browser" / "chrome")
    machine[browser.ENV] = mine
    fake = FakePlaywright({}, {"executable_path": mine})
    assert browser.launch(fake, [], machine)[1] == {"executable_path": mine}
    assert fake.tried == [{"executable_path": mine}]


def test_a_browser_chosen_by_name_that_fails_says_so(machine, tmp_path):
    machine[browser.ENV] = str(tmp_path / "no such browser")
    fake = FakePlaywright({})  # another browser would start: not used
    with pytest.raises(browser.BrowserError) as failed:
        browser.launch(fake, [], machine)
    message = str(failed.value)
    assert message.startswith(f"{browser.ENV}=") and "\n" not in message
    assert "no such browser" in message and len(fake.tried) == 1
