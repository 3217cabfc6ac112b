"""Every chapter executes, and what it tells the reader is true.

The chapters run in a real Jupyter kernel, cell by cell, with inline
expressions evaluated between cells, as Quarto runs them. The checks
compare what a reader sees with references computed here independently.
"""

import math
import re

import numpy as np
import pytest
import sources as qmd
import torch
from built import BOOK
from xor_reference import xor_descent

from backprop.prose import count, fixed

EXECUTABLE = [p for p in qmd.chapters() if "```{python}" in p.read_text()]


def shown(run, expr):
    """expr, evaluated in the chapter's namespace, as text. Tests read a
    chapter's values by name, so rewording a sentence breaks no test."""
    return run.value(f"str({expr})")


def printed(run, label):
    """Everything a cell printed."""
    cell = next(c for c in run.cells if c.options.get("label") == label)
    return "".join(o.get("text", "") for o in cell.outputs
                   if o.output_type == "stream")


@pytest.mark.parametrize("path", EXECUTABLE, ids=lambda p: p.name)
def test_chapter_executes_with_every_inline_value(path, run_chapter):
    # No time limit here: machines are shared (make bench prints times);
    # pytest-timeout in pyproject.toml is the guard against a hang.
    run = run_chapter(path.stem)
    values = [v for c in run.cells for _, v in c.inline]
    assert values and all(v.strip() for v in values)
    assert not any("Error" in v or "Traceback" in v for v in values)


def test_engine_matches_hand_derivation(run_chapter):
    run = run_chapter("autograd")
    # L = (a - y)^2 / 2 with a = sigma(w x + b), w = 0.7, x = 2, b = -0.5,
    # y = 0.1; by hand dL/dw = (a - y) a (1 - a) x
    z = 0.7 * 2.0 - 0.5
    s = 1 / (1 + math.exp(-z))
    # (the chapter reuses the name w later: read what the cell printed)
    by_hand = fixed((s - 0.1) * s * (1 - s) * 2.0, 6)
    assert f"Value engine: {by_hand}" in printed(run, "engine-check")
    assert by_hand == "0.251101"
    # the plain squared error (a - y)^2 with y = 0.3: by hand
    # dL/dw = 2 (a - y) a (1 - a) x, and torch.autograd agrees
    w = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)
    ((torch.sigmoid(w * 2.0 - 0.5) - 0.3) ** 2).backward()
    unhalved = fixed(2 * (s - 0.3) * s * (1 - s) * 2.0, 6)
    assert unhalved == fixed(w.grad, 6) == "0.337801"
    assert f"y = 0.3: Value engine {unhalved}" in printed(run,
                                                         "engine-unhalved")
    assert shown(run, "fixed(unhalved_grad(0.3)[0], 6)") == unhalved
    assert shown(run, "fixed(unhalved_grad(0.3)[1], 5)") == fixed(s - 0.3, 5)
    # at y = 0.1 dropping the half doubles the gradient, exactly
    assert run.value("unhalved_grad(0.1)[0]") == pytest.approx(
        2 * (s - 0.1) * s * (1 - s) * 2.0, rel=1e-12)
    # a - y feeds two products: its gradient is (a - y) / 2 from each
    assert shown(run, "fixed(half.data, 6)") == fixed((s - 0.1) / 2, 6)
    assert shown(run, "fixed(0.5 * half.grad, 6)") == fixed(
        (s - 0.1) / 2, 6)
    # and the two add up to the node's gradient, a - y (the name err is
    # gone by the end of the chapter: an `except ... as err` removes it)
    assert run.value("half.data + 0.5 * half.grad") == pytest.approx(s - 0.1)


def test_hand_written_gaps_are_rounding(run_chapter):
    run = run_chapter("backprop")
    gaps32, gaps64 = run.value("gaps32"), run.value("gaps64")
    assert set(gaps32) == {"W1", "b1", "W2", "b2"}
    assert max(gaps32.values()) < 1e-7  # float32 rounding level
    assert max(gaps64.values()) < 1e-15  # collapses in float64
    assert run.value("outer_gap") < 1e-6  # against autograd: rounding only


