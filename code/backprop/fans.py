"""Forward and backward through a ReLU network whose width changes.

The forward pass sums over a layer's n_in inputs, the backward pass over
its n_out outputs, so He's rule comes in two modes: Var(w) = 2 / n_in
keeps the signal's size, Var(w) = 2 / n_out the blame's.
"""

import torch


def signal_and_blame(widths, mode, batch=256, seed=6050):
    """Std of z (forward) and of the blame dL/dz (backward), per layer.

    The weights follow He's rule in PyTorch's mode "fan_in" or
    "fan_out". The loss sum(z_top * g), with g standard normal and fixed,
    hands the top layer a blame of variance 1 in both modes.
    """
    gen = torch.Generator().manual_seed(seed)  # torch's own is left alone
    h = torch.randn(batch, widths[0], dtype=torch.float64, generator=gen)
    zs = []
    for n_in, n_out in zip(widths, widths[1:]):
        W = torch.empty(n_out, n_in, dtype=torch.float64)
        torch.nn.init.kaiming_normal_(W, mode=mode, nonlinearity="relu",
                                      generator=gen)
        zs.append(h @ W.requires_grad_().T)
        h = torch.relu(zs[-1])
    g = torch.randn(zs[-1].shape, dtype=torch.float64, generator=gen)
    blame = torch.autograd.grad((zs[-1] * g).sum(), zs)
    return {"signal": [z.std().item() for z in zs],
            "blame": [b.std().item() for b in blame]}


def predicted(widths, mode):
    """The same stds from the variance rules, for inputs with E[x^2] = 1.

    Forward, layer l + 1 multiplies Var(z) by n_in Var(w) / 2; backward,
    layer l + 1 multiplies the blame's variance by n_out Var(w) / 2.
    """
    layers = list(zip(widths, widths[1:]))  # (n_in, n_out) of each layer
    var_w = [2 / (n_in if mode == "fan_in" else n_out)
             for n_in, n_out in layers]
    signal = [widths[0] * var_w[0]]  # the first layer sees x, not ReLU(z)
    for (n_in, _), v in zip(layers[1:], var_w[1:]):
        signal.append(n_in * v / 2 * signal[-1])
    blame = [1.0]  # handed to the top layer
    for (_, n_out), v in zip(layers[:0:-1], var_w[:0:-1]):
        blame.insert(0, n_out * v / 2 * blame[0])
    return {"signal": [s**0.5 for s in signal],
            "blame": [b**0.5 for b in blame]}
