"""Checks that answer back, for the exercises whose reference is torch:
torch.autograd, PyTorch's own initialisation rules, float32 arithmetic.
Chapter 1's are here, chapter 2's in checks_autograd.py and chapter
3's in checks_deep.py, and all of them can be imported from here. The
Verdict and its helpers are in verdicts.py, which needs no torch."""

import functools
import random

import torch

from backprop.checks_autograd import (  # noqa: F401 (the chapters import them here)
    check_checkpoint,
    check_layer_norm,
    check_zero_grad,
)
from backprop.checks_deep import (  # noqa: F401
    ADAM,
    check_adam,
    check_float32,
    check_leaky,
    check_residual,
    check_xavier,
)
from backprop.tasks import example_network, xor_problem
from backprop.verdicts import NotYet, call, check, close, given, number

# ---- chapter 1 ----------------------------------------------------------


def _check_batch(seed=6050):
    """The batch and parameters of the chapter's check-data cell, drawn as
    it draws them after torch.manual_seed(6050), in float64: X, y and
    [W1, b1, W2, b2]. The check's own loss reads these, not the reply."""
    gen = torch.Generator().manual_seed(seed)
    X, y = torch.randn(32, 5, generator=gen), torch.randn(32, generator=gen)
    W1 = torch.randn(8, 5, generator=gen) * 0.3
    W2 = torch.randn(1, 8, generator=gen) * 0.3
    return X.double(), y.double(), [t.double() for t in (
        W1, torch.zeros(8), W2, torch.zeros(1))]


def _mse(params, X, y):
    """The mean squared error of the 5-8-1 sigmoid network over the batch."""
    W1, b1, W2, b2 = params
    out = torch.sigmoid(X @ W1.T + b1) @ W2.T + b2
    return ((out[:, 0] - y) ** 2).mean()


def _slopes(got, shown, n):
    """The reply's slopes as one flat float64 tensor: one tensor, a list
    of numbers, or one tensor per parameter, all in float64."""
    parts = list(got) if isinstance(got, (list, tuple)) and any(
        torch.is_tensor(g) for g in got) else [got]
    odd = sorted({str(getattr(g, "dtype", "float64")) for g in parts}
                 - {"torch.float64", "float64"})
    if odd:
        raise NotYet(f"{shown} returns {odd[0]} numbers: keep the slopes in"
                     " float64")
    try:
        flat = torch.cat([torch.as_tensor(g, dtype=torch.float64).reshape(-1)
                          for g in parts])
    except (TypeError, ValueError, RuntimeError):
        flat = None
    if flat is None or len(flat) != n:
        what = (f"{len(flat)} slopes" if flat is not None else
                f"a {type(got).__name__} it cannot read")
        raise NotYet(f"{shown} returns {what}; return one flat tensor of {n}"
                     " slopes, one for each entry of params64 in order (or "
                     "one tensor per parameter, shaped like it)")
    return flat


