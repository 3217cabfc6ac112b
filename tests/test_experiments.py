"""The depth audit, the gates, the signal's size, the fan-in and
fan-out rules, and the sigmoid at large weight scales."""

import math

import numpy as np
import pytest
import torch

from backprop import depth, energy, fans


@pytest.fixture(scope="module")
def diagnostics():
    return {name: depth.gradient_diagnostic(name) for name in
            ("sigmoid", "relu")}


def test_sigmoid_first_layer_is_nonzero_but_cannot_move(diagnostics):
    sig = diagnostics["sigmoid"]
    assert sig["first_size"] == 64 * 64
    assert sig["first_nonzero"] == 4096  # every entry survives float32
    assert sig["first_changed"] == 0  # yet no stored weight changes
    assert 0 < sig["first_max"] < 1e-12


def test_relu_first_layer_update_changes_every_weight(diagnostics):
    relu = diagnostics["relu"]
    assert relu["first_changed"] == 4096
    assert len(relu["norms"]) == 30


def test_sigmoid_norms_vanish_towards_the_input(diagnostics):
    sig, relu = diagnostics["sigmoid"]["norms"], diagnostics["relu"]["norms"]
    assert sig[-1] / sig[0] > 1e12
    assert max(relu) / min(relu) < 10


def test_audit_counts_against_float32_spacing():
    # Weights of 0.5: float32 numbers there are 2**-24 apart, so a step
    # of 0.1 * g moves the stored weight only if 0.1 * g exceeds half of
    # that spacing (derived by hand: g > 2**-25 / 0.1, about 3e-7).
    w = torch.full((2, 3), 0.5, dtype=torch.float64)
    g = torch.tensor([[1e-12, 1e-9, 1e-8], [1e-6, 1e-3, 0.0]],
                     dtype=torch.float64)
    result = depth.audit([w], [g], lr=0.1)
    assert result["first_size"] == 6
    assert result["first_nonzero"] == 5
    assert result["first_changed"] == 2  # only 1e-6 and 1e-3
    assert result["first_max"] == 1e-3
    assert result["norms"] == [pytest.approx(math.hypot(1e-3, 1e-6))]


def test_he_init_std_is_sqrt_two_over_fan_in():
    _, hidden, _ = depth.build_mlp(depth=3, width=512)
    assert hidden[0].std().item() == pytest.approx(math.sqrt(2 / 512),
                                                   rel=0.02)


def test_shallow_networks_are_prefixes_of_deep_ones():
    _, deep, head_deep = depth.build_mlp(depth=10)
    _, shallow, head = depth.build_mlp(depth=4)
    assert torch.equal(head, head_deep)
    for a, b in zip(shallow, deep):
        assert torch.equal(a, b)


@pytest.mark.parametrize("activation", ["sigmoid", "tanh", "relu"])
@pytest.mark.parametrize("scale", [{"init": "xavier"}, {"scale": 12}])
def test_depth_sweep_agrees_exactly_with_single_runs(activation, scale):
    depths = [1, 5, 12]  # any depths, not only consecutive ones
    sweep = depth.depth_sweep(activation, depths, **scale)
    for d, result in zip(depths, sweep):
        assert result == depth.gradient_diagnostic(
            activation, depth=d, **scale)


def nn_reference_norms(x, hidden, head, activation):
    """Each layer's weight-gradient norm for the same network written
    with torch.nn and differentiated by autograd."""
    layers = []
    for W in hidden:
        linear = torch.nn.Linear(*W.shape[::-1], bias=False).double()
        linear.weight.data.copy_(W.detach())
        layers += [linear, activation()]
    net = torch.nn.Sequential(*layers)
    (net(x) @ head.T).mean().backward()
    return [m.weight.grad.norm().item() for m in net
            if isinstance(m, torch.nn.Linear)]


def test_diagnostic_matches_an_nn_module_reference():
    # the same network written with torch.nn, differentiated by autograd
    x, hidden, head = depth.build_mlp(depth=5, width=16, batch=8)
    reference = nn_reference_norms(x, hidden, head, torch.nn.Tanh)
    ours = depth.gradient_diagnostic("tanh", depth=5, width=16, batch=8)
    assert ours["norms"] == pytest.approx(reference, rel=1e-12)


def test_xavier_std_matches_torch():
    n_in, n_out = 64, 32
    ours = depth.INIT_STD["xavier"](n_in, n_out)
    w = torch.empty(n_out, n_in)
    torch.manual_seed(0)
    torch.nn.init.xavier_normal_(w)
    assert w.std().item() == pytest.approx(ours, rel=0.05)


