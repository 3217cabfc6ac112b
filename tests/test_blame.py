"""The four blame equations against torch.autograd."""

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from backprop import blame, tasks

shapes = st.lists(st.integers(1, 6), min_size=2, max_size=5)


def autograd_reference(weights, biases, x, y, scale):
    params = [p.clone().requires_grad_(True) for p in weights + biases]
    ws, bs = params[:len(weights)], params[len(weights):]
    h = x
    for i, (W, b) in enumerate(zip(ws, bs)):
        h = h @ W.T + b
        if i < len(ws) - 1:
            h = torch.sigmoid(h)
    loss = 0.5 * scale * ((h - y) ** 2).sum()
    grads = torch.autograd.grad(loss, params)
    return grads[:len(weights)], grads[len(weights):], h.detach()


@settings(max_examples=60, deadline=None)
@given(shapes, st.integers(1, 7), st.integers(0, 10_000))
def test_four_equations_equal_autograd(sizes, batch, seed):
    gen = torch.Generator().manual_seed(seed)
    weights = [torch.randn(m, n, generator=gen, dtype=torch.float64)
               for n, m in zip(sizes, sizes[1:])]
    biases = [torch.randn(m, generator=gen, dtype=torch.float64)
              for m in sizes[1:]]
    x = torch.randn(batch, sizes[0], generator=gen, dtype=torch.float64)
    y = torch.randn(batch, sizes[-1], generator=gen, dtype=torch.float64)
    scale = 2 / batch
    acts = blame.forward(weights, biases, x)
    _, grad_w, grad_b = blame.backward(weights, acts, y, scale=scale)
    ref_w, ref_b, out = autograd_reference(weights, biases, x, y, scale)
    torch.testing.assert_close(acts[-1], out, rtol=1e-12, atol=1e-12)
    for ours, ref in zip(grad_w + grad_b, list(ref_w) + list(ref_b)):
        assert ours.shape == ref.shape
        torch.testing.assert_close(ours, ref, rtol=1e-10, atol=1e-12)


def test_mse_scale_matches_torch_mse_loss():
    torch.manual_seed(0)
    weights = [torch.randn(4, 3, dtype=torch.float64),
               torch.randn(1, 4, dtype=torch.float64)]
    biases = [torch.zeros(4, dtype=torch.float64),
              torch.zeros(1, dtype=torch.float64)]
    x = torch.randn(10, 3, dtype=torch.float64)
    y = torch.randn(10, 1, dtype=torch.float64)
    acts = blame.forward(weights, biases, x)
    _, grad_w, _ = blame.backward(weights, acts, y, scale=2 / 10)
    W = weights[0].clone().requires_grad_(True)
    pred = torch.sigmoid(x @ W.T) @ weights[1].T
    (g,) = torch.autograd.grad(torch.nn.functional.mse_loss(pred, y), W)
    torch.testing.assert_close(grad_w[0], g, rtol=1e-12, atol=1e-14)


def test_weight_gradient_is_blame_times_signal():
    weights, biases, x = tasks.example_network()
    acts = blame.forward(weights, biases, x)
    deltas, grad_w, _ = blame.backward(weights, acts, torch.ones(1, 1))
    for i in range(len(weights)):
        outer = torch.outer(deltas[i].squeeze(0), acts[i].squeeze(0))
        torch.testing.assert_close(grad_w[i], outer)
        assert grad_w[i].shape == weights[i].shape


def test_example_network_is_seeded_like_the_spec():
    # spec: seed 6050, then randn(4,3), randn(4,4), randn(1,4), randn(3)
    torch.manual_seed(6050)
    expected = [torch.randn(4, 3), torch.randn(4, 4), torch.randn(1, 4)]
    x = torch.randn(3)
    weights, biases, x_ours = tasks.example_network()
    for ours, ref in zip(weights, expected):
        torch.testing.assert_close(ours, ref)
    torch.testing.assert_close(x_ours.squeeze(0), x)
    assert all((b == 0).all() for b in biases)
