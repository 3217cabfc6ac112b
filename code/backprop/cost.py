"""The plumbing of the cost section: small networks and FLOP counts.

FLOPs come from torch.utils.flop_counter.FlopCounterMode. It counts
matrix products by formula (2 FLOPs per multiply-add) and leaves the
element-wise work uncounted, so the counts depend only on shapes: they
are the same on every machine.
"""

import torch
from torch import nn
from torch.func import functional_call
from torch.utils.flop_counter import FlopCounterMode


def mlp(widths, seed=6050, dtype=torch.float32):
    """Linear layers between the given widths, with ReLU between them,
    initialised as nn.Linear does, from the seed."""
    # nn.Linear draws from torch's own generator: fork it, so that the
    # caller's random state is the same after the call as before
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        layers = []
        for n_in, n_out in zip(widths, widths[1:]):
            layers += [nn.Linear(n_in, n_out, dtype=dtype), nn.ReLU()]
    return nn.Sequential(*layers[:-1])  # no ReLU after the output layer


def loss_of(model, x, params=None):
    """A scalar loss; with params, the model runs on those tensors."""
    out = model(x) if params is None else functional_call(model, params, x)
    return out.pow(2).mean()


def counted(fn):
    """(the FLOPs that fn performed, fn's result)."""
    with FlopCounterMode(display=False) as counter:
        result = fn()
    return counter.get_total_flops(), result


def forward_backward_flops(model, x):
    """FLOPs of one forward pass and of the backward pass after it."""
    forward, loss = counted(lambda: loss_of(model, x))
    backward, _ = counted(loss.backward)
    model.zero_grad()
    return forward, backward


def n_params(model):
    return sum(p.numel() for p in model.parameters())