def test_depth_audit_as_printed(run_chapter):
    run = run_chapter("deep")
    assert shown(run, 'count(sig["first_nonzero"])') == "4,096"
    assert shown(run, 'count(sig["first_changed"])') == "0"
    assert shown(run, 'count(relu["first_changed"])') == "4,096"
    text = printed(run, "gate-values")
    assert "largest sigmoid gate: 0.2500 at z = 0.00" in text
    assert "ReLU gate at z = -1, 0, 1: [0.0, 0.0, 1.0]" in text


def test_gains_match_the_variance_formula(run_chapter):
    run = run_chapter("deep")
    # n Var(w) / 2 for n = 256, derived by hand
    assert shown(run, "fixed(gains[small])") == fixed(256 * 0.05**2 / 2)
    assert shown(run, "fixed(gains[large])") == fixed(256 * 0.12**2 / 2)
    assert shown(run, "fixed(gains[he_name])") == fixed(1.0)
    # the factor quoted before Figure 3.3 is the figure's own
    assert run.value("naive_gain") == pytest.approx(run.value("gains[small]"))


def test_rules_show_their_point(run_chapter):
    run = run_chapter("autograd")
    text = printed(run, "rule-accumulate")
    assert "tensor([2., 2., 2.])" in text and "tensor([4., 4., 4.])" in text
    assert "leaf? False" in printed(run, "rule-no-grad")
    assert "leaf? True" in printed(run, "rule-no-grad")
    assert "modified by an inplace operation" in " ".join(printed(
        run, "rule-in-place").split())
    assert "hidden.grad:     None" in printed(run, "rule-leaves")


def test_exercise_solutions_hold(run_chapter):
    assert run_chapter("deep").value('xavier["first_changed"]') == 0
    run = run_chapter("autograd")
    losses = run.value("tanh_losses")
    assert len(losses) == 50
    assert all(b < a for a, b in zip(losses, losses[1:]))
    with_zero, without = run.value("with_zero"), run.value("without_zero")
    assert with_zero[-1] < 0.05 < without[-1]
    assert all(b <= a for a, b in zip(with_zero, with_zero[1:]))
    assert run.value("rises") > 10  # without zeroing the loss oscillates


def test_companion_local_derivatives(run_chapter):
    text = printed(run_chapter("by-hand"), "local-derivatives")
    # upstream 5 at x = 3, y = -2: add passes 5, mul gives 5y and 5x
    assert "add:  dx =   5.0, dy =   5.0" in text
    assert "mul:  dx = -10.0, dy =  15.0" in text
    assert "dz = [0.0, 5.0, 5.0]" in text


def test_companion_paths_add(run_chapter):
    run = run_chapter("by-hand")
    x = 2.0  # at y = 3: dz/dy = x + 1 for z = x y + y
    for expr in ("yt.grad.item()", "yv.grad", "fd"):
        assert run.value(expr) == pytest.approx(x + 1, abs=1e-6)
    assert shown(run, "fixed(correct, 1)") == "24.0"


def test_companion_topological_order(run_chapter):
    results = run_chapter("by-hand").value("results")
    s = 3.0 * 1.0
    correct = 3 * (2 + 2 * s)  # by hand
    assert results["reverse topological order"] == correct
    # eager: s pushes u's share (2) once, then its full 2 + 2s twice,
    # because v = s * s lists s twice; x = 3 s scales each push by 3
    assert results["eager recursion"] == 3 * 2 + 2 * 3 * (2 + 2 * s)
    assert results["visit-once recursion"] == 3 * 2  # only u's share


def test_companion_graph_freeing(run_chapter):
    run = run_chapter("by-hand")
    freed_text = " ".join(printed(run, "freed").split())  # as wrapped
    assert "backward through the graph a second time" in freed_text
    assert run.value("second_pass") == "failed"
    # Additions save nothing, so the second pass runs: by hand, two
    # passes of d(sum(w + 1))/dw = 1 each.
    assert run.value("w_add.grad.tolist()") == [2.0, 2.0, 2.0]
    assert "[2.0, 2.0, 2.0]" in freed_text
    # d/dw [sum(h^2) + sum(3h)] with h = sigmoid(w), derived by hand
    h = 1 / (1 + np.exp(-np.array([0.5, -1.0])))
    expected = (2 * h + 3) * h * (1 - h)
    np.testing.assert_allclose(run.value("summed.tolist()"), expected,
                               rtol=1e-6)
    np.testing.assert_allclose(run.value("two_pass.tolist()"), expected,
                               rtol=1e-6)