def test_gates_peak_and_kink(run_chapter):
    run = run_chapter("deep")  # the chapter's gate(), by autograd
    z = torch.tensor(run.value("z_grid.tolist()"), dtype=torch.float64)
    sig = torch.tensor(run.value("sig_gate.tolist()"), dtype=torch.float64)
    relu = torch.tensor(run.value("relu_gate.tolist()"), dtype=torch.float64)
    s = torch.sigmoid(z)
    torch.testing.assert_close(sig, s * (1 - s))  # derived by hand
    assert z[sig.argmax()].item() == pytest.approx(0.0, abs=1e-6)
    assert sig.min().item() < 0.003  # saturation closes the gate
    assert relu[z < 0].eq(0).all() and relu[z > 0].eq(1).all()
    assert relu[z == 0].item() == 0  # PyTorch's choice at the kink


SIGNAL_SCHEMES = ["naive 0.05", "naive 0.12", "he"]  # as in chapter 3


@pytest.fixture(scope="module")
def curves():
    return {name: energy.signal_std(depth.INIT_STD[name])
            for name in SIGNAL_SCHEMES}


def test_he_keeps_the_signal_while_naive_scales_fail(curves):
    small, large, he = curves.values()
    assert len(he) == 40
    assert 0.25 < min(he) and max(he) < 4  # within a small factor of 1
    assert small[-1] < 1e-6  # std 0.05 collapses
    assert large[-1] > 1e3  # std 0.12 explodes


def test_measured_growth_matches_the_variance_formula(curves):
    # Var grows by n Var(w) / 2 per ReLU layer, so std by its square root
    for name, stds in curves.items():
        var_w = {"naive 0.05": 0.05**2, "naive 0.12": 0.12**2,
                 "he": 2 / 256}[name]  # the schemes, written out by hand
        predicted = math.sqrt(256 * var_w / 2)
        assert energy.gain_per_layer(depth.INIT_STD[name]) == (
            pytest.approx(256 * var_w / 2))
        measured = (stds[-1] / stds[9]) ** (1 / 30)
        assert measured == pytest.approx(predicted, rel=0.05), name


# ---- the sigmoid at large weight scales (chapter 3, Table 3.1) ----------

@pytest.fixture(scope="module")
def scaled():
    return {c: depth.gradient_diagnostic("sigmoid", depth=30, scale=c)
            for c in (2**0.5, 8, 12, 16)}


def span(result):
    return result["norms"][-1] / result["norms"][0]


def numpy_gates(activation, c, layers=30, width=64):
    """phi'(z) at every pre-activation, by a numpy forward pass and the
    derivatives written out by hand."""
    x, hidden, _ = depth.build_mlp(layers, width, scale=c)
    h, gates = x.numpy(), []
    for W in hidden:
        z = h @ W.detach().numpy().T
        if activation == "sigmoid":
            h = 1 / (1 + np.exp(-z))
            gates.append(h * (1 - h))
        elif activation == "tanh":
            h = np.tanh(z)
            gates.append(1 / np.cosh(z) ** 2)
        else:
            h = np.maximum(z, 0)
            gates.append((z > 0).astype(float))
    return np.concatenate([g.ravel() for g in gates])


@pytest.mark.parametrize("activation", ["sigmoid", "tanh", "relu"])
def test_gate_statistics_match_a_numpy_forward_pass(activation):
    for c in (2**0.5, 12):
        gates = numpy_gates(activation, c)
        ours = depth.gradient_diagnostic(activation, scale=c)
        # 1 - tanh^2 loses digits where tanh is near 1: hence rel=1e-6
        assert ours["gate_mean"] == pytest.approx(gates.mean(), rel=1e-6)
        assert ours["gate_closed"] == pytest.approx(
            (gates < 0.01).mean(), abs=1 / gates.size)
        # every unit of every layer for every example: 128 x 64 x 30
        assert ours["gates"] == gates.size == 128 * 64 * 30
        assert abs(ours["gates_closed"] - (gates < 0.01).sum()) <= 1


def test_scale_sets_every_weight_std_to_c_over_root_n():
    _, hidden, head = depth.build_mlp(3, width=512, scale=12)
    for W in hidden:
        assert W.std().item() == pytest.approx(12 / 512**0.5, rel=0.02)
    # the output row has only 512 draws
    assert head.std().item() == pytest.approx(12 / 512**0.5, rel=0.1)
    # He's rule is the scale sqrt(2), bit for bit up to rounding
    _, he, _ = depth.build_mlp(3, width=64)
    _, c, _ = depth.build_mlp(3, width=64, scale=2**0.5)
    assert torch.allclose(he[0], c[0], rtol=1e-15, atol=0)


