"""Checks that answer back, for chapter 3's exercises, whose reference is
torch: float32 arithmetic and initialisation. The chapter imports them
from checks_torch.py; the Verdict and its helpers are in verdicts.py."""

import math

import torch

from backprop.verdicts import (
    NotYet,
    call,
    check,
    close,
    digits_hint,
    given,
    graded,
    matches,
    number,
    to_digits,
)

# ---- chapter 3 ----------------------------------------------------------

@check
def check_float32(g_needed, w=0.2, lr=0.1):
    """Exercise float32: the |g| above which one step w - lr g, in
    float32, stores a different number than w, to three significant
    digits (verdicts.to_digits's rule; close is one unit off in the
    third). The reference is float32 itself, bisected."""
    g = given("my_g", g_needed)
    w32 = torch.tensor(w)  # float32

    def moves(g):
        return bool((w32 - lr * torch.tensor(g)) != w32)

    if g < 0:
        raise NotYet(f"my_g = {g} is negative: |g| is a size, give it "
                     "without its sign")
    low, high = 0.0, 1.0  # a step of 0.1 moves 0.2; none leaves it
    while high - low > 1e-15 * high:
        low, high = (low, (low + high) / 2) if moves((low + high) / 2) else (
            (low + high) / 2, high)
    said = to_digits(g, high, units=1)
    yield said == "right", f"my_g = {g} is " + (
        digits_hint(g, said) if said == "right" else "not right yet: " + (
            digits_hint(g, said) if said else "that is a whole spacing "
            f"over {lr}; the step is rounded to the nearest float32 number,"
            " so a step past half a spacing moves it" if to_digits(
                g, 2 * high) == "right" else f"a step of {lr} x {g} already"
            " moves the stored weight: the threshold is lower" if moves(g)
            else f"a step of {lr} x {g} still leaves the stored weight at "
            f"{w}: the threshold is higher"))


@check
def check_leaky(fraction, var_w, widths=(256, 64, 1000)):
    """Exercise leaky: fraction(alpha) = E[f(z')^2] / Var(z') for a
    symmetric z', and var_w(alpha, n_in), the Var(w) that keeps the
    signal's size, at several widths; against a numerical integral and
    PyTorch's gain."""
    z = torch.linspace(-12, 12, 240001, dtype=torch.float64)
    density = torch.exp(-z**2 / 2) / math.sqrt(2 * math.pi)
    alphas = (0.2, 0.0, 1.0, 0.5)
    for name, f, cases in [("fraction", fraction, [(a,) for a in alphas]),
                           ("var_w", var_w, [(a, n) for a in alphas
                                             for n in widths])]:
        wrong = None
        for args in cases:
            shown = f"my_{name}({', '.join(map(str, args))})"
            if name == "fraction":
                squared = torch.where(z > 0, z, args[0] * z) ** 2
                want = torch.trapezoid(squared * density, z).item()
            else:
                want = torch.nn.init.calculate_gain(
                    "leaky_relu", args[0])**2 / args[1]
            got = given(shown, call(shown, f, *args))
            if not close(got, want, 1e-4) and wrong is None:
                wrong = f"{shown} is {number(got)}: " + (
                    "not the share of f(z')^2 in a standard normal z'"
                    if name == "fraction" else "not what PyTorch's "
                    "leaky_relu gain keeps steady")
        sizes = sorted(widths)
        at = f", and n_in = {', '.join(map(str, sizes[:-1]))} and {sizes[-1]}"
        yield (wrong is None, wrong or f"{name} is right for alpha = 0, "
               "0.2, 0.5 and 1" + (at if name == "var_w" else ""))


@check
def check_xavier(xavier_std, he_std, needed_std, n=64):
    """Exercise xavier: for 64-wide square layers, the standard deviation
    of Xavier's and of He's rule, and the least one that @eq-backward
    asks for with the sigmoid's largest gate, 1/4; each to three
    significant digits (verdicts.to_digits's rule; close is one unit off
    in the third)."""
    # xavier_normal_ and kaiming_normal_'s stds, as PyTorch documents
    wants = [("Xavier's std", xavier_std, (2 / (n + n)) ** 0.5, None),
             ("He's std", he_std,
              torch.nn.init.calculate_gain("relu") / n**0.5, None),
             ("the std the gate asks for", needed_std,
              (1 / (n * 0.25**2)) ** 0.5, (1 / (n * 0.25)) ** 0.5)]
    for name, answer, want, unsquared in wants:
        got = given(name, answer)
        said = to_digits(got, want, units=1)
        variance = matches(got, want**2)  # at the digits it is written to
        gate = unsquared is not None and matches(got, unsquared)
        yield said == "right", f"{name}, {got}, " + (
            f"is {digits_hint(got, said)}" if said == "right" else
            "is a variance, or the std of a gate left unsquared: the "
            "question asks for a standard deviation, and E[sigma'^2] "
            "squares the gate" if variance and gate else "is a variance: "
            "the question asks for a standard deviation" if variance else
            "comes from the gate left unsquared: E[sigma'^2] squares it"
            if gate else f"is {digits_hint(got, said)}" if said else
            "is not right yet")


# Exercise adam's numbers: the chapter prints them and its solution works
# them, and the check grades against them, from here only.
ADAM = {"lr": 1e-3, "eps": 1e-8, "g": 2e-9, "tiny_eps": 1e-30}