@check
def check_gradcheck(central_differences, loss, params):
    """Exercise gradcheck: central_differences(h) -> the slopes
    (L(theta + h) - L(theta - h)) / 2h, an entry of params at a time, in
    float64; loss(params) -> float: the mean squared error of the
    chapter's network on its batch, which the check computes itself."""
    X, y, chapter = _check_batch()
    if len(params) != 4 or not all(
            p.dtype == torch.float64 and p.shape == q.shape and torch.allclose(
                p, q, rtol=0, atol=1e-12) for p, q in zip(params, chapter)):
        raise NotYet("params64 should be W1, b1, W2 and b2 of the check's "
                     "network in float64, as the starter makes them")
    before = [p.clone() for p in params]
    flat = [(p.view(-1), i) for p in params for i in range(p.numel())]

    def shifted(entry, i, by):  # the true loss, one entry nudged
        kept = entry[i].item()
        entry[i] = kept + by
        value = _mse(params, X, y).item()
        entry[i] = kept
        return value

    base, theirs = _mse(params, X, y).item(), given(
        "mse(params64)", call("mse(params64)", loss, params))
    ok = close(theirs, base, 1e-9)
    out = (torch.sigmoid(X @ params[0].T + params[1]) @ params[2].T
           + params[3])
    yield ok, ("mse(params64) is the mean squared error over the batch" if
               ok else f"mse(params64) is {number(theirs)}, not the mean "
               f"squared error over the batch of {len(y)}" + (
                   ": it sums the squared errors, where the mean divides by"
                   " n" if close(theirs, len(y) * base, 1e-9) else
                   ": the outputs, n x 1, minus y, n, broadcast to n x n;"
                   " take the outputs' column, acts[-1][:, 0]" if close(
                       theirs, ((out - y) ** 2).mean().item(), 1e-9) else ""))
    slopes = {}
    for h in (1e-2, 1e-4, 1e-6):
        shown = f"central_differences({h:g})"
        slopes[h] = _slopes(call(shown, central_differences, h), shown,
                            len(flat))
        # put back to rounding: += h, then -= h, may move the last bit
        if not all(torch.allclose(p, q, rtol=0, atol=1e-12)
                   for p, q in zip(params, before)):
            raise NotYet(f"{shown} leaves the parameters changed: put every"
                         " entry back after you nudge it")
    if torch.equal(slopes[1e-4], slopes[1e-6]):
        raise NotYet("central_differences gives the same slopes for h = "
                     "1e-4 and 1e-6, to the last bit; a finite difference "
                     "changes with h: does it use h?")
    for h, got in slopes.items():
        want = torch.tensor([(shifted(e, i, h) - shifted(e, i, -h)) / (2 * h)
                             for e, i in flat], dtype=torch.float64)
        one_sided = torch.tensor([(shifted(e, i, h) - base) / h
                                  for e, i in flat], dtype=torch.float64)
        # the true loss and the reply's may round in another order: a few
        # of its last bits, over 2h
        ok = bool(((got - want).abs() <= 1e-8 * want.abs() + 4e-15 * max(
            1.0, abs(base)) / h).all())
        gap = ((got - want).abs() / want.abs().clamp_min(1e-8)).max().item()
        hint = ("; it matches (L(theta + h) - L(theta)) / h, a one-sided "
                "difference" if torch.allclose(got, one_sided, rtol=1e-6)
                else "; it is twice the slope: divide by 2h" if
                torch.allclose(got, 2 * want, rtol=1e-6) else "")
        yield ok, (f"h = {h:g}: every slope is a central difference of the "
                   "mean squared error" if ok else f"h = {h:g}: your slopes"
                   f" differ from central differences of the mean squared "
                   f"error by up to {gap:.1e} (relative){hint}")


def _autograd_gradients(weights, biases, x, y, scale=1.0):
    """Weight and bias gradients of scale * 0.5 ||a - y||^2 summed over
    the batch, sigmoid hidden layers and an identity output, by
    torch.autograd, and the activations, input first."""
    leaves = [t.clone().requires_grad_() for t in weights + biases]
    acts = [x]
    for layer in range(len(weights)):
        z = acts[-1] @ leaves[layer].T + leaves[len(weights) + layer]
        acts.append(torch.sigmoid(z) if layer < len(weights) - 1 else z)
    grads = torch.autograd.grad(scale * 0.5 * ((acts[-1] - y) ** 2).sum(),
                                leaves)
    return grads[:len(weights)], grads[len(weights):], [
        a.detach() for a in acts]


@check
def check_bug(fixed_backward, batch=6):
    """Exercise bug: fixed_backward(weights, acts, y, scale=1.0) with the
    signature of buggy_backward, for a batch of 6 examples: on a 3-4-4-1
    network with the default scale, on a 3-5-4-1 network with the mean
    squared error's, 2/6. Any float dtype, compared in float64."""
    gen = torch.Generator().manual_seed(6050)
    for sizes, scale in (([3, 4, 4, 1], 1.0), ([3, 5, 4, 1], 2 / batch)):
        name = "-".join(map(str, sizes))
        weights, biases, _ = example_network(sizes, seed=6050)
        x = torch.randn(batch, sizes[0], generator=gen)
        y = torch.randn(batch, 1, generator=gen)
        want_w, want_b, acts = _autograd_gradients(weights, biases, x, y,
                                                   scale)
        result = call(f"fixed_backward on the {name} network",
                      fixed_backward, weights, acts, y,
                      *(() if scale == 1 else (scale,)))  # 1: the default
        if not (isinstance(result, (tuple, list)) and len(result) == 3):
            raise NotYet("fixed_backward should return (deltas, grad_w, "
                         "grad_b), as buggy_backward does")
        _, got_w, got_b = result
        pairs = [("grad_w", got_w, want_w), ("grad_b", got_b, want_b)]
        shapes = [f"it returns {len(g)} {k} for {len(w)} layers"
                  for k, g, w in pairs if len(g) != len(w)] + [
            f"layer {n}'s {k} has shape {tuple(a.shape)}, expected "
            f"{tuple(b.shape)}" for k, g, w in pairs
            for n, (a, b) in enumerate(zip(g, w), 1) if a.shape != b.shape]
        if shapes:
            yield False, f"{name}: {shapes[0]}"
            continue
        wrong = [n for n, g in enumerate(zip(got_w, got_b, want_w, want_b),
                                         1) if not _times(1, g[:2], g[2:])]
        right = [n for n in range(1, len(weights) + 1) if n not in wrong]
        hint = ("; the bias gradients are means over the batch: the blame "
                "equations sum them" if _times(batch, got_b, want_b) else
                "; all are 1/scale times too large: does the output blame "
                "take scale?" if _times(scale, list(got_w) + list(got_b),
                                        want_w + want_b) else "")
        said = f"{name}, {batch} examples, " + (
            f"scale 2/{batch}: " if scale != 1 else "the default scale: ")
        yield (not wrong, said + "every layer's gradients agree with "
               "torch.autograd" if not wrong else said + "the gradients of "
               f"{_layers(wrong)} differ from torch.autograd's" + (
                   f"; {_layers(right)} agree" + "s" * (len(right) == 1)
                   if right else "") + hint)