def test_companion_pytorch_walk(run_chapter):
    text = printed(run_chapter("by-hand"), "walk")
    # by hand: r = 0.5*2 - 3 - 1 = -3; L = 9; dL/dw = 2r x; dL/dx = 2r w
    assert "loss 9.0" in text
    assert "inputs:  [-3.0, 6.0]" in text
    assert "weights: [-12.0, -18.0]" in text


def test_companion_vanishing_and_fixes(run_chapter):
    run = run_chapter("by-hand")
    grads = run.value("stack_grads")
    assert grads["sigmoid"] < 1e-8 < 1e-3 < grads["residual"]
    assert grads["relu"] > 1e-3
    plain, normed = run.value('norm_runs["plain"]'), run.value(
        'norm_runs["normalised"]')
    assert plain[0] > 1e3 and plain[1] > 1e3 and plain[2] > 1e3
    assert normed[0] == pytest.approx(1.0, abs=1e-2)  # by construction
    # "tames the explosion in both directions", "does not equalise"
    assert normed[1] < plain[1] / 1e3 and normed[2] < plain[2] / 1e3
    assert plain[2] > plain[1] and normed[1] > 10 * normed[2]  # turns round
    assert run.value("before") > 1
    assert run.value("after.item()") == pytest.approx(1.0, rel=1e-5)
    assert shown(run, "count(2 ** 10)") == count(1024)


def test_companion_what_gets_a_gradient(run_chapter):
    run = run_chapter("by-hand")
    assert run.value("logit.item()") > 0 > run.value("logit_adv.item()")
    change = run.value("(x_adv - x).abs().max().item()")
    assert change == pytest.approx(run.value("eps"))
    assert run.value("frozen_moved") == 0
    assert run.value("trained_moved") > 0
    assert run.value("caught['grad'].shape[0]") == 2


def test_companion_accumulation_equals_analytic_gradient(run_chapter):
    run = run_chapter("by-hand")
    X = np.array(run.value("X.tolist()"))
    y = np.array(run.value("y.tolist()"))
    W = np.array(run.value("model.weight.tolist()"))
    b = np.array(run.value("model.bias.tolist()"))
    residual = X @ W.T + b - y  # mean squared error, derived by hand
    grad_w = 2 / len(X) * residual.T @ X
    accumulated = np.array(run.value("accumulated[0].tolist()"))
    np.testing.assert_allclose(accumulated, grad_w, rtol=1e-5, atol=1e-6)


def test_companion_detach(run_chapter):
    run = run_chapter("by-hand")
    assert run.value("target.weight.grad is None")
    assert run.value("online.weight.grad is not None")
    assert run.value("missing") == ["encoder.weight", "encoder.bias"]


def test_depth_explorer_shows_the_static_figures_numbers(run_chapter):
    run = run_chapter("deep")
    at = run.value('explorer_data["depths"].index(len(diagnostics["relu"]'
                   '["norms"]))')  # the static figure's depth
    for name in ("sigmoid", "relu"):
        explorer = run.value(
            f'explorer_data["runs"]["{name}|he"]["norms"][{at}]')
        static = run.value(f'diagnostics["{name}"]["norms"]')
        # the same numbers, to the three digits that the explorer shows
        assert explorer == [float(f"{v:.3g}") for v in static]
        changed = run.value(f'explorer_data["runs"]["{name}|he"]["changed"]'
                            f"[{at}]")
        assert changed == run.value(f'diagnostics["{name}"]["first_changed"]')


def alt_text(chapter, label):
    """The alt text that the built page gives figure label's image (the
    figure div's fig-alt, its inline values filled in)."""
    import html

    from built import BOOK

    page = (BOOK / "chapters" / f"{chapter}.html").read_text("utf-8")
    found = re.search(rf'id="{label}".*?<img\b[^>]*\balt="([^"]*)"', page,
                      re.S)
    assert found, f"{label} has no image with alt text"
    alt = html.unescape(found.group(1))
    assert not re.search(r"[$\\`{}]", alt), alt  # plain text, no markup
    return alt


