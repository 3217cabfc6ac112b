"""The live cells (booktools/live.py, explorers/live.py and live.js): the
runtime's and the editor's downloads are checked, a site without them
keeps static pages or a plain text box, and every live cell runs as the
page runs it, in a Python without torch."""

import base64
import hashlib
import io
import json
import re
import subprocess
import sys
import tarfile
import textwrap

import pytest
import sources as qmd

from booktools import ROOT, live
from booktools.live import RUNTIME


def tarball(files):
    """An npm-style .tgz (everything under package/) and its integrity."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(f"package/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    data = buffer.getvalue()
    digest = base64.b64encode(hashlib.sha512(data).digest()).decode()
    return data, f"sha512-{digest}"


@pytest.fixture
def package(tmp_path):
    data, integrity = tarball({name: name.encode() for name in RUNTIME})
    path = tmp_path / "pyodide.tgz"
    path.write_bytes(data)
    return path.as_uri(), integrity


def test_fetch_unpacks_the_runtime_when_the_checksum_matches(package,
                                                             tmp_path):
    url, integrity = package
    cache = live.fetch(tmp_path / "cache", url, integrity)
    assert sorted(p.name for p in cache.iterdir()) == sorted(RUNTIME)
    assert (cache / "pyodide.mjs").read_bytes() == b"pyodide.mjs"


def test_fetch_refuses_a_download_that_does_not_match(package, tmp_path):
    url, integrity = package
    wrong = integrity[:-6] + ("A" if integrity[-6] != "A" else "B") + \
        integrity[-5:]
    with pytest.raises(OSError, match="checksum"):
        live.fetch(tmp_path / "cache", url, wrong)
    assert not (tmp_path / "cache").exists()


def test_fetch_says_in_one_sentence_what_failed(tmp_path):
    missing = (tmp_path / "nothing.tgz").as_uri()
    with pytest.raises(OSError, match=r"could not be downloaded from .*"
                       "nothing.tgz"):
        live.fetch(tmp_path / "cache", missing, "sha512-x")


def editor_lock(tmp_path, integrity_of=None):
    """A package-lock.json with two editor packages, as fake tarballs on
    disk (one scoped, one whose module is where its exports say), and a
    dev dependency, which the site must not get."""
    modules = {"@scope/view": ({"module": "dist/index.js"}, "dist/index.js"),
               "plain": ({"exports": {"import": "./src/plain.js"}},
                         "src/plain.js")}
    packages = {"": {"name": "book"}, "node_modules/tester": {
        "version": "1.0.0", "dev": True, "integrity": "sha512-x",
        "resolved": (tmp_path / "missing.tgz").as_uri()}}
    for name, (meta, path) in modules.items():
        data, integrity = tarball({
            "package.json": json.dumps(meta).encode(),
            path: f"export const name = '{name}';".encode(),
            "LICENSE": f"MIT licence of {name}".encode()})
        tgz = tmp_path / f"{name.replace('/', '-')}.tgz"
        tgz.write_bytes(data)
        packages[f"node_modules/{name}"] = {
            "version": "6.1.0", "resolved": tgz.as_uri(),
            "integrity": (integrity_of or {}).get(name, integrity)}
    lock = tmp_path / "package-lock.json"
    lock.write_text(json.dumps({"packages": packages}))
    return lock


def test_the_editor_is_the_locks_packages_that_are_not_dev_ones(tmp_path):
    lock = tmp_path / "package-lock.json"
    lock.write_text(json.dumps({"packages": {
        "": {"name": "book"},
        "node_modules/@codemirror/view": {"version": "6.44.2",
                                          "integrity": "sha512-a"},
        "node_modules/crelt": {"version": "1.0.7", "integrity": "sha512-b"},
        "node_modules/puppeteer-core": {"version": "24.43.1", "dev": True,
                                        "integrity": "sha512-c"}}}))
    assert live.editor_packages(lock) == {  # npm's tarball addresses
        "@codemirror/view": ("6.44.2", "https://registry.npmjs.org/"
                             "@codemirror/view/-/view-6.44.2.tgz", "sha512-a"),
        "crelt": ("1.0.7", "https://registry.npmjs.org/crelt/-/"
                  "crelt-1.0.7.tgz", "sha512-b")}
    # the repository's lock: CodeMirror and its Python mode, no test tools
    names = set(live.editor_packages())
    assert {"codemirror", "@codemirror/lang-python"} <= names
    assert "puppeteer-core" not in names


def test_fetch_editor_keeps_each_module_and_its_licence(tmp_path):
    lock = editor_lock(tmp_path)
    folders = live.fetch_editor(tmp_path / "cache", lock)
    assert sorted(folders) == ["@scope/view", "plain"]
    for name, folder in folders.items():
        assert folder == tmp_path / "cache" / f"{name}@6.1.0"
        assert (folder / "index.js").read_text() == \
            f"export const name = '{name}';"
        assert (folder / "LICENSE").read_text() == f"MIT licence of {name}"


def test_fetch_editor_refuses_a_package_that_does_not_match(tmp_path):
    lock = editor_lock(tmp_path, {"plain": "sha512-" + "A" * 86 + "=="})
    with pytest.raises(OSError, match="plain.tgz does not match"):
        live.fetch_editor(tmp_path / "cache", lock)
    assert not list((tmp_path / "cache").glob("plain*"))


def page_with_cells(site):
    block = live.html_block().split("\n", 1)[1].rsplit("\n", 1)[0]
    page = site / "chapters" / "a.html"
    page.parent.mkdir(parents=True)
    page.write_text('<head><script type="module" src="quarto.js"></script>'
                    f"</head><main><p>before</p>\n{block}\n<p>after</p></main>")
    other = site / "index.html"
    other.write_text("<main>no cells</main>")
    return page, other


def test_without_the_runtime_pages_lose_their_live_set_up(tmp_path):
    site = tmp_path / "site"
    page, other = page_with_cells(site)
    offline = (tmp_path / "unreachable.tgz").as_uri()
    note = live.install(site, cache=tmp_path / "cache", url=offline)
    assert note.startswith("note: the code cells stay static")
    assert "unreachable.tgz" in note and note.count(". ") == 0
    text = page.read_text()
    assert "live-config" not in text and "live.js" not in text
    assert "<p>before</p>" in text and "<p>after</p>" in text
    assert not (site / "pyodide").exists()
    assert other.read_text() == "<main>no cells</main>"


def test_install_copies_the_runtime_and_what_the_cells_import(package,
                                                              tmp_path):
    url, integrity = package
    cache = live.fetch(tmp_path / "cache", url, integrity)
    site = tmp_path / "site"
    page, _ = page_with_cells(site)
    before = page.read_text()
    assert live.install(site, cache=cache, editor=tmp_path / "editor",
                        lock=editor_lock(tmp_path)) is None
    after = page.read_text()  # the import map before every module script
    moved = live.IMPORT_MAP.search(before).group()
    assert after.startswith(f"<head>{moved}<script")
    assert after.replace(moved, "") == before.replace(moved, "")
    live.install(site, cache=cache, editor=tmp_path / "editor",
                 lock=editor_lock(tmp_path))
    assert page.read_text() == after  # the same when run twice
    assert sorted(p.name for p in (site / "pyodide").iterdir()) == \
        sorted(RUNTIME + ["NOTICE.txt"])  # MPL-2.0: licence and source
    assert "Mozilla Public License" in (site / "pyodide/NOTICE.txt"
                                        ).read_text()
    for name in ("backprop/engine.py", "backprop/checks.py"):
        assert (site / "live" / name).read_text() == \
            (ROOT / "code" / name).read_text()
    assert (site / "live/backprop/__init__.py").read_text() == ""
    config = json.loads(before.split('id="live-config">')[1]
                        .split("</script>")[0])
    for name in config["package"]:  # what live.js fetches is there
        assert (site / "live" / name).is_file()
    for name in ("@scope/view", "plain"):  # MIT: the licence beside it
        assert sorted(p.name for p in (site / "codemirror" / name).iterdir()
                      ) == ["LICENSE", "index.js"]


def test_without_the_editor_pages_lose_their_live_set_up(package, tmp_path):
    url, integrity = package
    cache = live.fetch(tmp_path / "cache", url, integrity)
    site = tmp_path / "site"
    page, _ = page_with_cells(site)
    lock = editor_lock(tmp_path)
    (tmp_path / "plain.tgz").unlink()  # offline
    note = live.install(site, cache=cache, editor=tmp_path / "editor",
                        lock=lock)
    assert note.startswith("note: the code cells stay static")
    assert "the editor's plain 6.1.0 could not be downloaded" in note
    assert note.count(". ") == 0
    assert "live-config" not in page.read_text()
    assert not (site / "pyodide").exists() and not (site / "codemirror"
                                                     ).exists()


# ---- the runner, as Pyodide runs it ----------------------------------------

def runner():
    sys.path.insert(0, str(ROOT / "explorers"))
    try:
        import live as runner_module
    finally:
        sys.path.pop(0)
    return runner_module


def test_runner_shows_the_last_expression_and_shares_one_namespace():
    run = runner().run
    names = {}
    assert run("x = 6\nx * 7", names) == (True, "42\n")
    assert run("print(x)\nNone", names) == (True, "6\n")


def test_runner_shows_the_readers_error_with_the_readers_line():
    run = runner().run
    ok, text = run("a = 1\nb = a / 0", {})
    assert not ok and 'File "<cell>", line 2' in text
    assert text.rstrip().endswith("ZeroDivisionError: division by zero")
    assert "live.py" not in text  # the runner's own frame is left out
    ok, text = run("def f(:\n    pass", {})
    assert not ok and "SyntaxError" in text and "ast.py" not in text


# ---- the chapters' live cells -----------------------------------------------

def live_pages():
    """{chapter: (prelude, [(label, source)])} for every page with live
    cells, as the page runs them."""
    pages = {}
    for path in qmd.chapters():
        _, cells = qmd.read_qmd(path)  # includes resolved, as rendered
        cells = [c for c in cells if c.kind == "code"]
        live_cells = [(c.label, c.source) for c in cells if "live" in
                      str(c.options.get("classes", "")).split()]
        if live_cells:
            block = next(c for c in cells if c.label.startswith("build-live"))
            call = block.source.split("print(", 1)[1].rsplit(")", 1)[0]
            pages[path.stem] = (eval(call, {"live": live}), live_cells)
    return pages


PAGE = textwrap.dedent("""
    import json, sys
    sys.modules["torch"] = None  # as in Pyodide: no torch to import
    sys.path[:0] = [sys.argv[1], sys.argv[2]]
    import live
    block, cells = json.load(sys.stdin)
    config = json.loads(block.split('id="live-config">')[1]
                        .split("</script>")[0])
    assert live.run(config["prelude"] or "None") == (True, "")
    for label, source in cells:
        print(json.dumps([label, *live.run(source)]))
