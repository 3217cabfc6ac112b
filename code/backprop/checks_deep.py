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