def _times(factor, got, want):
    """Whether each of got, times factor, is its want, in float64."""
    return all(torch.allclose(torch.as_tensor(g).double() * factor,
                              w.double(), atol=1e-6)
               for g, w in zip(got, want))


def _layers(numbers):
    """'layer 3', 'layers 1 and 2'."""
    words = [str(n) for n in numbers]
    listed = ", ".join(words[:-1]) + " and " + words[-1] if len(
        words) > 1 else words[0]
    return f"layer{'s' if len(words) > 1 else ''} {listed}"


@functools.cache
def _losses(lr, d_hidden, steps=2001):
    """The loss before each of `steps` steps of full-batch descent on
    xor_problem, by autograd: entry 1999 is the last of 2000 steps'."""
    X, y, weights, biases = xor_problem(d_hidden=d_hidden, seed=6050)
    params = [t.clone().requires_grad_() for t in weights + biases]
    W1, W2, b1, b2 = params
    losses = []
    for _ in range(steps):
        loss = (((torch.sigmoid(X @ W1.T + b1) @ W2.T + b2) - y) ** 2).mean()
        grads = torch.autograd.grad(loss, params)
        with torch.no_grad():
            for param, grad in zip(params, grads):
                param -= lr * grad
        losses.append(loss.item())
    return tuple(losses)


# a learning rate that the exercise does not name, where float32 runs
# agree to 1e-6 (from 0.3 on, their rounding grows along the run)
TRAIN_LR = round(random.Random(6050).uniform(0.1, 0.25), 3)


@check
def check_train(final_loss):
    """Exercise train: final_loss(lr, d_hidden=8) -> the loss of the last
    of 2000 steps of train() on xor_problem(d_hidden, seed=6050): at the
    exercise's three settings and at TRAIN_LR, which it does not name."""
    cases = [("lr 0.05", 0.05, 8), ("lr 1.0", 1.0, 8),
             ("2 hidden units", 0.2, 2), (f"lr {TRAIN_LR}", TRAIN_LR, 8)]
    got = []
    for _, lr, d_hidden in cases + cases[:1]:  # the first one twice
        args = (lr,) if d_hidden == 8 else (lr, d_hidden)  # the default: 8
        shown = f"final_loss({', '.join(map(str, args))})"
        got.append((shown, given(shown, call(shown, final_loss, *args))))
    (first, once), (_, again) = got[0], got.pop()
    by_lr = [loss for (_, loss), case in zip(got, cases) if case[2] == 8]
    for (name, lr, d_hidden), (shown, loss) in zip(cases, got):
        want = _losses(lr, d_hidden)
        # float32 runs agree to 1e-5; a step more or less moves the loss
        # of lr 0.05 by 7e-4
        ok = close(loss, want[1999], 1e-4)
        steps = [k + 1 for k, w in enumerate(want) if close(loss, w, 1e-5)]
        hint = ("does every run start from fresh weights (train() changes "
                f"them in place)? {first} gave {number(once)}, then "
                f"{number(again)}" if not close(again, once, 1e-9) else
                f"it is the loss before step {steps[0]}, not before the "
                "2000th and last" if len(steps) == 1
                else "final_loss gives the same loss for every learning "
                "rate: does it pass lr to train()?" if d_hidden == 8 and all(
                    close(x, by_lr[0], 1e-9) for x in by_lr) else "it is "
                "the loss of 8 hidden units: does it pass d_hidden to "
                "xor_problem()?" if d_hidden != 8 and close(
                    loss, _losses(lr, 8)[1999], 1e-4) else "")
        yield ok, (f"{name}: your final loss {number(loss)} agrees with a "
                   "torch.autograd run" if ok else f"{name}: {shown} = "
                   f"{number(loss)} is not the loss before the last of 2000"
                   f" steps from xor_problem(d_hidden={d_hidden}, "
                   "seed=6050)" + (f": {hint}" if hint else ""))