def test_alt_texts_describe_the_computed_figures(run_chapter, render_log):
    from backprop.prose import sci

    run = run_chapter("deep")
    sig = run.value('diagnostics["sigmoid"]["norms"]')
    relu = run.value('diagnostics["relu"]["norms"]')
    depth = alt_text("deep", "fig-depth")
    assert f"from {sci(sig[0], 1)} at layer 1" in depth
    assert f"between {fixed(min(relu), 2)} and {fixed(max(relu), 2)}" in depth
    assert max(abs(math.log10(v)) for v in relu) < 1  # near 1, as drawn
    size = alt_text("deep", "fig-signal-size")
    small, large = run.value("curves[small][-1]"), run.value(
        "curves[large][-1]")
    assert small < 1e-6 < 1e3 < large  # "falls" and "climbs", as said
    assert f"falls steadily to {sci(small, 1)}." in size
    assert f"climbs to {sci(large, 1)}." in size
    he = run.value("he_curve")
    assert all(0.5 < v < 1 for v in he)  # "roughly flat"
    assert f"between {fixed(min(he), 2)} and {fixed(max(he), 2)}." in size
    # ReLU of a normal z with E[x^2] = 1: Var = 1 - 1/pi, by hand
    assert shown(run, "fixed((1 - 1 / torch.pi) ** 0.5)") == "0.83"
    # the blame is smallest in the first hidden layer
    blame = run_chapter("backprop").value("blame_mag")
    assert blame[0] < blame[1] < blame[2]


def test_relu_halves_the_second_moment_not_the_variance(run_chapter):
    run = run_chapter("deep")
    # for a standard normal z: E[relu(z)^2] = 1/2 exactly, and
    # Var(relu(z)) = 1/2 - E[relu(z)]^2 = 1/2 - 1/(2 pi), by hand
    assert run.value("second_moment_ratio.item()") == pytest.approx(
        0.5, abs=0.005)
    assert run.value("variance_ratio.item()") == pytest.approx(
        0.5 - 1 / (2 * math.pi), abs=0.005)


def test_linear_default_scale_is_a_sixth_per_relu_layer(run_chapter):
    run = run_chapter("deep")
    # U(-a, a) with a = 1/sqrt(n) has variance a^2 / 3 = 1 / (3 n); a ReLU
    # layer multiplies Var(z) by n Var(w) / 2 = 1/6
    assert run.value("default_gain") == pytest.approx(1 / 6, abs=0.01)
    gain_shown = float(shown(run, "fixed(default_gain, 3)"))
    assert gain_shown == pytest.approx(1 / 6, abs=0.01)  # what the reader sees


def test_rules_show_the_scaled_leaf_and_the_early_step(run_chapter):
    run = run_chapter("autograd")
    # each tensor's name, then its line: leaf?, grad
    lines = printed(run, "rule-scaled-leaf").splitlines()[1::2]
    assert "leaf? False" in lines[0] and lines[0].endswith("grad: None")
    assert "leaf? True" in lines[1]
    assert lines[1].endswith("grad: tensor([1., 1., 1.])")
    # the graph keeps randn's leaf, whose gradient is d(0.01 t)/dt
    assert "leaf? True" in lines[2]
    assert lines[2].endswith("grad: tensor([0.0100, 0.0100, 0.0100])")
    assert shown(run, "fixed(unnamed.grad[0], 2)") == "0.01"
    assert "modified by an inplace operation" in " ".join(printed(
        run, "rule-step-too-early").split())


def test_blame_per_step_matches_the_rms_gate_estimate(run_chapter):
    from backprop import depth

    run = run_chapter("deep")
    # The blame dL/dz by the recursion, in numpy, with no autograd:
    # delta_l = (delta_{l+1} W_{l+1}) * a_l (1 - a_l), from the output mean.
    x, hidden, head = depth.build_mlp(30, 64, "he")
    h, acts = x.numpy(), []
    for W in hidden:
        h = 1 / (1 + np.exp(-(h @ W.detach().numpy().T)))
        acts.append(h)
    delta = np.ones((len(x), 1)) / len(x) @ head.numpy()
    delta = delta * acts[-1] * (1 - acts[-1])
    norms = [np.linalg.norm(delta)]
    for W, a in zip(hidden[:0:-1], acts[-2::-1]):
        delta = (delta @ W.detach().numpy()) * a * (1 - a)
        norms.insert(0, np.linalg.norm(delta))
    step = (norms[-1] / norms[0]) ** (1 / 29)
    assert run.value("blame_step") == pytest.approx(step, rel=1e-9)
    gates = np.concatenate([(a * (1 - a)).ravel() for a in acts])
    rms = np.sqrt((gates**2).mean())
    assert run.value("rms_gate") == pytest.approx(rms, rel=1e-9)
    # "close to the measurement": sqrt(n) std(w) rms gate, within 5 %
    assert 8 * (2 / 64) ** 0.5 * rms == pytest.approx(1 / step, rel=0.05)
    assert run.value("rms_step") == pytest.approx(8 * (2 / 64) ** 0.5 * rms)
    assert run.value("he_ceiling") > 1 / step  # the ceiling errs high


