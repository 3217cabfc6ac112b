"""The size of the signal through a deep ReLU stack, for several scales.

Each ReLU layer multiplies the variance of the signal by about
n_in * Var(w) / 2 (ReLU halves the second moment E[x^2] of a symmetric
input), so a scale that misses 2 / n_in compounds exponentially with depth.
"""

import torch

SCHEMES = {  # weight std for fan-in n
    "naive, std 0.05": lambda n: 0.05,
    "naive, std 0.12": lambda n: 0.12,
    "He, std sqrt(2/n)": lambda n: (2 / n) ** 0.5,
}


def signal_std(weight_std, depth=40, width=256, batch=512, seed=6050,
               activation=torch.relu):
    """Std of the activations after each of depth layers (ReLU unless
    another activation is given)."""
    torch.manual_seed(seed)  # same draws for every scheme: only scale differs
    h = torch.randn(batch, width)
    stds = []
    for _ in range(depth):
        h = activation(h @ (torch.randn(width, width) * weight_std(width)))
        stds.append(float(h.std()))
    return stds


def gain_per_layer(weight_std, width=256):
    """The predicted factor on Var(x) per ReLU layer: n * Var(w) / 2."""
    return width * weight_std(width) ** 2 / 2
