"""The cost section: FLOP counts derived by hand, three gradients that
agree, and the memory that reverse mode keeps, counted from the shapes
and by walking the graph. No test measures time."""

import math

import pytest
import torch

from backprop import cost, modes, saved


def linear_products(widths, batch):
    """FLOPs of the forward products of an MLP: 2 per multiply-add."""
    return sum(2 * batch * n_in * n_out
               for n_in, n_out in zip(widths, widths[1:]))


def test_a_matrix_product_costs_two_flops_per_multiply_add():
    flops, _ = cost.counted(lambda: torch.randn(5, 7) @ torch.randn(7, 3))
    assert flops == 2 * 5 * 3 * 7


@pytest.mark.parametrize("widths", [[64, 64, 64, 1], [3, 10, 2],
                                    [16, 8, 8, 8, 1]])
def test_backward_is_twice_forward_less_the_first_input_gradient(widths):
    batch = 12
    model = cost.mlp(widths)
    forward, backward = cost.forward_backward_flops(
        model, torch.randn(batch, widths[0]))
    assert forward == linear_products(widths, batch)
    # weight gradient and input gradient per layer, except the first
    # layer's input gradient: the input needs none
    assert backward == 2 * forward - 2 * batch * widths[0] * widths[1]


def test_the_three_gradients_agree_in_float64():
    torch.manual_seed(1)
    model = cost.mlp([3, 5, 4, 1], dtype=torch.float64)
    x = torch.randn(10, 3, dtype=torch.float64)
    reverse = modes.reverse_mode(model, x)
    assert reverse.numel() == cost.n_params(model)
    torch.testing.assert_close(modes.forward_mode(model, x), reverse,
                               rtol=1e-12, atol=1e-14)
    # central differences, h = 1e-6: error O(h^2) + O(eps / h)
    torch.testing.assert_close(modes.finite_differences(model, x), reverse,
                               rtol=0, atol=1e-8)
    # and autograd's own gradient, taken through .backward()
    modes.loss_of(model, x).backward()
    torch.testing.assert_close(
        torch.cat([p.grad.flatten() for p in model.parameters()]), reverse)


def test_gradient_flops_grow_as_stated():
    x = torch.randn(8, 4)
    small, large = (modes.gradient_flops(cost.mlp([4, w, w, 1]), x)
                    for w in (8, 32))
    P = [cost.n_params(cost.mlp([4, w, w, 1])) for w in (8, 32)]
    for c, p in zip((small, large), P):
        assert c["finite differences"] == 2 * p * c["forward pass"]
        assert 2 < c["reverse mode"] / c["forward pass"] < 3
    # forward mode: P passes, each growing with the width too
    slope = math.log(large["forward mode"] / small["forward mode"]) / (
        math.log(P[1] / P[0]))
    assert 1.7 < slope < 2.2


def by_shapes(depth, width, batch):
    """Bytes the backward pass needs, counted by hand from the shapes: the
    input (for the first layer's weight gradient), one ReLU output per
    hidden layer (for the ReLU's gate and for the next layer's weight
    gradient: one tensor, saved twice) and the network's output (for the
    squared loss), all float32."""
    return (1 + depth) * batch * width * 4 + batch * 1 * 4


@pytest.mark.parametrize("depth, width, batch", [(1, 8, 16), (5, 8, 16),
                                                 (64, 64, 128)])
def test_saved_memory_counts_each_storage_once(depth, width, batch):
    model = cost.mlp([width] * (depth + 1) + [1])
    hooked, loss = saved.saved_bytes(model, torch.randn(batch, width))
    n_saved, n_storages, walked = saved.saved_by_graph(loss, model)
    assert hooked == walked == by_shapes(depth, width, batch)
    assert n_storages == depth + 2
    assert n_saved == 2 * depth + 2  # every ReLU output saved twice


def test_memory_numbers_of_the_review():
    # counted once per storage: 32,768 bytes per layer of 128 x 64,
    # 2,130,432 at 64 layers, 524,800 with 8 checkpoint segments
    x = torch.randn(128, 64)
    kept = [saved.saved_bytes(cost.mlp([64] * (d + 1) + [1]), x)[0]
            for d in (63, 64)]
    assert kept[1] - kept[0] == 128 * 64 * 4 == 32_768
    assert kept[1] == 2_130_432
    model = cost.mlp([64] * 65 + [1])
    assert saved.saved_bytes(model, x, segments=8)[0] == 524_800


def test_checkpointing_keeps_s_plus_d_over_s_tensors():
    # checkpoint_sequential keeps the inputs of s segments and runs the
    # last of d/s layers normally: s + d/s tensors, least at s = sqrt(d)
    d, width, batch = 16, 8, 4
    model = cost.mlp([width] * (d + 1) + [1])
    x = torch.randn(batch, width)
    kept = {s: saved.saved_bytes(model, x, segments=s)[0]
            for s in (1, 2, 4, 8, 16)}
    for s, total in kept.items():
        assert total == (s + d // s) * batch * width * 4 + batch * 4
    assert min(kept, key=kept.get) == 4 and list(kept.values()).count(
        kept[4]) == 1


def test_saved_memory_grows_linearly_and_checkpointing_cuts_it():
    x = torch.randn(16, 8)
    layer = 16 * 8 * 4  # one float32 ReLU output per layer
    kept = [saved.saved_bytes(cost.mlp([8] * (d + 1) + [1]), x)[0]
            for d in (2, 3, 4, 5)]
    assert [b - a for a, b in zip(kept, kept[1:])] == [layer] * 3
    model = cost.mlp([8] * 17 + [1])
    plain, loss = saved.saved_bytes(model, x)
    plain_flops, _ = cost.counted(loss.backward)
    grads = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    fewer, loss = saved.saved_bytes(model, x, segments=4)
    more_flops, _ = cost.counted(loss.backward)
    assert fewer < plain / 2
    assert more_flops > plain_flops  # the recomputed forward pass
    for g, p in zip(grads, model.parameters()):
        assert torch.equal(g, p.grad)
