"""Data for chapter 1: the small random network of the blame equations,
and for the training run an XOR task and a straight-line baseline; and
the two small graphs that the backward-pass explorer steps through."""

import torch


def xor_problem(n=64, d_in=5, d_hidden=8, seed=6050):
    """n random inputs, labelled +1 where the first two coordinates have
    the same sign and -1 where they differ, and a d_in-d_hidden-1
    network to learn them: small random weights and zero biases."""
    gen = torch.Generator().manual_seed(seed)  # leaves torch's own alone
    X = torch.randn(n, d_in, generator=gen)
    y = torch.sign(X[:, :1] * X[:, 1:2])  # a column: one row per example
    weights = [0.3 * torch.randn(d_hidden, d_in, generator=gen),
               0.3 * torch.randn(1, d_hidden, generator=gen)]
    biases = [torch.zeros(d_hidden), torch.zeros(1)]
    return X, y, weights, biases


def line_fit_loss(X, y):
    """Mean squared error of the best affine fit y ~ X c + c0."""
    # in float64: in float32 the last digits hung on how the buffers fell
    # in memory, and moved the figure's line from one build to the next
    design = torch.cat([X, torch.ones(len(X), 1)], dim=1).double()
    coef = torch.linalg.lstsq(design, y.double()).solution  # least squares
    return ((design @ coef - y.double()) ** 2).mean().item()


def example_network(sizes=(3, 4, 4, 1), seed=6050):
    """Random weights, zero biases and one input example, all seeded.

    A generator seeded with 6050 draws the same numbers as
    torch.manual_seed(6050) would: the network of the book's
    specification, with torch's own generator left alone."""
    gen = torch.Generator().manual_seed(seed)
    weights = [torch.randn(m, n, generator=gen)
               for n, m in zip(sizes, sizes[1:])]
    biases = [torch.zeros(m) for m in sizes[1:]]
    x = torch.randn(1, sizes[0], generator=gen)
    return weights, biases, x


def neuron_graph(Value, w=0.7, x=2.0, b=-0.5, y=0.1):
    """Chapter 1's worked neuron (its numeric pass and figure) in the
    Value engine that the caller passes (chapter 2 pastes the engine
    rather than import it): {name: Value}, the loss
    L = (sigmoid(w x + b) - y)^2 / 2 last."""
    w, x, b = Value(w), Value(x), Value(b)
    wx = w * x
    z = wx + b
    a = z.sigmoid()
    loss = 0.5 * (a - y) * (a - y)
    return {"w": w, "x": x, "b": b, "wx": wx, "z": z, "a": a, "L": loss}


def diamond_graph(Value, x=1.0):
    """Chapter 4's diamond: s = 3x feeds both u = 2s and v = s^2, which
    meet in out = u + v. {name: Value}, out last."""
    x = Value(x)
    s = x * 3.0
    u, v = s * 2.0, s * s
    return {"x": x, "s": s, "u": u, "v": v, "out": u + v}
