"""Checks that answer back, for the exercises whose reference is torch:
torch.autograd, PyTorch's own initialisation rules, float32 arithmetic.
The Verdict and its helpers are in verdicts.py, which needs no torch."""

import functools
import math

import torch

from backprop.tasks import example_network, xor_problem
from backprop.verdicts import NotYet, call, check, close, given, number

# ---- chapter 1 ----------------------------------------------------------


@check
def check_gradcheck(central_differences, loss, params):
    """Exercise gradcheck: central_differences(h) -> one flat tensor of
    (L(theta + h) - L(theta - h)) / 2h, an entry of params at a time.
    loss(params) -> float; params: the float64 tensors it reads."""
    before = [p.clone() for p in params]
    flat = [(p.view(-1), i) for p in params for i in range(p.numel())]

    def shifted(entry, i, by):
        kept = entry[i].item()
        entry[i] = kept + by
        value = loss(params)
        entry[i] = kept
        return value

    slopes = {}
    for h in (1e-4, 1e-6):
        got = call(f"central_differences({h:g})", central_differences, h)
        if "float64" not in str(getattr(got, "dtype", "float64")):
            raise NotYet(f"central_differences({h:g}) returns {got.dtype} "
                         "numbers: keep the slopes in float64")
        slopes[h] = torch.as_tensor(got, dtype=torch.float64).flatten()
        # put back to rounding: += h, then -= h, may move the last bit
        if not all(torch.allclose(p, q, rtol=0, atol=1e-12)
                   for p, q in zip(params, before)):
            raise NotYet(f"central_differences({h:g}) leaves the parameters"
                         " changed: put every entry back after you nudge it")
    if torch.equal(slopes[1e-4], slopes[1e-6]):
        raise NotYet("central_differences gives the same slopes for h = "
                     "1e-4 and 1e-6, to the last bit; a finite difference "
                     "changes with h: does it use h?")
    for h, got in slopes.items():
        if len(got) != len(flat):
            raise NotYet(f"central_differences({h:g}) returns {len(got)} "
                         f"slopes; the parameters have {len(flat)} entries")
        base = loss(params)
        want = torch.tensor([(shifted(e, i, h) - shifted(e, i, -h)) / (2 * h)
                             for e, i in flat], dtype=torch.float64)
        one_sided = torch.tensor([(shifted(e, i, h) - base) / h
                                  for e, i in flat], dtype=torch.float64)
        gap = ((got - want).abs() / want.abs().clamp_min(1e-8)).max().item()
        ok = gap < 1e-5
        hint = ("; it matches (L(theta + h) - L(theta)) / h, a one-sided "
                "difference" if torch.allclose(got, one_sided, rtol=1e-6)
                else "; it is twice the slope: divide by 2h" if
                torch.allclose(got, 2 * want, rtol=1e-6) else "")
        yield ok, (f"h = {h:g}: every slope is a central difference" if ok
                   else f"h = {h:g}: your slopes differ from central "
                   f"differences by up to {gap:.1e} (relative){hint}")


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
    squared error's, 2/6."""
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
    """Whether each of got, times factor, is its want."""
    return all(torch.allclose(g * factor, w, atol=1e-6)
               for g, w in zip(got, want))


def _layers(numbers):
    """'layer 3', 'layers 1 and 2'."""
    words = [str(n) for n in numbers]
    listed = ", ".join(words[:-1]) + " and " + words[-1] if len(
        words) > 1 else words[0]
    return f"layer{'s' if len(words) > 1 else ''} {listed}"


@functools.cache
def _final_loss(lr, d_hidden, steps=2000):
    """The last loss of full-batch descent on xor_problem, by autograd."""
    X, y, weights, biases = xor_problem(d_hidden=d_hidden, seed=6050)
    params = [t.clone().requires_grad_() for t in weights + biases]
    W1, W2, b1, b2 = params
    for _ in range(steps):
        loss = (((torch.sigmoid(X @ W1.T + b1) @ W2.T + b2) - y) ** 2).mean()
        grads = torch.autograd.grad(loss, params)
        with torch.no_grad():
            for param, grad in zip(params, grads):
                param -= lr * grad
    return loss.item()  # the loss before the last step, as train() keeps


@check
def check_train(final_loss):
    """Exercise train: final_loss(lr, d_hidden=8) -> the loss of the last
    of 2000 steps of train() on xor_problem(d_hidden, seed=6050)."""
    for name, lr, d_hidden in [("lr 0.05", 0.05, 8), ("lr 1.0", 1.0, 8),
                               ("2 hidden units", 0.2, 2)]:
        args = (lr,) if d_hidden == 8 else (lr, d_hidden)  # the default: 8
        shown = f"final_loss({', '.join(map(str, args))})"
        got = given(shown, call(shown, final_loss, *args))
        # float32 runs agree to 1e-5; a step more or less moves the loss
        # of lr 0.05 by 7e-4
        ok = close(got, _final_loss(lr, d_hidden), 1e-4)
        yield ok, (f"{name}: your final loss {number(got)} agrees with a "
                   "torch.autograd run" if ok else f"{name}: {shown} = "
                   f"{number(got)} is not the loss before the last of 2000"
                   f" steps from xor_problem(d_hidden={d_hidden}, "
                   "seed=6050): does every run start from fresh weights "
                   "(train() changes them in place)?")


# ---- chapter 2 ----------------------------------------------------------