def test_xavier_is_smaller_than_he_here_and_does_worse(run_chapter):
    run = run_chapter("deep")
    # by hand, for 64 -> 64 layers: Xavier sqrt(2/128) = 1/8, He sqrt(2)/8
    assert shown(run, "fixed(xavier_std, 3)") == fixed(1 / 8, 3)
    assert shown(run, "fixed(he_std, 3)") == fixed(2**0.5 / 8, 3)
    assert run.value("xavier_span") > 100 * run.value("sig_span")
    # Xavier here is the gain 1 of the table, to rounding
    assert run.value("xavier_span") == pytest.approx(
        run.value("scale_span(1)"), rel=1e-9)


def test_sigmoid_scale_table_and_text(run_chapter):
    from test_experiments import numpy_gates


    run = run_chapter("deep")
    cell = next(c for c in run.cells
                if c.options.get("label") == "sigmoid-scale-table")
    table = cell.outputs[0]["data"]["text/markdown"].splitlines()[2:]
    cs = [1, 2**0.5, 2, 4, 8, 12, 16]
    assert len(table) == len(cs)
    for row, c in zip(table, cs):
        cells = [x.strip() for x in row.strip("|").split("|")]
        assert cells[1] == fixed(0.25 * 64**0.5 * (c / 64**0.5))  # c / 4
    # the saturation the reader is shown, recomputed with numpy
    rescue = run.value("rescue_c")
    assert rescue == 12
    gates = numpy_gates("sigmoid", rescue)
    closed_shown = shown(run, "Prose(f\"{rescue['gate_closed']:.0%}\")")
    assert closed_shown == f"{(gates < 0.01).mean():.0%}"
    assert shown(run, 'fixed(rescue["gate_mean"], 3)') == fixed(
        gates.mean(), 3)
    assert float(closed_shown.rstrip("%")) > 50  # "most of the units"
    assert 1 < run.value("scale_span(rescue_c)") < 10
    assert run.value("scale_span(16)") < 1  # "now explodes"
    # the caption's numbers, as the site prints them
    page = (BOOK / "chapters" / "deep.html").read_text(encoding="utf-8")
    raw = re.search(r"Table&nbsp;3\.1: The .*?</figcaption>", page,
                    re.S).group(0)
    caption = " ".join(re.sub(r"<[^>]+>", " ", raw).split())
    assert f"below {run.value('CLOSED')}; and their mean" in caption
    assert "The 30-layer sigmoid network" in caption
    assert f"first layer’s {count(64 * 64)} float32" in caption
    assert re.search(r"<msqrt>\s*<mn>64</mn>\s*</msqrt>", raw), raw


def test_fan_modes_alt_text_and_numbers(run_chapter, render_log):
    run = run_chapter("deep")
    alt = alt_text("deep", "fig-fan-modes")
    fan_in = run.value('fan["fan_in"]')
    fan_out = run.value('fan["fan_out"]')
    assert all(abs(v - 2 ** 0.5) < 0.15 for v in fan_in["signal"])  # flat
    assert (f"between {fixed(min(fan_in['signal']), 1)} and "
            f"{fixed(max(fan_in['signal']), 1)};") in alt
    assert (f"grows from {fixed(fan_out['signal'][0], 1)} at layer 1 to "
            f"{fixed(fan_out['signal'][-1], 1)} at the last layer") in alt
    assert fan_out["signal"][0] < fan_out["signal"][-1]
    assert f"to {fixed(fan_in['blame'][0], 2)} at layer 1" in alt
    assert fan_in["blame"][0] < fan_in["blame"][-1]  # "falls"
    assert all(abs(v - 1) < 0.1 for v in fan_out["blame"])  # flat near 1
    # the telescoped mismatch, by hand: 2048 / 32 = 64, sqrt(64) = 8
    assert shown(run, "count(widths[0] // widths[-1])") == "64"
    assert shown(run, "fixed((widths[0] / widths[-1]) ** 0.5, 0)") == "8"


