"""The size of the signal through a deep ReLU stack, for several scales.

Each ReLU layer multiplies the variance of the signal by about
n_in * Var(w) / 2 (ReLU halves the second moment E[x^2] of a symmetric
input), so a scale that misses 2 / n_in compounds exponentially with
depth.
A weight std is a function of the layer's fan-in and fan-out, like the
schemes in INIT_STD of depth.py.
"""

import torch


def signal_std(weight_std, depth=40, width=256, batch=512, seed=6050,
               activation=torch.relu):
    """Std of the activations after each of depth square layers (ReLU
    unless another activation is given)."""
    # the same draws for every scale, so that only the scale differs
    gen = torch.Generator().manual_seed(seed)
    h = torch.randn(batch, width, generator=gen)
    std = weight_std(width, width)
    stds = []
    for _ in range(depth):
        W = torch.randn(width, width, generator=gen) * std
        h = activation(h @ W)
        stds.append(float(h.std()))
    return stds


def gain_per_layer(weight_std, width=256):
    """The predicted factor on Var(x) per ReLU layer: n * Var(w) / 2."""
    return width * weight_std(width, width) ** 2 / 2