def test_scaled_ratio_matches_an_nn_module_reference(scaled):
    # the same network written with torch.nn, differentiated by autograd
    x, hidden, head = depth.build_mlp(30, scale=12)
    norms = nn_reference_norms(x, hidden, head, torch.nn.Sigmoid)
    assert span(scaled[12]) == pytest.approx(norms[-1] / norms[0],
                                             rel=1e-10)


def test_the_rough_ceiling_is_c_over_four():
    # by hand: 0.25 * sqrt(n) * (c / sqrt(n)) = c / 4, which passes 1 once
    # the weights' std passes 4 / sqrt(64) = 0.5
    n = 64
    for c in (1, 2**0.5, 4, 12):
        std = c / n**0.5
        assert 0.25 * math.sqrt(n) * std == pytest.approx(c / 4)
    assert 0.25 * math.sqrt(n) * 0.5 == 1


def test_a_large_scale_keeps_the_gradient_but_saturates(scaled):
    he, c8, c12, c16 = (scaled[c] for c in (2**0.5, 8, 12, 16))
    assert span(he) > 1e12  # He's scale: vanishing
    assert span(he) == pytest.approx(span(depth.gradient_diagnostic(
        "sigmoid")), rel=1e-9)
    assert 1 < span(c12) < 10  # c = 12: the gradient survives ...
    assert span(c16) < 0.1  # ... and c = 16 explodes towards the input
    assert c8["first_changed"] > 0.99 * 4096
    assert c12["first_changed"] == 4096
    assert he["gate_closed"] < 1e-3  # almost every gate is open at He
    assert c12["gate_closed"] > 0.5  # most are shut at c = 12
    means = [r["gate_mean"] for r in (he, c8, c12, c16)]
    assert all(b < a for a, b in zip(means, means[1:]))
    assert c12["gate_mean"] < 0.25 / 4


# ---- forward and backward: fan-in and fan-out (chapter 3, Figure 3.4) ---

WIDTHS = [2048, 1024, 512, 256, 128, 64, 32]


def test_predictions_match_values_derived_by_hand():
    # fan-in, Var(w) = 2/n_in: Var(z) = n_in * 2/n_in * E[x^2] = 2 at the
    # first layer and stays 2; the blame's variance halves per layer down
    fan_in = fans.predicted(WIDTHS, "fan_in")
    assert fan_in["signal"] == pytest.approx([2**0.5] * 6)
    assert fan_in["blame"] == pytest.approx(
        [2 ** (-(5 - k) / 2) for k in range(6)])
    # fan-out, Var(w) = 2/n_out = 4/n_in: Var(z) = 4, then doubles
    fan_out = fans.predicted(WIDTHS, "fan_out")
    assert fan_out["signal"] == pytest.approx(
        [2 ** ((k + 2) / 2) for k in range(6)])
    assert fan_out["blame"] == pytest.approx([1.0] * 6)


def test_kaiming_modes_are_two_over_fan_in_and_fan_out():
    torch.manual_seed(0)
    W = torch.empty(1000, 4000)
    torch.nn.init.kaiming_normal_(W, mode="fan_in", nonlinearity="relu")
    assert W.var().item() == pytest.approx(2 / 4000, rel=0.01)
    torch.nn.init.kaiming_normal_(W, mode="fan_out", nonlinearity="relu")
    assert W.var().item() == pytest.approx(2 / 1000, rel=0.01)


@pytest.mark.parametrize("mode", ["fan_in", "fan_out"])
def test_measured_sizes_follow_the_variance_rules(mode):
    measured = fans.signal_and_blame(WIDTHS, mode)
    expected = fans.predicted(WIDTHS, mode)
    for part in ("signal", "blame"):
        assert measured[part] == pytest.approx(expected[part], rel=0.1)
    assert measured["blame"][-1] == pytest.approx(1, rel=0.05)


def test_blame_is_the_gradient_of_the_stated_loss():
    # a second way to the blame: eq-recursion by hand on a small network
    torch.manual_seed(6050)
    widths = [8, 6, 4]
    x = torch.randn(5, 8, dtype=torch.float64)
    Ws = []
    for n_in, n_out in zip(widths, widths[1:]):
        W = torch.empty(n_out, n_in, dtype=torch.float64)
        torch.nn.init.kaiming_normal_(W, mode="fan_out",
                                      nonlinearity="relu")
        Ws.append(W)
    g = torch.randn(5, 4, dtype=torch.float64)
    z1 = x @ Ws[0].T
    z2 = torch.relu(z1) @ Ws[1].T
    delta1 = (g @ Ws[1]) * (z1 > 0)  # delta2 = g, then eq-recursion
    result = fans.signal_and_blame(widths, "fan_out", batch=5)
    assert result["signal"] == pytest.approx([z1.std().item(),
                                              z2.std().item()])
    assert result["blame"] == pytest.approx([delta1.std().item(),
                                             g.std().item()])