@check
def check_checkpoint(kept, best, depth=64, width=64, batch=128):
    """Exercise checkpoint: kept = {segments: bytes saved for the backward
    pass}, for 1, 2, 4, ..., 64 segments; best, the segments that keep the
    least. The reference is counted by hand: s segment inputs and d/s
    ReLU outputs of batch x width float32 numbers, plus the output."""
    if not kept:
        raise NotYet("my_kept is empty: record the bytes for each number of "
                     "segments")
    counts = [2**k for k in range(int(math.log2(depth)) + 1)]
    missing = [s for s in counts if s not in kept]
    if missing:
        raise NotYet(f"my_kept has no entry for {missing[0]} segments")
    wrong = [s for s in counts if kept[s] !=
             (s + depth // s) * batch * width * 4 + batch * 4]
    yield (not wrong, "every count of bytes is right" if not wrong else
           f"{wrong[0]} segment{'s' * (wrong[0] > 1)}: "
           f"{kept[wrong[0]]:,} bytes is not what "
           f"the {depth}-layer network keeps for a batch of {batch}")
    least = min(counts, key=kept.get)
    ok = given("my_best", best) == least
    yield ok, (f"my_best = {best}: the fewest bytes in your own table" if ok
               else f"my_best = {best}: your own table keeps less with "
               "another number of segments")


@check
def check_zero_grad(train_linear):
    """Exercise zero-grad: train_linear(zero_grad) -> the losses of a
    training loop, with or without optimizer.zero_grad()."""
    with_zero = list(call("train_linear(True)", train_linear, True))
    without = list(call("train_linear(False)", train_linear, False))
    if len(with_zero) < 10 or len(with_zero) != len(without):
        raise NotYet("train_linear should return one loss per step, the "
                     "same number of steps (10 or more) with and without")
    rises = [i + 1 for i, (a, b) in enumerate(zip(with_zero, with_zero[1:]))
             if b > a]
    yield (not rises, "with zero_grad the loss falls at every step" if not
           rises else f"with zero_grad the loss rises at step {rises[0] + 1}"
           ": is the learning rate small enough?")
    same = with_zero == without
    yield (not same, "without zero_grad the curve changes" if not same else
           "the two curves are the same: does train_linear(False) skip "
           "optimizer.zero_grad()?")
    ups = sum(b > a for a, b in zip(without, without[1:]))
    yield (ups > 0, f"without zero_grad the loss rises on {ups} steps" if
           ups else "without zero_grad the loss never rises: train for more"
           " steps, and watch what the summed gradients do")


# ---- chapter 3 ----------------------------------------------------------

@check
def check_float32(g_needed, w=0.2, lr=0.1):
    """Exercise float32: the |g| above which one step w - lr g, in
    float32, stores a different number than w."""
    g = given("my_g", g_needed)
    w32 = torch.tensor(w)  # float32

    def moves(g):
        return bool((w32 - lr * torch.tensor(g)) != w32)

    above, below = moves(1.02 * g), moves(0.98 * g)
    yield (above, "a |g| a little above yours moves the stored weight" if
           above else f"|g| = {number(1.02 * g)}, above yours, still "
           f"leaves the stored weight at {w}: the threshold is higher")
    yield (not below, "a |g| a little below yours leaves it" if not below
           else f"|g| = {number(0.98 * g)}, below yours, already moves "
           "it: the step is rounded to the nearest float32 number")


@check
def check_leaky(fraction, var_w, n_in=256):
    """Exercise leaky: fraction(alpha) = E[f(z')^2] / Var(z') for a
    symmetric z', and var_w(alpha, n_in), the Var(w) that keeps the
    signal's size; against a numerical integral and PyTorch's gain."""
    z = torch.linspace(-12, 12, 240001, dtype=torch.float64)
    density = torch.exp(-z**2 / 2) / math.sqrt(2 * math.pi)
    for name, f in [("fraction", fraction), ("var_w", var_w)]:
        wrong = None
        for alpha in (0.2, 0.0, 1.0, 0.5):
            if name == "fraction":
                shown, args = f"my_fraction({alpha})", (alpha,)
                squared = torch.where(z > 0, z, alpha * z) ** 2
                want = torch.trapezoid(squared * density, z).item()
            else:
                shown, args = f"my_var_w({alpha}, {n_in})", (alpha, n_in)
                gain = torch.nn.init.calculate_gain("leaky_relu", alpha)
                want = gain**2 / n_in
            got = given(shown, call(shown, f, *args))
            if not close(got, want, 1e-4) and wrong is None:
                wrong = f"{shown} is {number(got)}: " + (
                    "not the share of f(z')^2 in a standard normal z'"
                    if name == "fraction" else "not what PyTorch's "
                    "leaky_relu gain keeps steady")
        yield (wrong is None, wrong or f"{name} is right for alpha = 0, "
               "0.2, 0.5 and 1")


@check
def check_xavier(xavier_std, he_std, needed_std, n=64):
    """Exercise xavier: for 64-wide square layers, the standard deviation
    of Xavier's and of He's rule, and the least one that @eq-backward
    asks for with the sigmoid's largest gate, 1/4."""
    # xavier_normal_ and kaiming_normal_'s stds, as PyTorch documents
    wants = [("Xavier's std", xavier_std, (2 / (n + n)) ** 0.5),
             ("He's std", he_std,
              torch.nn.init.calculate_gain("relu") / n**0.5),
             ("the std the gate asks for", needed_std,
              (1 / (n * 0.25**2)) ** 0.5)]
    for name, answer, want in wants:
        got = given(name, answer)
        ok = close(got, want, 0.003)  # 0.125, 0.177, 0.5: off 0.13% at most
        yield ok, (f"{name} is right" if ok else f"{name}, {got}, is a "
                   "variance: the question asks for a standard deviation"
                   if close(got, want**2, 0.01) else f"{name}, {got}, is "
                   "close, but not to three significant digits" if close(
                       got, want, 0.02) else f"{name}, {got}, is not right "
                   "yet")
