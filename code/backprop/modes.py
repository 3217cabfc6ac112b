"""Three ways to the gradient of a network's loss.

Reverse mode: one backward pass gives every entry. Forward mode: a
Jacobian-vector product gives the exact derivative along one direction,
so one pass per parameter entry. Finite differences: two perturbed
forward passes per entry, and an approximation. gradient_flops counts
what each of the three costs.
"""

import torch
from torch.func import jvp

from backprop.cost import counted, forward_backward_flops, loss_of, n_params


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
    """The loss's exact derivative along one direction, by forward mode."""
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
