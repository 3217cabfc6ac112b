"""booktools/browser.py finds a Chromium-family browser where instructors'
machines keep one: each source in a fake machine (a tmp folder of fake
executables, its own environment, PATH and platform), in order, and none.
"""

import stat
from pathlib import Path

import pytest

from booktools import browser


def executable(path):
    """A fake browser at path (an empty file that may be run)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture
def machine(tmp_path, monkeypatch):
    """A machine with no browser anywhere: an empty HOME and PATH, no
    Playwright browser, and no usual install location that exists."""
    monkeypatch.setattr(browser, "playwright_chromium", lambda: None)
    monkeypatch.setattr(browser, "places", lambda env, system: [])
    (tmp_path / "bin").mkdir()
    return {"HOME": str(tmp_path / "home"), "PATH": str(tmp_path / "bin")}


def test_none_found(machine):
    for system in ("linux", "darwin", "win32"):
        assert browser.find(machine, system) is None


def test_the_environment_variable_comes_first(machine, tmp_path):
    mine = executable(tmp_path / "my browser" / "chrome")
    executable(tmp_path / "bin" / "chromium")
    machine[browser.ENV] = str(mine)
    assert browser.find(machine, "linux") == str(mine)
    assert browser.explicit_problem(machine) is None


def test_an_unusable_environment_variable_is_reported_and_passed_by(
        machine, tmp_path):
    on_path = executable(tmp_path / "bin" / "chromium")
    machine[browser.ENV] = str(tmp_path / "no such browser")
    assert browser.find(machine, "linux") == str(on_path)
    assert browser.ENV in browser.explicit_problem(machine)


def test_quartos_own_variable_is_honoured(machine, tmp_path):
    chrome = executable(tmp_path / "q" / "chrome")
    machine["QUARTO_CHROMIUM"] = str(chrome)
    assert browser.find(machine, "linux") == str(chrome)


def test_playwrights_chromium(machine, tmp_path, monkeypatch):
    managed = executable(tmp_path / "ms-playwright" / "chromium-1" / "chrome")
    monkeypatch.setattr(browser, "playwright_chromium", lambda: managed)
    executable(tmp_path / "bin" / "chromium")  # found later in the order
    assert browser.find(machine, "linux") == str(managed)


def test_playwright_reports_nothing_it_has_not_downloaded(monkeypatch):
    # Playwright names the path of its Chromium even before `playwright
    # install chromium`; only a file that exists counts
    found = browser.playwright_chromium()
    assert found is None or Path(found).is_file()


@pytest.mark.parametrize("system, data, binary", [
    ("linux", "home/.local/share/quarto", "chrome-headless-shell/"
     "chrome-headless-shell-linux64/chrome-headless-shell"),
    ("linux", "home/.local/share/quarto", "chrome-headless-shell/"
     "chrome-headless-shell-linux-arm64/headless_shell"),
    ("linux", "home/.local/share/quarto",
     "chromium/linux-1108766/chrome-linux/chrome"),
    ("darwin", "home/Library/Application Support/quarto",
     "chrome-headless-shell/chrome-headless-shell-mac-arm64/"
     "chrome-headless-shell"),
    ("darwin", "home/Library/Application Support/quarto",
     "chromium/mac_arm-1108766/chrome-mac/Chromium.app/Contents/MacOS/"
     "Chromium"),
    ("win32", "local/quarto", "chrome-headless-shell/"
     "chrome-headless-shell-win64/chrome-headless-shell.exe"),
    ("win32", "local/quarto", "chromium/win64-1108766/chrome-win/"
     "chrome.exe"),
])
def test_quartos_browser(machine, tmp_path, system, data, binary):
    # where Quarto 1.10 installs chrome-headless-shell (and, before, the
    # Chromium of `quarto install chromium`) on each system
    machine["LOCALAPPDATA"] = str(tmp_path / "local")
    installed = executable(tmp_path / data / binary)
    assert browser.find(machine, system) == str(installed)


def test_quartos_data_folder_follows_xdg(machine, tmp_path):
    machine["XDG_DATA_HOME"] = str(tmp_path / "xdg")
    installed = executable(tmp_path / "xdg" / "quarto" / "chrome-headless"
                           "-shell" / "linux64" / "chrome-headless-shell")
    assert browser.find(machine, "linux") == str(installed)


@pytest.mark.parametrize("name", browser.NAMES)
def test_a_browser_on_path(machine, tmp_path, name):
    found = executable(tmp_path / "bin" / name)
    assert browser.find(machine, "linux") == str(found)


def test_path_keeps_the_order_of_names(machine, tmp_path):
    executable(tmp_path / "bin" / "msedge")
    chromium = executable(tmp_path / "bin" / "chromium")
    assert browser.find(machine, "linux") == str(chromium)


def test_a_file_that_cannot_run_is_not_a_browser(machine, tmp_path):
    (tmp_path / "bin" / "chromium").write_text("")  # not executable
    assert browser.find(machine, "linux") is None


def test_the_usual_install_locations(machine, tmp_path, monkeypatch):
    edge = executable(tmp_path / "Edge" / "msedge")
    monkeypatch.setattr(browser, "places",
                        lambda env, system: [tmp_path / "none", edge])
    assert browser.find(machine, "linux") == str(edge)


def test_usual_locations_on_each_system():
    mac = browser.places({"HOME": "/Users/ann"}, "darwin")
    assert Path("/Applications/Google Chrome.app/Contents/MacOS/"
                "Google Chrome") in mac
    assert Path("/Users/ann/Applications/Microsoft Edge.app/Contents/"
                "MacOS/Microsoft Edge") in mac
    windows = browser.places({"PROGRAMFILES": "C:/Program Files",
                              "PROGRAMFILES(X86)": "C:/Program Files (x86)",
                              "LOCALAPPDATA": "C:/Users/ann/AppData/Local"},
                             "win32")
    assert Path("C:/Program Files/Google/Chrome/Application/"
                "chrome.exe") in windows
    assert Path("C:/Program Files (x86)/Microsoft/Edge/Application/"
                "msedge.exe") in windows
    assert Path("C:/Users/ann/AppData/Local/Google/Chrome/Application/"
                "chrome.exe") in windows
    linux = browser.places({}, "linux")
    assert {Path("/usr/bin/chromium"), Path("/snap/bin/chromium"),
            Path("/opt/google/chrome/chrome")} <= set(linux)
