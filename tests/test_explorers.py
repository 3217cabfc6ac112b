"""The explorers: their logic under node, their behaviour in Chromium.

The browser tests use a small page built here from the same markup the
chapters print, so they need no Quarto.
"""

import ast
import inspect
import json
import shutil
import subprocess

import pytest
from browser import WatchedPage, axe_violations, chromium, serve

from backprop import depth
from backprop.engine import Value, topological_order
from backprop.prose import count, fixed, sci
from backprop.tasks import diamond_graph, neuron_graph
from booktools import ROOT, explorers

NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="Node.js is not "
                                "installed (.ci/run installs it)")


@needs_node
def test_explorer_logic_under_node():
    result = subprocess.run([NODE, "--test", "tests/js/"], cwd=ROOT,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


@needs_node
def test_javascript_and_python_write_numbers_alike():
    values = [3.7e-9, 1.0, 169181.6, -0.0123, 9.999e-3, 0.25 ** 10]
    script = ("import('./explorers/common.js').then(m => console.log("
              f"JSON.stringify({json.dumps(values)}.map(v => m.sci(v)))))")
    out = subprocess.run([NODE, "-e", script], cwd=ROOT,
                         capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == [sci(v) for v in values]


def test_depth_data_carries_only_the_digits_it_shows():
    data = explorers.depth_data(depth.depth_sweep, depth.CLOSED,
                                depths=[1, 2, 3, 4])
    values = [v for run in data["runs"].values() for norms in run["norms"]
              for v in norms]
    assert values and all(v == float(f"{v:.3g}") for v in values)


def test_depth_data_is_the_chapter_function(tmp_path):
    data = explorers.depth_data(depth.depth_sweep, depth.CLOSED,
                                depths=[2, 6])
    run = data["runs"]["relu|xavier"]
    single = depth.gradient_diagnostic("relu", depth=6, init="xavier")
    # the same numbers, to the three significant digits it displays
    assert data["depths"][1] == 6
    assert run["norms"][1] == [float(f"{v:.3g}") for v in single["norms"]]
    assert run["changed"][1] == single["first_changed"]
    big = data["runs"]["sigmoid|scale 12"]
    single = depth.gradient_diagnostic("sigmoid", depth=6, scale=12)
    assert big["norms"][1] == [float(f"{v:.3g}") for v in single["norms"]]
    assert big["gate"][1] == float(f"{single['gate_mean']:.3g}")
    assert big["closed"][1] == round(single["gate_closed"], 3)
    settings = {f"{a}|{s}" for a in explorers.ACTIVATION_LABELS
                for s in [*explorers.INIT_LABELS,
                          *(f"scale {c}" for c in explorers.MULTIPLES)]}
    assert set(data["runs"]) == settings
    assert list(data["labels"]["init"]) == [*explorers.SCALES]


def test_depth_data_runs_the_sweep_it_is_given():
    # the chapter passes the depth_sweep whose source it shows; the
    # explorer imports none of the teaching package's functions
    calls = []

    def sweep(activation, depths, width, lr, **options):
        calls.append((activation, tuple(depths), width, lr, options))
        return [{"norms": [1.0] * d, "first_changed": d, "first_nonzero": d,
                 "gate_mean": 0.25, "gate_closed": 0.5} for d in depths]

    data = explorers.depth_data(sweep, 0.125, depths=[1, 2], width=4,
                                lr=0.5)
    assert len(calls) == len(explorers.ACTIVATION_LABELS) * len(
        explorers.SCALES)
    assert calls[0] == ("sigmoid", (1, 2), 4, 0.5, {"init": "naive 0.05"})
    assert data["closed"] == 0.125 and data["size"] == 16
    tree = ast.parse((ROOT / "code" / "booktools" / "explorers.py")
                     .read_text())
    assert {alias.name for node in ast.walk(tree)
            if isinstance(node, ast.Import | ast.ImportFrom)
            for alias in node.names} == {"json", "re", "Decimal",
                                         "ROUND_HALF_UP"}


def test_scale_labels_state_the_standard_deviation():
    # Xavier's and He's rules for 64-wide layers, as multiples of 1/sqrt(n)
    n = 64
    assert depth.INIT_STD["xavier"](n, n) * n**0.5 == 1.0
    assert depth.INIT_STD["he"](n, n) * n**0.5 == pytest.approx(2**0.5)
    labels = explorers.SCALE_LABELS
    assert labels["xavier"].startswith("std 1/√n")
    assert labels["he"].startswith("std √2/√n")
    for c in explorers.MULTIPLES:
        _, hidden, head = depth.build_mlp(2, n, scale=c)
        assert hidden[0].std().item() == pytest.approx(c / n**0.5, rel=0.05)
        assert labels[f"scale {c}"] == f"std {c}/√n"
    # the largest scale reaches past the point where the sigmoid's gradient
    # stops vanishing (tests/test_experiments.py)
    assert max(explorers.MULTIPLES) >= 16


def test_depth_data_fits_the_page_budget():
    # every chapter page stays within 250 kB (tests/test_render.py); the
    # explorer's data, as the page carries it, takes about an eighth
    data = explorers.depth_data(depth.depth_sweep, depth.CLOSED)
    html = explorers.raw_html("depth", data, "x.js")
    payload = html.split('json">', 1)[1].split("</script>", 1)[0]
    assert len(payload) < 32_000
    assert json.loads(payload) == data  # shortened, not changed


def stepped(named, digits=0):
    """step_data of a graph, with its nodes in a row and each rule named
    after its edge."""
    rules = {(consumer, parent): f"{consumer}-{parent} rule"
             for consumer, value in named.items()
             for parent in explorers.local_derivatives(value, named,
                                                       topological_order)}
    return explorers.step_data("A graph", "its formula", named, {
        name: (i, 0) for i, name in enumerate(named)}, rules,
        topological_order, digits)


def test_each_step_is_the_sum_over_consumers_and_ends_at_autograd():
    import torch

    data = stepped(neuron_graph(Value), digits=4)
    w, x, b = (torch.tensor(v, dtype=torch.float64, requires_grad=True)
               for v in (0.7, 2.0, -0.5))
    (0.5 * (torch.sigmoid(w * x + b) - 0.1) ** 2).backward()
    grads = {s["node"]: s["grad"] for s in data["steps"]}
    for name, tensor in {"w": w, "x": x, "b": b}.items():
        assert abs(grads[name] - tensor.grad.item()) < 1e-12
    # the loss first, each node after every node it feeds
    assert [s["node"] for s in data["steps"]][0] == "L"
    done = set()
    for step in data["steps"]:
        consumers = {c for p, c in data["edges"] if p == step["node"]}
        assert consumers <= done and {t["from"] for t in step["terms"]} == (
            consumers)
        done.add(step["node"])
    # the diamond, by hand: out = 2s + s^2, s = 3x at x = 1
    diamond = {s["node"]: s for s in stepped(diamond_graph(Value))["steps"]}
    assert diamond["s"]["grad"] == 2 + 2 * 3.0
    assert sorted(t["local"] for t in diamond["s"]["terms"]) == [2.0, 6.0]
    assert diamond["x"]["grad"] == 3 * (2 + 2 * 3.0)


def test_each_steps_arithmetic_adds_up_as_printed():
    data = stepped(neuron_graph(Value), digits=4)
    # at 4 decimals, 0.1256 (dL/dz) x 2 would print 0.2511 as 0.2512
    assert data["digits"] == 5
    assert explorers.adds_up(data["steps"], data["digits"])
    assert not explorers.adds_up(data["steps"], 4)
    wrong = [dict(step, grad=step["grad"] + 1e-4) if step["node"] == "w"
             else step for step in data["steps"]]
    assert not explorers.adds_up(wrong, data["digits"])


def test_the_stepper_shows_the_chapters_own_graphs(run_chapter):
    first, companion = run_chapter("backprop"), run_chapter("by-hand")
    given = inspect.signature(neuron_graph).parameters
    assert first.value("[w0, x0, b0, y0]") == [
        given[k].default for k in ("w", "x", "b", "y")]
    graphs = companion.value("step_graphs")
    neuron, diamond = ({s["node"]: s["grad"] for s in g["steps"]}
                       for g in graphs)
    assert abs(neuron["w"] - first.value("d_w")) < 1e-12
    assert abs(neuron["x"] - first.value("d_x")) < 1e-12
    assert diamond["x"] == companion.value(
        "(lambda x, out: (out.backward(), x.grad)[1])(*diamond())")
    for graph in graphs:
        assert explorers.adds_up(graph["steps"], graph["digits"])


def test_compact_numbers_read_back_the_same():
    text = json.dumps({"a": [1.5e-05, 1e+52, -2.25e-100, 0.0123, 4096],
                       "label": "std 1e-05"}, separators=(",", ":"))
    short = explorers.compact(text)
    assert short == ('{"a":[1.5e-5,1e52,-2.25e-100,0.0123,4096],'
                     '"label":"std 1e-05"}')  # text in strings stays
    assert json.loads(short) == json.loads(text)


@pytest.fixture(scope="module")
def page_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("explorer-page")
    shutil.copytree(ROOT / "explorers", root / "explorers")
    data = explorers.depth_data(depth.depth_sweep, depth.CLOSED,
                                depths=[1, 2, 3, 5, 8])  # starts at 8
    body = "\n".join([
        explorers.raw_html("depth", data, "explorers/depth-explorer.js"),
        explorers.raw_html("step", {"graphs": [
            stepped(neuron_graph(Value), digits=4),
            stepped(diamond_graph(Value))]},
            "explorers/step-explorer.js"),
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
        watched.page.wait_for_selector('[data-explorer="step"]'
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
    for _ in range(6):
        page.page.keyboard.press("Tab")
        order.append(page.page.evaluate("document.activeElement.id"))
    assert order == ["depth-explorer-app-activation",
                     "depth-explorer-app-init", "depth-explorer-app-depth",
                     "step-explorer-app-graph", "step-explorer-app-back",
                     "step-explorer-app-step"]


def test_every_control_has_a_label(page):
    for label in ("Activation", "Weight scale", "Depth (hidden layers)",
                  "Graph"):
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
    assert text.startswith("tanh, std √2/√n (He), 5 hidden layers: "
                           f"gradient norm {sci(norms[0])} at the first "
                           f"layer and {sci(norms[-1])} at the last")
    nonzero = run["nonzero"][3]
    assert (f"{count(nonzero)} of the 4,096 first-layer gradient entries "
            f"are nonzero" in text)
    assert f"would change {count(changed)} of the weights" in text
    assert (f"gates ϕ′(z) average {fixed(run['gate'][3], 3)}, and "
            f"{round(100 * run['closed'][3])}% of them are below 0.01."
            in text)
    assert page.page.locator("#depth-explorer-app output").inner_text() == "5"
    points = page.page.locator("#depth-explorer-app polyline").get_attribute(
        "points")
    assert len(points.split()) == 5  # one point per layer


def test_depth_explorer_reaches_the_large_scales(page, page_dir):
    data = json.loads((page_dir / "data.json").read_text())
    scale = page.page.locator("#depth-explorer-app-init")
    activation = page.page.locator("#depth-explorer-app-activation")
    activation.focus()
    page.page.keyboard.press("Home")  # back to the sigmoid
    assert activation.input_value() == "sigmoid"
    scale.focus()
    page.page.keyboard.press("End")  # the largest scale
    assert scale.input_value() == f"scale {explorers.MULTIPLES[-1]}"
    run = data["runs"][f"sigmoid|scale {explorers.MULTIPLES[-1]}"]
    at = data["depths"].index(int(page.page.locator(
        "#depth-explorer-app output").inner_text()))
    text = summary(page, "depth")
    assert text.startswith(f"Sigmoid, std {explorers.MULTIPLES[-1]}/√n, ")
    assert f"{round(100 * run['closed'][at])}% of them are below" in text


def test_stepper_walks_back_and_forth_from_the_keyboard(page):
    data = stepped(neuron_graph(Value), digits=4)
    steps, digits = data["steps"], data["digits"]
    page.page.locator("#step-explorer-app-step").focus()
    for _ in range(3):
        page.page.keyboard.press("Enter")
    z = steps[2]
    assert z["node"] == "z"
    (term,) = z["terms"]
    assert summary(page, "step") == (
        f"Step 3 of 7, node z: ∂L/∂z = "
        f"{fixed(term['upstream'], digits)} × {fixed(term['local'], digits)}"
        f" = {fixed(z['grad'], digits)}, the gradient at a times the local "
        "derivative a-z rule.")
    shown = page.page.locator("#step-explorer-app .node-grad")
    assert shown.all_text_contents().count("?") == 4  # w, x, b, wx to come
    assert page.page.locator("#step-explorer-app .edge-back").count() == 1
    page.page.keyboard.press("ArrowLeft")
    assert summary(page, "step").startswith("Step 2 of 7, node a: ")
    graph = page.page.locator("#step-explorer-app-graph")
    graph.focus()
    page.page.keyboard.press("ArrowDown")  # the diamond, from the start
    assert summary(page, "step").startswith("A graph: its formula. The "
                                            "forward pass")
    page.page.locator("#step-explorer-app-step").focus()
    for _ in range(4):
        page.page.keyboard.press("ArrowRight")
    assert summary(page, "step").endswith("s feeds 2 nodes, so the routes "
                                          "add.")
    assert page.page.locator("#step-explorer-app .edge-back").count() == 2
    page.page.keyboard.press("ArrowRight")  # x, the last
    page.page.keyboard.press("ArrowRight")  # past it: said, not silent
    assert summary(page, "step").startswith("That was the last step")
    for _ in range(5):
        page.page.keyboard.press("ArrowLeft")
    page.page.keyboard.press("ArrowLeft")
    assert summary(page, "step").startswith("This is the start")
    page.page.keyboard.press("ArrowRight")
    assert summary(page, "step").startswith("Step 1 of 5")


def test_plots_are_described_by_their_summaries(page):
    for kind in ("depth", "step"):
        svg = page.page.locator(f"#{kind}-explorer-app svg")
        assert svg.get_attribute("role") == "img"
        labelled_by = svg.get_attribute("aria-labelledby")
        assert labelled_by == f"{kind}-explorer-app-summary"
        live = page.page.locator(f"#{kind}-explorer-app-summary")
        assert live.get_attribute("aria-live") == "polite"


def test_axe_finds_no_violations(page):
    assert axe_violations(page.page) == []


def test_explorer_depths_reach_the_static_figure():
    # the chapter lists DEPTHS itself; the slider steps through them
    assert explorers.DEPTHS == sorted(set(explorers.DEPTHS))
    assert explorers.DEPTHS[0] == 1
    assert explorers.DEPTHS[-1] == 30  # the depth of the chapter's figure
