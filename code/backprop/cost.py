"""The plumbing of the cost section: networks, FLOP counts and sweeps.

FLOPs come from torch.utils.flop_counter.FlopCounterMode. It counts
matrix products by formula (2 FLOPs per multiply-add) and leaves the
element-wise work uncounted, so the counts depend only on shapes: they
are the same on every machine.
"""

import torch
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

from backprop.modes import directions, loss_of, one_jvp
from backprop.saved import saved_bytes


def mlp(widths, seed=6050, dtype=torch.float32):
    """Linear layers between the given widths, with ReLU between them."""
    torch.manual_seed(seed)
    layers = []
    for n_in, n_out in zip(widths, widths[1:]):
        layers += [nn.Linear(n_in, n_out, dtype=dtype), nn.ReLU()]
    return nn.Sequential(*layers[:-1])  # no ReLU after the output layer


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


def gradient_flops(model, x):
    """FLOPs of the whole gradient by each method, and of one forward.

    Every forward-mode pass and every finite-difference pass costs the
    same, so one of each is counted and multiplied by their number.
    """
    forward, backward = forward_backward_flops(model, x)
    per_jvp, _ = counted(lambda: one_jvp(model, x, next(directions(model))))
    P = n_params(model)
    return {"forward pass": forward,
            "reverse mode": forward + backward,
            "forward mode": P * per_jvp,
            "finite differences": 2 * P * forward}


def checkpoint_sweep(depths, width=64, batch=128, seed=6050):
    """For each depth: bytes kept and backward FLOPs, without and with
    about sqrt(depth) checkpoint segments, and the largest difference
    between the two gradients."""
    torch.manual_seed(seed)
    rows = []
    for d in depths:
        model = mlp([width] * (d + 1) + [1], seed=seed)
        x = torch.randn(batch, width)
        row = {"depth": d, "segments": round(d ** 0.5)}
        grads = []
        for key, segments in [("plain", None), ("checkpointed",
                                                row["segments"])]:
            row[f"{key} bytes"], loss = saved_bytes(model, x, segments)
            row[f"{key} flops"], _ = counted(loss.backward)
            grads.append([p.grad.clone() for p in model.parameters()])
            model.zero_grad()
        row["gradient gap"] = max((a - b).abs().max().item()
                                  for a, b in zip(*grads))
        rows.append(row)
    return rows