# ---- the training run of chapter 3 ------------------------------------------

def test_training_takes_gradient_steps_on_the_stated_loss():
    """Two steps of train_depth against the same steps written out with
    torch.autograd.grad and nn.functional.mse_loss."""
    from backprop.training_deep import target, train_depth

    run = train_depth(torch.sigmoid, depth.build_mlp(4), steps=2, lr=0.1)
    x, hidden, head = depth.build_mlp(4)
    t = target(x)
    params = [p.detach().clone().requires_grad_() for p in hidden + [head]]
    for step in range(2):
        h = x
        for W in params[:-1]:
            h = torch.sigmoid(h @ W.T)
        loss = torch.nn.functional.mse_loss(h @ params[-1].T, t)
        grads = torch.autograd.grad(loss, params)
        assert run["losses"][step] == pytest.approx(loss.item(), rel=1e-12)
        assert run["norms"][step] == pytest.approx(
            [g.norm().item() for g in grads], rel=1e-9)
        with torch.no_grad():
            params = [(p - 0.1 * g).requires_grad_()
                      for p, g in zip(params, grads)]
    # the best constant is the mean, and its loss the variance
    assert run["constant"] == pytest.approx(
        ((t - t.mean()) ** 2).mean().item(), rel=1e-12)


def test_training_shows_what_the_chapter_says(run_chapter):
    run = run_chapter("deep")
    best = run.value("best_constant")
    final = run.value("{k: r['losses'][-1] for k, r in trained.items()}")
    moved = run.value("{k: r['moved'][0] for k, r in trained.items()}")
    assert final["ReLU, He"] < best / 10  # it learns the target
    # the sigmoid with He's scale ends at the constant at every step tried,
    # under Adam too, and starts close to it: its output barely varies
    for name in ("sigmoid, He", "sigmoid, He, small step",
                 "sigmoid, He, large step", "sigmoid, He, Adam"):
        assert best * 0.99 < final[name] < best * 1.05, name
    first = run.value("trained['sigmoid, He']['losses'][0]")
    assert best < first < best * 1.05
    spread = run.value("spread")
    assert spread["sigmoid"] < 1e-12 < 0.1 < spread["relu"]
    # c = 12: a spike and the constant at the large step, learning at the
    # small one
    assert run.value("max(trained['sigmoid, c']['losses'])") > 1e4
    assert final["sigmoid, c"] == pytest.approx(best, rel=1e-3)
    assert final["sigmoid, c, small step"] < best / 5
    # Adam: its epsilon dwarfs the first layer's gradient, which moves it
    # little; without the epsilon it moves and the loss falls
    assert run.value("adam_eps") == 1e-8
    assert run.value("trained['sigmoid, He, Adam']['norms'][0, 0]") < 1e-8
    assert moved["sigmoid, He"] < moved["sigmoid, He, Adam"] < 1e-6
    assert moved["sigmoid, He, Adam, no eps"] > 1
    assert final["sigmoid, He, Adam, no eps"] < best / 2
    # training leaves the network it was given as build_mlp drew it
    assert run.value("all(torch.equal(a, b) for a, b in zip("
                     "nets['ReLU, He'][1][1], build_mlp(depth_t)[1]))")


def test_output_step_limit_parts_converging_from_diverging_steps():
    # gradient descent on the output row alone, a least-squares problem:
    # just under the limit it settles, just over it the row runs away
    from backprop.training_deep import output_step_limit

    gen = torch.Generator().manual_seed(6050)
    top = torch.rand(64, 8, dtype=torch.float64, generator=gen)
    t = torch.randn(64, 1, dtype=torch.float64, generator=gen)
    limit = output_step_limit(top)

    def last_loss(lr, steps=3000):
        w = torch.zeros(8, 1, dtype=torch.float64)
        for _ in range(steps):
            w -= lr * 2 * top.T @ (top @ w - t) / len(top)
        return ((top @ w - t) ** 2).mean().item()
    assert math.isfinite(last_loss(0.98 * limit))
    assert last_loss(0.98 * limit) < last_loss(0.0)
    assert last_loss(1.02 * limit) > 1e6 * last_loss(0.0)