""")


def run_page(block, cells, tmp_path):
    """Run a page's live cells as live.js does, in a fresh Python that
    cannot import torch and sees only what the site's live/ folder has."""
    site = tmp_path / "live"
    for name, source in live.PACKAGE.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(source.read_text() if source else "")
    result = subprocess.run(
        [sys.executable, "-I", "-c", PAGE, str(site), str(site)],
        input=json.dumps([block, cells]), capture_output=True, text=True,
        timeout=300, check=True)
    return [json.loads(line) for line in result.stdout.splitlines()]


def test_live_cells_are_the_engine_pages_and_their_exercises():
    pages = live_pages()  # the listed chapters with a cell of class live
    assert set(pages) == {path.stem for path in qmd.chapters()
                          if "#| classes: live" in path.read_text()}
    assert len(pages) >= 3
    labels = [label for _, cells in pages.values() for label, _ in cells]
    for label in labels:  # every live exercise has both of its cells
        kind, _, name = label.partition("-")
        if kind in ("starter", "check"):
            other = "check" if kind == "starter" else "starter"
            assert f"{other}-{name}" in labels


def test_every_live_cell_runs_without_torch_and_checks_say_not_yet(
        tmp_path):
    for chapter, (block, cells) in live_pages().items():
        results = run_page(block, cells, tmp_path / chapter)
        assert [r[0] for r in results] == [label for label, _ in cells]
        for label, ok, text in results:
            assert ok, f"{chapter}: {label} failed in the page:\n{text}"
            if label.startswith("check-"):
                assert text.startswith("not yet"), (label, text)


