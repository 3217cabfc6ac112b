"""What a gradient costs: work counted in FLOPs, memory in saved bytes.

FLOPs come from torch.utils.flop_counter.FlopCounterMode. It counts
matrix products by formula (2 FLOPs per multiply-add) and leaves the
element-wise work uncounted, so the counts depend only on shapes: they
are the same on every machine. Memory comes from saved_tensors_hooks,
which sees every tensor that autograd keeps for the backward pass.
"""

import torch
from torch import nn
from torch.func import functional_call, jvp
from torch.utils.checkpoint import checkpoint_sequential
from torch.utils.flop_counter import FlopCounterMode


def mlp(widths, seed=6050, dtype=torch.float32):
    """Linear layers between the given widths, with ReLU between them."""
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


def reverse_mode(model, x):
    """The whole gradient from one backward pass, as one flat vector."""
    grads = torch.autograd.grad(loss_of(model, x), list(model.parameters()))
    return torch.cat([g.flatten() for g in grads])


def directions(model):
    """One unit tangent per parameter entry: P dicts like the params."""
    params = dict(model.named_parameters())
    for name, p in params.items():
        for i in range(p.numel()):
            tangent = {k: torch.zeros_like(v) for k, v in params.items()}
            tangent[name].view(-1)[i] = 1.0
            yield tangent


def one_jvp(model, x, tangent):
    """The loss's derivative along one direction, by forward mode."""
    params = {k: v.detach() for k, v in model.named_parameters()}
    _, slope = jvp(lambda p: loss_of(model, x, p), (params,), (tangent,))
    return slope


def forward_mode(model, x):
    """The gradient by forward mode: one pass per parameter entry."""
    return torch.stack([one_jvp(model, x, t) for t in directions(model)])


def finite_differences(model, x, h=1e-6):
    """The gradient by central differences: two passes per entry."""
    slopes = []
    with torch.no_grad():
        for p in model.parameters():
            flat = p.view(-1)
            for i in range(flat.numel()):
                kept = flat[i].item()
                flat[i] = kept + h
                up = loss_of(model, x)
                flat[i] = kept - h
                down = loss_of(model, x)
                flat[i] = kept
                slopes.append((up - down) / (2 * h))
    return torch.stack(slopes)


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


def saved_bytes(model, x, segments=None):
    """(bytes autograd saves for backward, the loss).

    The parameters are left out of the count: they are in memory anyway.
    With segments, torch.utils.checkpoint keeps only each segment's input
    and recomputes the rest during the backward pass.
    """
    params = {p.data_ptr() for p in model.parameters()}
    total = 0

    def pack(t):
        nonlocal total
        if t.data_ptr() not in params:
            total += t.numel() * t.element_size()
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        if segments:
            out = checkpoint_sequential(model, segments, x,
                                        use_reentrant=False)
        else:
            out = model(x)
        loss = out.pow(2).mean()
    return total, loss


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
