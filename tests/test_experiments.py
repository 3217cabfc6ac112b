"""The depth audit, the gates and the signal-energy experiment."""

import math

import pytest
import torch

from backprop import depth, energy


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
def test_depth_sweep_agrees_exactly_with_single_runs(activation):
    depths = [1, 5, 12]  # any depths, not only consecutive ones
    sweep = depth.depth_sweep(activation, depths, init="xavier")
    for d, result in zip(depths, sweep):
        assert result == depth.gradient_diagnostic(
            activation, depth=d, init="xavier")


def test_diagnostic_matches_an_nn_module_reference():
    # the same network written with torch.nn, differentiated by autograd
    x, hidden, head = depth.build_mlp(depth=5, width=16, batch=8)
    layers = []
    for W in hidden:
        linear = torch.nn.Linear(16, 16, bias=False).double()
        linear.weight.data.copy_(W.detach())
        layers += [linear, torch.nn.Tanh()]
    net = torch.nn.Sequential(*layers)
    (net(x) @ head.T).mean().backward()
    ours = depth.gradient_diagnostic("tanh", depth=5, width=16, batch=8)
    reference = [m.weight.grad.norm().item() for m in net
                 if isinstance(m, torch.nn.Linear)]
    assert ours["norms"] == pytest.approx(reference, rel=1e-12)


def test_xavier_std_matches_torch():
    n_in, n_out = 64, 32
    ours = depth.INIT_STD["xavier"](n_in, n_out)
    w = torch.empty(n_out, n_in)
    torch.manual_seed(0)
    torch.nn.init.xavier_normal_(w)
    assert w.std().item() == pytest.approx(ours, rel=0.05)


def test_gates_peak_and_kink():
    z = torch.arange(-600, 601) / 100
    sig, relu = depth.gate_derivatives(z)
    assert sig.max().item() == pytest.approx(0.25, abs=1e-12)
    assert z[sig.argmax()].item() == pytest.approx(0.0, abs=1e-6)
    assert sig.min().item() < 0.003  # saturation closes the gate
    assert relu[z < 0].eq(0).all() and relu[z > 0].eq(1).all()
    assert relu[z == 0].item() == 0  # PyTorch's choice at the kink


@pytest.fixture(scope="module")
def curves():
    return {name: energy.signal_std(std) for name, std in
            energy.SCHEMES.items()}


def test_he_keeps_the_signal_while_naive_scales_fail(curves):
    small, large, he = curves.values()
    assert len(he) == 40
    assert 0.25 < min(he) and max(he) < 4  # within a small factor of 1
    assert small[-1] < 1e-6  # std 0.05 collapses
    assert large[-1] > 1e3  # std 0.12 explodes


def test_measured_growth_matches_the_variance_formula(curves):
    # Var grows by n Var(w) / 2 per ReLU layer, so std by its square root
    for (name, stds), std in zip(curves.items(), energy.SCHEMES.values()):
        predicted = math.sqrt(energy.gain_per_layer(std))
        measured = (stds[-1] / stds[9]) ** (1 / 30)
        assert measured == pytest.approx(predicted, rel=0.05), name