TANH_WRONG = textwrap.dedent("""
    def tanh(v):
        t = math.tanh(v.data)
        out = Value(t, (v,))

        def push_grad():
            v.grad += (1 - t) * out.grad

        out.push_grad = push_grad
        return out
""")


def test_a_live_check_tells_a_wrong_answer_from_a_right_one(tmp_path):
    block, cells = live_pages()["autograd"]
    labels = [label for label, _ in cells]
    upto = labels.index("check-tanh")
    attempt = cells[:upto + 1]
    wrong = [(lb, TANH_WRONG if lb == "starter-tanh" else src)
             for lb, src in attempt]
    right = [(lb, TANH_WRONG.replace("(1 - t)", "(1 - t * t)")
              if lb == "starter-tanh" else src) for lb, src in attempt]
    *_, (_, ok, said) = run_page(block, wrong, tmp_path / "wrong")
    assert ok and said.startswith("not yet")
    assert "finite differences" in said and "1 - t" not in said
    *_, (_, ok, said) = run_page(block, right, tmp_path / "right")
    assert ok and said.startswith("right")


# ---- in the rendered page ---------------------------------------------------

def type_into(page, text):
    """Replace the focused text box's contents, as typing would."""
    page.keyboard.press("Control+A")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(text)


# The right answer to Exercise 2.2 as a reader types it in CodeMirror,
# key by key: Enter keeps the indentation and indents after a colon; the
# end of the nested function takes Shift+Tab back to the left, then Tab.
TYPED = ["def tanh(v):", "Enter", "t = math.tanh(v.data)", "Enter",
         "out = Value(t, (v,))", "Enter", "Enter", "def push_grad():",
         "Enter", "v.grad += (1 - t * t) * out.grad", "Enter", "Enter",
         "Shift+Tab", "Shift+Tab", "Tab", "out.push_grad = push_grad",
         "Enter", "return out"]