def _adam_first_step(g, lr, eps):
    """The size of torch.optim.Adam's first step on one weight whose
    gradient is g, with PyTorch's default betas: the reference, which is
    PyTorch's own code, not the formula the solution uses."""
    w = torch.zeros(1, dtype=torch.float64, requires_grad=True)
    optimizer = torch.optim.Adam([w], lr=lr, eps=eps)
    w.grad = torch.full_like(w, g)
    optimizer.step()
    return -w.item()


@check
def check_adam(step, half_at, tiny_step):
    """Exercise adam: Adam's first step for the gradient ADAM["g"], the
    |g| at which the first step is half the learning rate, and the first
    step with eps = ADAM["tiny_eps"]; each to three significant digits,
    against torch.optim.Adam."""
    a = ADAM
    want = _adam_first_step(a["g"], a["lr"], a["eps"])
    beta1, beta2 = 0.9, 0.999  # PyTorch's defaults, for the slips below
    corrected = ("before the step Adam divides m by 1 - beta1^t and v by "
                 "1 - beta2^t: work out m_hat and v_hat after one step")
    slips = [  # what a wrong formula gives, and what to say to it
        (a["lr"], "that is the step without eps: here eps is not small "
         "beside sqrt(v_hat)"),
        (a["lr"] * a["g"] / (a["g"]**2 + a["eps"]) ** 0.5, "eps is added "
         "after the square root, to sqrt(v_hat), not to v_hat"),
        *[(a["lr"] * m * a["g"] / ((v * a["g"]**2) ** 0.5 + a["eps"]),
           corrected) for m, v in [(1 - beta1, 1 - beta2), (1, 1 - beta2),
                                   (1 - beta1, 1)]],
        (a["lr"] * a["g"] / a["eps"], "sqrt(v_hat) = |g| is not "
         "negligible beside eps here")]
    # the step is lr / 2 where |g| = eps: bisect torch's step in log |g|
    low, high = -20.0, 0.0
    while high - low > 1e-12:
        mid = (low + high) / 2
        low, high = ((mid, high) if _adam_first_step(
            10**mid, a["lr"], a["eps"]) < a["lr"] / 2 else (low, mid))
    for name, got, answer, named in [
            ("my_step", step, want, slips),
            ("my_half_at", half_at, 10**high,
             [(a["eps"] / 2, "at that |g| the step is a third of the "
               "learning rate"), (a["lr"] / 2, "that is the step, not the "
               "gradient that gives it")]),
            ("my_tiny_step", tiny_step,
             _adam_first_step(a["g"], a["lr"], a["tiny_eps"]),
             [(a["lr"] * a["g"] / a["tiny_eps"], "sqrt(v_hat) = |g| is far "
               "larger than this eps: it, not eps, divides the step"),
              (a["lr"] * (1 - beta1) / (1 - beta2) ** 0.5, corrected)])]:
        yield graded(name, got, answer, named)


@check
def check_residual(residual_norms, depths=(30, 4), batch=16):
    """Exercise residual: residual_norms(x, hidden, head) -> the norm of
    dL/dW for each hidden layer, first to last, of the network h <- h +
    sigmoid(h W^T), with L the mean of the last layer's output as in
    @sec-depth; against torch.autograd on the check's own networks, of
    two depths and seeds."""
    from backprop.depth import build_mlp  # the check's own networks

    def norms(x, hidden, head, skip=True, mean=True):
        h = x
        for W in hidden:
            h = (h if skip else 0) + torch.sigmoid(h @ W.T)
        out = h @ head.T
        loss = out.mean() if mean else out.sum()
        return [g.norm().item() for g in torch.autograd.grad(loss, hidden)]

    for depth in depths:
        x, hidden, head = build_mlp(depth, batch=batch, seed=6050 + depth)
        want = norms(x, hidden, head)
        shown = f"my_residual_norms on a {depth}-layer network"
        got, again = (_norms(shown, call(shown, residual_norms, x, hidden,
                                          head), depth) for _ in range(2))
        if not all(close(g, h, 1e-9) for g, h in zip(got, again)):
            raise NotYet(f"{shown}, called twice on one network, returns "
                         "other norms the second time: does it add into a "
                         ".grad that the first call left? Clear it first, or"
                         " use torch.autograd.grad")
        same = all(close(g, w, 1e-6) for g, w in zip(got, want))
        slips = [(want[::-1], "these are the norms from the last layer to "
                  "the first: return them first to last"),
                 ([w * w for w in want], "these are squared norms"),
                 (norms(x, hidden, head, skip=False), "these are the plain "
                  "network's norms: add each layer's input h to its output"),
                 (norms(x, hidden, head, mean=False), "these belong to the "
                  "sum of the outputs: L is their mean")]
        slip = next((say for values, say in slips if all(
            close(g, w, 1e-6) for g, w in zip(got, values))), None)
        yield same, f"{shown}: " + (
            "every layer's norm is right" if same else
            "not right yet: " + (slip or "compare your forward pass with "
                                 "h <- h + sigmoid(h W^T), and return each "
                                 "gradient's norm, as g.norm() gives it"))


def _norms(shown, got, depth):
    """The reply's norms as floats, one per hidden layer."""
    try:
        got = [given(f"norm {i + 1}", g) for i, g in enumerate(got)]
    except TypeError:
        raise NotYet(f"{shown} returns a {type(got).__name__}: return a "
                     "list of numbers, one per hidden layer") from None
    if len(got) != depth:
        raise NotYet(f"{shown} returns {len(got)} norms: return one per "
                     f"hidden layer, {depth}")
    return got