def test_cost_section_numbers_follow_from_the_shapes(run_chapter):
    run = run_chapter("autograd")
    forward = 2 * 128 * (64 * 64 + 64 * 64 + 64 * 1)  # three products
    backward = 2 * forward - 2 * 128 * 64 * 64  # no input gradient
    assert run.value("fwd_flops") == forward
    assert shown(run, "fixed(bwd_flops / fwd_flops)") == fixed(
        backward / forward)
    assert "2 x 128 x 32 x 64 = 524,288" in printed(run, "cost-calibrate")
    # one float32 tensor of 128 x 64 per layer: the ReLU's output, which
    # is also the next layer's input, saved twice and stored once
    assert run.value("per_layer") == 128 * 64 * 4
    assert run.value("largest_gap") == 0
    assert run.value("best_segments") == [8]  # sqrt(64), and only 8
    # three counts of the 64-layer network: hooks, graph walk, shapes
    by_hand = (1 + 64) * 128 * 64 * 4 + 128 * 4
    assert run.value("hooked") == run.value("walked") == by_hand
    assert (run.value("n_saved"), run.value("n_storages")) == (130, 66)
    assert "predict every count: True" in printed(run,
                                                   "checkpoint-solution")


def test_cost_alt_texts_describe_the_computed_figures(run_chapter,
                                                     render_log):
    from backprop.prose import sci

    run = run_chapter("autograd")
    cost = alt_text("autograd", "fig-cost")
    last, sizes = run.value("costs[-1]"), run.value("cost_sizes")
    assert f"from {count(sizes[0])} to {count(sizes[-1])}." in cost
    assert (f"to {sci(last['finite differences'], 1)} and "
            f"{sci(last['forward mode'], 1)} FLOPs") in cost
    assert f"to {sci(last['reverse mode'], 1)} FLOPs" in cost
    # the chapter's counts, by the shape formula: a 16-128-128-1 network
    # on a batch of 32 has 2 * 32 * (16*128 + 128*128 + 128) FLOPs forward
    assert last["forward pass"] == 2 * 32 * (16 * 128 + 128 * 128 + 128)
    # a jvp is one reverse-mode gradient plus the input's product, by hand
    assert run.value("jvp_extra") == 2 * 32 * 16 * 128
    memory = alt_text("autograd", "fig-memory")
    plain = run.value('deepest["plain bytes"]')
    assert f"line to {count(round(plain / 1024))} KiB" in memory
    kept = run.value('deepest["checkpointed bytes"]')
    assert f"slowly, to {count(round(kept / 1024))} KiB" in memory


def test_numbers_on_the_graph_match_autograd(run_chapter, render_log):
    import torch

    run = run_chapter("backprop")
    w = torch.tensor(0.7, requires_grad=True)
    b = torch.tensor(-0.5, requires_grad=True)
    # the half squared error with target 0.1 (chapter 1's neuron)
    (0.5 * (torch.sigmoid(w * 2.0 + b) - 0.1) ** 2).backward()
    assert run.value("d_w") == pytest.approx(w.grad.item(), rel=1e-6)
    assert run.value("d_b") == pytest.approx(b.grad.item(), rel=1e-6)
    assert shown(run, "fixed(d_w, 4)") == fixed(w.grad.item(), 4)
    alt = alt_text("backprop", "fig-numeric")
    assert f"carries 0.7 above and {w.grad.item():.4f} below" in alt
    assert f"carries −0.5 above and {b.grad.item():.4f} below" in alt
    loss = 0.5 * (1 / (1 + math.exp(-(0.7 * 2.0 - 0.5))) - 0.1) ** 2
    assert f"the loss {loss:.4f} above and 1 below" in alt


def test_softmax_check_holds(run_chapter):
    assert run_chapter("by-hand").value("softmax_gap") < 1e-6


def test_first_layer_drop_comes_from_the_zero_mean_input(run_chapter):
    text = printed(run_chapter("deep"), "first-layer-input")
    raw, positive = (float(line.rsplit("= ", 1)[1])
                     for line in text.splitlines())
    assert raw > 10 and positive < 4  # the jump goes with the sign mix


