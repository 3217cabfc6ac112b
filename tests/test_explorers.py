"""The explorers: their logic under node, their behaviour in Chromium.

The browser tests use a small page built here from the same markup the
chapters print, so they need no Quarto.
"""

import json
import shutil
import subprocess

import pytest
from browser import WatchedPage, axe_violations, chromium, serve

from backprop import explorers
from backprop.prose import count, sci
from booktools import book

NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="Node.js is not "
                                "installed (.ci/run installs it)")


@needs_node
def test_explorer_logic_under_node():
    result = subprocess.run([NODE, "--test", "tests/js/"], cwd=book.ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@needs_node
def test_javascript_and_python_write_numbers_alike():
    values = [3.7e-9, 1.0, 169181.6, -0.0123, 9.999e-3, 0.25 ** 10]
    script = ("import('./explorers/common.js').then(m => console.log("
              f"JSON.stringify({json.dumps(values)}.map(v => m.sci(v)))))")
    out = subprocess.run([NODE, "-e", script], cwd=book.ROOT,
                         capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == [sci(v) for v in values]


def test_depth_data_carries_only_the_digits_it_shows():
    data = explorers.depth_data(depths=[1, 2, 3, 4])
    values = [v for run in data["runs"].values() for norms in run["norms"]
              for v in norms]
    assert values and all(v == float(f"{v:.3g}") for v in values)


def test_depth_data_is_the_chapter_function(tmp_path):
    from backprop import depth

    data = explorers.depth_data(depths=[2, 6])
    run = data["runs"]["relu|xavier"]
    single = depth.gradient_diagnostic("relu", depth=6, init="xavier")
    # the same numbers, to the three significant digits it displays
    assert data["depths"][1] == 6
    assert run["norms"][1] == [float(f"{v:.3g}") for v in single["norms"]]
    assert run["changed"][1] == single["first_changed"]
    settings = {f"{a}|{i}" for a in explorers.ACTIVATION_LABELS
                for i in explorers.INIT_LABELS}
    assert set(data["runs"]) == settings


@pytest.fixture(scope="module")
def page_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("explorer-page")
    shutil.copytree(book.ROOT / "explorers", root / "explorers")
    data = explorers.depth_data(depths=[1, 2, 3, 5, 8])  # starts at 8
    body = "\n".join([
        explorers.raw_html("depth", data, "explorers/depth-explorer.js"),
        explorers.raw_html("chain", explorers.chain_data(),
                           "explorers/chain-explorer.js"),
    ])
    (root / "index.html").write_text(f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>Explorer test page</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="explorers/explorer.css">
</head><body><main><h1>Explorers</h1>
{body}
</main></body></html>""")
    (root / "data.json").write_text(json.dumps(data))
    return root


@pytest.fixture(scope="module")
def page(page_dir):
    with serve(page_dir) as origin, chromium() as browser:
        watched = WatchedPage(browser, origin)
        watched.page.goto(f"{origin}/index.html")
        watched.page.wait_for_selector('[data-explorer="chain"]'
                                       '[data-ready="true"]')
        watched.page.wait_for_selector('[data-explorer="depth"]'
                                       '[data-ready="true"]')
        yield watched
        watched.page.screenshot(path=str(page_dir / "screenshot.png"),
                                full_page=True)


def summary(page, kind):
    return page.page.locator(f"#{kind}-explorer-app-summary").inner_text()


def test_page_is_self_contained_and_error_free(page):
    assert page.problems() == {"other origins": [], "failed": [],
                               "errors": []}


def test_keyboard_reaches_every_control_in_order(page):
    page.page.locator("h1").click()
    order = []
    for _ in range(5):
        page.page.keyboard.press("Tab")
        order.append(page.page.evaluate("document.activeElement.id"))
    assert order == ["depth-explorer-app-activation",
                     "depth-explorer-app-init", "depth-explorer-app-depth",
                     "chain-explorer-app-x", "chain-explorer-app-y"]


def test_every_control_has_a_label(page):
    for label in ("Activation", "Initialisation", "Depth (hidden layers)",
                  "x", "y"):
        assert page.page.get_by_label(label, exact=True).count() == 1


def test_depth_explorer_announces_the_precomputed_result(page, page_dir):
    data = json.loads((page_dir / "data.json").read_text())
    activation = page.page.locator("#depth-explorer-app-activation")
    activation.focus()
    page.page.keyboard.press("ArrowDown")  # sigmoid -> tanh
    assert activation.input_value() == "tanh"
    depth = page.page.locator("#depth-explorer-app-depth")
    depth.focus()
    page.page.keyboard.press("ArrowLeft")  # 8 -> 5 layers: the next depth
    assert depth.get_attribute("aria-valuetext") == "5 hidden layers"
    run = data["runs"]["tanh|he"]
    norms, changed = run["norms"][3], run["changed"][3]
    text = summary(page, "depth")
    assert text.startswith("tanh, He, 5 hidden layers: gradient norm "
                           f"{sci(norms[0])} at the first layer and "
                           f"{sci(norms[-1])} at the last")
    nonzero = run["nonzero"][3]
    assert (f"{count(nonzero)} of the 4,096 first-layer gradient entries "
            f"are nonzero" in text)
    assert f"would change {count(changed)} of the weights" in text
    assert page.page.locator("#depth-explorer-app output").inner_text() == "5"
    points = page.page.locator("#depth-explorer-app polyline").get_attribute(
        "points")
    assert len(points.split()) == 5  # one point per layer


def test_chain_explorer_follows_the_sliders(page):
    x = page.page.locator("#chain-explorer-app-x")
    x.focus()
    page.page.keyboard.press("ArrowRight")  # x: 2.0 -> 2.1
    text = summary(page, "chain")
    assert "contributes x = 2.10" in text
    assert "dz/dy = 3.10" in text  # x + 1, by hand
    assert "finite difference gives 3.1000" in text
    assert page.page.locator("#chain-explorer-app rect").count() == 3


def test_plots_are_described_by_their_summaries(page):
    for kind in ("depth", "chain"):
        svg = page.page.locator(f"#{kind}-explorer-app svg")
        assert svg.get_attribute("role") == "img"
        labelled_by = svg.get_attribute("aria-labelledby")
        assert labelled_by == f"{kind}-explorer-app-summary"
        live = page.page.locator(f"#{kind}-explorer-app-summary")
        assert live.get_attribute("aria-live") == "polite"


def test_axe_finds_no_violations(page):
    assert axe_violations(page.page) == []


def test_explorer_depths_are_as_the_chapter_describes_them():
    # the chapter: "every depth from DEPTHS[0] to DEPTHS[9], then every
    # fifth up to DEPTHS[-1]"
    first, rest = explorers.DEPTHS[:10], explorers.DEPTHS[9:]
    assert first == list(range(first[0], first[0] + 10))
    assert all(b - a == 5 for a, b in zip(rest, rest[1:]))
