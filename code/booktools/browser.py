"""Start a Chromium-family browser: it prints the slides handouts, and the
page tests drive it.

Instructors build the book on macOS, Windows and Linux, where a browser
may be in any of several places. Playwright knows them: launch() tries,
in this order,

1. BOOK_BROWSER, the path of a browser's executable, if it is set (and
   only it: a browser chosen by name must start, or the build says so);
2. Playwright's own Chromium (`.venv/bin/playwright install chromium`);
3. Google Chrome and Microsoft Edge, where their installers put them
   (Playwright's channels "chrome" and "msedge");
4. a Linux distribution's Chromium on PATH, which no channel names.

None found is not an error here: render.py then skips the handouts.
serve() is the local server that the page tests and the bench load the
site from (pages that load modules and WebAssembly need http, not file).
"""

import contextlib
import functools
import http.server
import os
import shutil
import threading

ENV = "BOOK_BROWSER"
CHANNELS = [{}, {"channel": "chrome"}, {"channel": "msedge"}]
PACKAGES = ["chromium", "chromium-browser"]  # Debian's, Fedora's, ...


class BrowserError(RuntimeError):
    """BOOK_BROWSER names a browser that does not start."""


def choices(env):
    """Playwright's launch options to try, best first (see above), in
    the environment env."""
    if env.get(ENV):
        return [{"executable_path": env[ENV]}]
    on_path = [shutil.which(name, path=env.get("PATH", ""))
               for name in PACKAGES]
    return CHANNELS + [{"executable_path": p} for p in on_path if p]


def launch(playwright, args, env=None):
    """The first of choices() that starts, as a Playwright Browser, or
    None when none does."""
    env = os.environ if env is None else env
    for options in choices(env):
        try:
            return playwright.chromium.launch(args=args, **options)
        except Exception as err:  # Playwright's Error: absent, or broken
            if env.get(ENV):  # chosen by name: no other will do
                raise BrowserError(f"{ENV}={env[ENV]} did not start: "
                                   f"{err}") from err
    return None


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