def test_new_exercise_solutions_hold(run_chapter):
    import torch

    from backprop.checks import BY_HAND as n

    run = run_chapter("backprop")
    w = torch.tensor(n["w"], requires_grad=True)
    (0.5 * (torch.sigmoid(w * n["x"] + n["b"]) - n["y"]) ** 2).backward()
    assert run.value("d_z_ex * x_ex") == pytest.approx(w.grad.item())
    # the solution's figures, printed to five decimals, multiply as printed
    shown = {name: round(run.value(expr), 5) for name, expr in [
        ("blame", "a_ex - y_ex"), ("gate", "gate_ex"), ("dz", "d_z_ex"),
        ("dw", "d_z_ex * x_ex"), ("dx", "d_z_ex * w_ex")]}
    assert round(shown["blame"] * shown["gate"], 5) == shown["dz"]
    assert round(shown["dz"] * n["x"], 5) == shown["dw"]
    assert round(shown["dz"] * n["w"], 5) == shown["dx"]
    errors = run.value("check_errors")
    assert min(errors.values()) < 1e-7  # our gradient passes the check
    assert errors["1e-10"] > errors["0.0001"]  # rounding at tiny h
    gaps = run.value("bug_gaps")
    assert gaps[0] > 1e-3 and gaps[1] > 1e-3 and gaps[2] < 1e-6
    run = run_chapter("autograd")
    assert run.value("max(ops_gaps)") < 1e-12
    predictions = run.value("final_predictions")
    assert [p > 0.5 for p in predictions] == [False, True, True, False]
    assert run.value("solved_at") <= 400


def test_xor_exercise_is_reproducible_from_its_prompt(run_chapter):
    # the prompt's recipe, rebuilt with torch.autograd: weights drawn
    # from random.Random(6050) neuron by neuron, biases 0, summed squared
    # error, full-batch steps with learning rate 2.0
    run = run_chapter("autograd")
    losses, solved, _, _ = xor_descent(6050)
    assert run.value("solved_at") == solved
    assert run.value("xor_losses") == pytest.approx(losses, rel=1e-9)
    counts = run.value("list(other_seeds.values())")
    assert None not in counts and len(set(counts)) > 1  # seed-dependent


def test_cross_entropy_gate_cancels_as_derived(run_chapter):
    run = run_chapter("by-hand")
    a, y = 0.99, 0.0  # by hand: dL/dz = a - y for the cross-entropy,
    assert run.value("bce_grad.item()") == pytest.approx(a - y, rel=1e-9)
    # and (a - y) a (1 - a) for the half squared error
    assert run.value("mse_grad.item()") == pytest.approx(
        (a - y) * a * (1 - a), rel=1e-9)


def test_chapter_three_exercises_hold(run_chapter):
    import torch

    run = run_chapter("deep")
    # float32 keeps 24 significant bits: numbers in [1/8, 1/4) lie 2^-26
    # apart, and a step moves 0.2 once it passes half of that
    assert run.value("g_needed") == pytest.approx(2.0**-27 / 0.1)
    assert printed(run, "float32-solution").count("changed? ") == 2
    assert "changed? False" in printed(run, "float32-solution")
    assert "changed? True" in printed(run, "float32-solution")
    assert run.value('sig["first_max"]') < run.value("g_needed") / 1e6
    # the leaky-ReLU scale, derived by hand, is PyTorch's
    alpha, width = 0.2, 256
    gain = torch.nn.init.calculate_gain("leaky_relu", alpha)
    assert run.value("derived_std") == pytest.approx(gain / width**0.5)
    derived = run.value('leaky_curves["derived"]')
    assert 0.5 < min(derived) and max(derived) < 1.5  # steady
    # He's weights are sqrt(1 + alpha^2) times the derived ones, with the
    # same draws, and a leaky ReLU passes a positive factor through: after
    # 40 layers the ratio is exactly (1 + alpha^2)^(40/2)
    predicted = (1 + alpha**2) ** (40 / 2)
    assert run.value("leaky_ratio") == pytest.approx(predicted, rel=1e-6)


def test_the_explorers_suggestions_in_print_run(run_chapter):
    # print and notebooks give the depth explorer's settings as code to
    # try: it must run in the chapter as written
    source = (qmd.ROOT / "chapters" / "deep.qmd").read_text()
    block = re.search(r"try its suggestions here.*?```python\n(.*?)```",
                      source, re.DOTALL).group(1)
    run = run_chapter("deep")
    assert run.value(f"exec({block!r}, globals()) is None")