KEYS = {"Enter", "Tab", "Shift+Tab"}


def editor_text(cell):
    return cell.locator(".cm-line").evaluate_all(
        "lines => lines.map((line) => line.textContent).join('\\n')")


def colour(page, selector, text):
    """The colour of the first element matching selector with that text."""
    return page.evaluate("([s, t]) => getComputedStyle([...document"
                         ".querySelectorAll(s)].find((e) => e.textContent "
                         "=== t)).color", [selector, text])


def test_a_reader_runs_an_exercise_in_the_page_from_the_keyboard(
        render_log):
    from browser import WatchedPage, chromium, serve
    from built import BOOK as book

    with serve(book) as origin, chromium() as browser:
        watched = WatchedPage(browser, origin)
        page = watched.page
        requested = []
        page.on("request", lambda r: requested.append(r.url))
        page.goto(f"{origin}/chapters/autograd.html")
        page.wait_for_selector("#starter-tanh .live-bar")
        assert not [u for u in requested if "/pyodide/" in u]  # not yet
        starter, check = page.locator("#starter-tanh"), page.locator(
            "#cell-check-tanh")
        # Stop while Python is still starting: the cell is free again
        check.get_by_role("button", name="Run").focus()
        page.keyboard.press("Enter")
        page.keyboard.press("Enter")  # the same button, now Stop
        check.locator(".live-output pre").filter(has_text="Stopped").wait_for(
            timeout=10_000)
        assert check.get_by_role("button", name="Run").is_visible()
        # Edit, by keyboard: the code becomes CodeMirror with the focus,
        # loaded now from this site
        assert not [u for u in requested if "/codemirror/" in u]
        starter.get_by_role("button", name="Edit").focus()
        page.keyboard.press("Enter")
        page.wait_for_selector("#starter-tanh .cm-content:focus")
        assert [u for u in requested if "/codemirror/" in u]
        # its Python is coloured as the page's code, in either theme
        tokens = {"def": "kw", "return": "cf", "None": "va",
                  "# your code": "co",  # and a docstring, as pandoc has it:
                  '"""A new Value, tanh of v, with its own push_grad."""':
                  "co"}
        for theme in ("light", "dark"):
            seen = {token: colour(page, ".cm-content span", token)
                    for token in tokens}
            page_colours = {token: colour(page, f"code span.{kind}", token)
                            for token, kind in tokens.items()}
            assert seen == page_colours, (theme, seen, page_colours)
            plain = page.evaluate("getComputedStyle(document.querySelector("
                                  "'.cm-content')).color")
            assert plain not in seen.values()  # each token is coloured
            page.evaluate("window.quartoToggleColorScheme()")
        assert colour(page, ".cm-content span", "def") != seen["def"]
        type_into(page, TANH_WRONG.strip())
        check.get_by_role("button", name="Run").focus()
        page.keyboard.press("Enter")  # runs the edited starter first
        verdict = check.locator(".live-output[role=status]")
        verdict.locator("pre").filter(has_text="not yet").wait_for(
            timeout=120_000)
        said = verdict.inner_text()
        assert "finite differences" in said and "✓" in said, said
        assert check.locator(".cell-output").first.is_hidden()
        # the right answer, typed with Enter and Tab
        starter.locator(".cm-content").focus()
        page.keyboard.press("Control+A")
        page.keyboard.press("Delete")
        for keys in TYPED:
            (page.keyboard.press if keys in KEYS else page.keyboard.type)(keys)
        assert editor_text(starter) == TANH_WRONG.replace(
            "(1 - t)", "(1 - t * t)").strip()
        # Escape, then Tab, leaves the editor for the cell's Run button
        page.keyboard.press("Escape")
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.textContent") == "Run"
        assert page.evaluate("document.activeElement.closest('.cell').id"
                             ) == "starter-tanh"
        starter.locator(".cm-content").focus()
        page.keyboard.press("Control+Enter")  # runs the starter itself
        # its run ends (Stop is Run again) before the check's begins
        starter.get_by_role("button", name="Run").wait_for(timeout=60_000)
        check.get_by_role("button", name="Run").focus()
        page.keyboard.press("Enter")
        verdict.locator("pre").filter(has_text="right").wait_for(
            timeout=60_000)
        assert verdict.inner_text().count("✗") == 0
        # an answer that does not run stops the check, which says so
        starter.locator(".cm-content").focus()
        type_into(page, "def tanh(v:\n    pass")
        check.get_by_role("button", name="Run").focus()
        page.keyboard.press("Enter")
        verdict.locator("pre").filter(has_text="Not run").wait_for()
        assert "SyntaxError" in starter.locator(".live-output").inner_text()
        # a cell that never ends: Stop ends it, and the page stays usable
        starter.locator(".cm-content").focus()
        type_into(page, "while True:\n    pass")
        page.keyboard.press("Control+Enter")
        stop = starter.get_by_role("button", name="Stop")
        stop.wait_for()
        page.wait_for_timeout(500)
        stop.focus()
        page.keyboard.press("Enter")
        starter.locator(".live-output pre").filter(
            has_text="Stopped").wait_for(timeout=10_000)
        assert [u for u in requested if "/pyodide/" in u]
        assert watched.problems() == {"other origins": [], "failed": [],
                                      "errors": []}


# an ES module's static import or re-export: what it names, then from
IMPORT = re.compile(r"""^(?:import|export)\s*(?:[\w$*{},\s]+from\s*)?"""
                    r"""['"]([^'"]+)['"]""", re.M)


def test_the_sites_editor_modules_import_only_what_its_map_names(
        render_log):
    from built import BOOK as book
    maps = set()
    for page in sorted(book.glob("chapters/*.html")):
        text = page.read_text(encoding="utf-8")
        if "live-config" not in text:
            continue
        found = live.IMPORT_MAP.search(text)
        assert found, page.name  # Firefox needs it before every module
        assert found.start() < text.index('type="module"'), page.name
        maps.add(found.group())
    assert len(maps) == 1
    imports = json.loads(maps.pop().split(">", 1)[1].rsplit("<", 2)[0]
                         )["imports"]
    for name, path in imports.items():
        module = (book / "chapters" / path).resolve()
        assert "Permission is hereby granted, free of charge" in (
            module.parent / "LICENSE").read_text(), name  # MIT, beside it
        for wanted in IMPORT.findall(module.read_text(encoding="utf-8")):
            assert wanted in imports, f"{name} imports {wanted}"
