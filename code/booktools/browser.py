"""Find a Chromium-family browser: it prints the slides handouts, and the
page tests drive it.

Instructors build the book on macOS, Windows and Linux, where a browser
may be in any of several places and rarely on PATH as `chromium`. Any
Chromium-family browser will do (Chrome, Chromium, Edge, or a headless
shell), since Playwright drives it by its executable. The first found,
in this order, is used:

1. the environment variable BOOK_BROWSER (a path to the executable),
   then Quarto's own, QUARTO_CHROMIUM;
2. Playwright's managed Chromium (`.venv/bin/playwright install chromium`);
3. Quarto's (`quarto install chrome-headless-shell`; Quarto 1.10 turns
   the older `quarto install chromium` into that), in Quarto's data
   folder: ~/.local/share/quarto (or $XDG_DATA_HOME/quarto) on Linux,
   ~/Library/Application Support/quarto on macOS, %LOCALAPPDATA%\\quarto
   on Windows;
4. a browser on PATH (NAMES);
5. where the installers of Chrome, Chromium and Edge put them (places()).

None found is not an error here: render.py then skips the handouts.
serve() is the local server that the page tests and the bench load the
site from (pages that load modules and WebAssembly need http, not file).
"""

import contextlib
import functools
import http.server
import os
import shutil
import sys
import threading
from pathlib import Path

ENV = "BOOK_BROWSER"
NAMES = ["chromium", "chromium-browser", "google-chrome",
         "google-chrome-stable", "microsoft-edge", "microsoft-edge-stable",
         "chrome", "msedge"]
# Inside Quarto's data folder: chrome-headless-shell/<platform>/<binary>
# (headless_shell on Linux arm64), and the legacy Puppeteer download of
# `quarto install chromium`: chromium/<platform>-<revision>/chrome-*/...
QUARTO_BROWSERS = [
    "chrome-headless-shell/*/chrome-headless-shell",
    "chrome-headless-shell/*/chrome-headless-shell.exe",
    "chrome-headless-shell/*/headless_shell",
    "chromium/*/chrome-linux/chrome",
    "chromium/*/chrome-mac/Chromium.app/Contents/MacOS/Chromium",
    "chromium/*/chrome-win/chrome.exe"]
MAC_APPS = ["Google Chrome", "Chromium", "Microsoft Edge"]
WINDOWS_APPS = [r"Google\Chrome\Application\chrome.exe",
                r"Chromium\Application\chrome.exe",
                r"Microsoft\Edge\Application\msedge.exe"]
LINUX_PATHS = ["/usr/bin/chromium", "/usr/bin/chromium-browser",
               "/usr/bin/google-chrome", "/usr/bin/google-chrome-stable",
               "/usr/bin/microsoft-edge", "/snap/bin/chromium",
               "/opt/google/chrome/chrome", "/opt/microsoft/msedge/msedge"]


def find(env=None, system=None):
    """The path of the first browser found (see the module's docstring),
    or None. env and system (sys.platform) default to this machine's."""
    env = os.environ if env is None else env
    system = system or sys.platform
    for path in candidates(env, system):
        if path and runnable(path):
            return str(path)
    return None


def candidates(env, system):
    """Every place a browser may be, best first (lazily: asking
    Playwright starts its driver, which is not needed if one is set)."""
    yield env.get(ENV)
    yield env.get("QUARTO_CHROMIUM")
    yield playwright_chromium()
    data = quarto_data(env, system)
    for pattern in QUARTO_BROWSERS if data else []:
        yield from sorted(data.glob(pattern), reverse=True)  # newest first
    for name in NAMES:
        yield shutil.which(name, path=env.get("PATH", ""))
    yield from places(env, system)


def runnable(path):
    path = Path(path)
    return path.is_file() and os.access(path, os.X_OK)


def explicit_problem(env=None):
    """A warning if BOOK_BROWSER is set to something that cannot run
    (find() then looks elsewhere), else None."""
    value = (os.environ if env is None else env).get(ENV)
    if value and not runnable(value):
        return f"warning: {ENV}={value} is not an executable file"
    return None


def playwright_chromium():
    """The Chromium that `playwright install chromium` downloads, as
    Playwright reports it (it honours PLAYWRIGHT_BROWSERS_PATH), or None
    when Playwright is missing or has not downloaded it."""
    try:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            path = p.chromium.executable_path
    except Exception:  # no Playwright, or its driver would not start
        return None
    return path if Path(path).is_file() else None


def quarto_data(env, system):
    """Quarto's data folder (Quarto 1.10, src/core/appdirs.ts), or None."""
    home = env.get("HOME") or env.get("USERPROFILE")
    if system == "win32":
        base = env.get("LOCALAPPDATA")
        return Path(base, "quarto") if base else None
    if system == "darwin":
        return Path(home, "Library", "Application Support",
                    "quarto") if home else None
    if env.get("XDG_DATA_HOME"):
        return Path(env["XDG_DATA_HOME"], "quarto")
    return Path(home, ".local", "share", "quarto") if home else None


def places(env, system):
    """Where the installers of Chrome, Chromium and Edge put them."""
    if system == "darwin":
        roots = ["/Applications"] + (
            [str(Path(env["HOME"], "Applications"))] if env.get("HOME")
            else [])
        return [Path(root, f"{app}.app", "Contents", "MacOS", app)
                for root in roots for app in MAC_APPS]
    if system == "win32":
        roots = [env.get(name) for name in
                 ("PROGRAMFILES", "PROGRAMFILES(X86)", "LOCALAPPDATA")]
        return [Path(root, *app.split("\\")) for root in roots if root
                for app in WINDOWS_APPS]
    return [Path(path) for path in LINUX_PATHS]


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@contextlib.contextmanager
def serve(directory):
    """Serve directory on 127.0.0.1 at a free port; yield the origin."""
    handler = functools.partial(QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