def test_the_mean_output_loss_makes_the_first_layer_blame_agree(run_chapter):
    run = run_chapter("deep")
    mean, squared = (run.value(f'by_loss["{name}"]')
                     for name in ("mean output", "squared error"))
    # the same network through gradient_diagnostic, a separate forward pass
    norms = run.value('diagnostics["sigmoid"]["norms"]')
    assert mean["span"] == pytest.approx(norms[-1] / norms[0], rel=1e-9)
    assert mean["ratio"] == pytest.approx(norms[1] / norms[0], rel=1e-9)
    # what the prose says: signs agree with the mean output, about half
    # agree with the squared error, and the steep first step goes with it
    assert mean["agreement"] > 0.9 and abs(squared["agreement"] - 0.5) < 0.1
    assert squared["ratio"] < 3 < 10 < mean["ratio"]
    assert squared["span"] < mean["span"] / 10
    # the mean output's first-layer audit is gradient_diagnostic's; with
    # the squared error the first layer still cannot move
    sig = run.value('diagnostics["sigmoid"]')
    assert mean["first_max"] == pytest.approx(sig["first_max"], rel=1e-9)
    assert mean["first_changed"] == sig["first_changed"] == 0
    assert squared["first_changed"] == 0 and squared["first_max"] < 1e-12


def test_backward_frees_what_a_kept_loss_would_hold(run_chapter):
    run = run_chapter("autograd")
    lines = printed(run, "rule-lifetime").splitlines()
    # ten graphs of a 64-512-1 network on batches of 256, never run back:
    # each saves its input, the ReLU's output and the output, in float32
    by_hand = 10 * 256 * (64 + 512 + 1) * 4
    assert lines[0] == "10 losses kept after backward(): 0 saved bytes held"
    assert lines[1] == (f"10 losses kept without backward(): {by_hand:,} "
                        "saved bytes held")


def test_vjp_api_gives_v_times_the_jacobian_by_hand(run_chapter):
    run = run_chapter("autograd")
    # y = tanh(W x): J = diag(1 - y^2) W, in numpy from the cell's data
    W, x, v = (np.array(run.value(f"{k}.tolist()")) for k in (
        "W_t", "x_t.detach()", "v_row"))
    y = np.tanh(W @ x)
    by_numpy = (v * (1 - y**2)) @ W
    np.testing.assert_allclose(run.value("vjp_by_hand.tolist()"), by_numpy,
                               rtol=1e-12)
    assert max(run.value("api_gaps").values()) < 1e-14
    assert ("without v: grad can be implicitly created only for scalar "
            "outputs") in printed(run, "vjp-api")


def test_gradcheck_and_kinks_as_the_text_says(run_chapter):
    run = run_chapter("autograd")
    assert "gradcheck, float64: True" in printed(run, "function-sigmoid")
    assert run.value("passed32") is False
    gaps = run.value("{str(k): v for k, v in fd_gap.items()}")
    # central differences of the sigmoid, h = 1e-6: float64 keeps about
    # 1e-10, float32 misses the slope in the second decimal
    assert gaps["torch.float64"] < 1e-9 and gaps["torch.float32"] > 1e-3
    assert run.value("gradcheck_defaults") == {"eps": 1e-6, "atol": 1e-5,
                                               "rtol": 1e-3}
    # half of float32's spacing in [1/2, 1), 2^-24 / 2, over h = 1e-6; the
    # allowance atol + rtol * 1/4; the float32 error is far above it
    assert shown(run, "fixed(100 * 2.0**-25 / eps, 0)") == "3"
    assert run.value("allowance") == pytest.approx(1e-5 + 1e-3 / 4)
    assert gaps["torch.float32"] > 10 * run.value("allowance")
    # relu at 0, +-3e-7 and 0.5: backward 0, 1, 0, 1; a central difference
    # with h = 1e-6 sees (p + h) / 2h on the positive side of 0 at p = 3e-7
    assert run.value("at.grad.tolist()") == [0.0, 1.0, 0.0, 1.0]
    central = run.value("central.tolist()")
    assert central == pytest.approx([0.5, 0.65, 0.35, 1.0])
    assert run.value("kink_pass") is False
    # a three-way tie: a third each, where a central difference sees a half
    assert run.value("tied.grad.tolist()") == pytest.approx([1 / 3] * 3)
    assert run.value("tie_pass") is False
