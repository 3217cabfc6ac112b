"""What the choice of loss does to the depth experiment of Chapter 3."""

import torch


def first_layer_blame(x, hidden, head, targets=None):
    """How the loss shapes the sigmoid network's first-layer gradient.

    With no targets the loss is the mean output, as in
    gradient_diagnostic: it hands every example the same blame at the
    top. With targets it is the mean squared error to them, whose blame
    differs from example to example. Returns the share of examples whose
    layer-1 blame agrees in sign with the majority, averaged over the
    units; the norm ratio of the layer-2 to the layer-1 weight gradient;
    the span from the last layer's norm down to the first's; and the
    weight gradients themselves, for depth.audit.
    """
    zs, h = [], x  # the forward pass of depth.forward, for the sigmoid
    for W in hidden:
        zs.append(h @ W.T)
        h = torch.sigmoid(zs[-1])
    out = h @ head.T
    loss = (out.mean() if targets is None
            else (out - targets).pow(2).mean())
    grads = torch.autograd.grad(loss, hidden + [zs[0]])
    positive = (grads[-1] > 0).double().mean(dim=0)  # per unit
    norms = [g.norm().item() for g in grads[:-1]]
    agreement = torch.maximum(positive, 1 - positive).mean().item()
    return {"agreement": agreement,
            "ratio": norms[1] / norms[0], "span": norms[-1] / norms[0],
            "grads": grads[:-1]}


def over_draws(build, seeds, depth=30):
    """first_layer_blame for other draws of the network, build(depth,
    seed=...) (depth.build_mlp), each with standard normal targets of its
    own: {seed: {"mean output": ..., "squared error": ...}}."""
    draws = {}
    for seed in seeds:
        x, hidden, head = build(depth, seed=seed)
        gen = torch.Generator().manual_seed(9000 + seed)  # another stream
        targets = torch.randn(len(x), 1, dtype=x.dtype, generator=gen)
        draws[seed] = {"mean output": first_layer_blame(x, hidden, head),
                       "squared error": first_layer_blame(x, hidden, head,
                                                          targets)}
    return draws
