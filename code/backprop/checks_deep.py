"""Checks that answer back, for the later chapters' exercises whose
reference is torch: memory and the training loop (chapter 2), float32
and initialisation (chapter 3). The chapters import them from
checks_torch.py; the Verdict and its helpers are in verdicts.py."""

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

# ---- chapter 2 ----------------------------------------------------------


def _segments(key):
    """A key of my_kept as a number of segments: 4, "4" and 4.0 are 4."""
    try:
        count = float(key)
    except (TypeError, ValueError):
        return None
    return int(count) if count.is_integer() else None


@check
def check_checkpoint(kept, best, depth=64, width=64, batch=128):
    """Exercise checkpoint: kept = {segments: bytes saved for the backward
    pass}, for 1, 2, 4, ..., 64 segments; best, the segments that keep the
    least. The reference is counted by hand: s segment inputs and d/s
    ReLU outputs of batch x width float32 numbers, plus the output."""
    if not kept:
        raise NotYet("my_kept is empty: record the bytes for each number of "
                     "segments")
    kept = {_segments(k): v for k, v in kept.items()}
    counts = [2**k for k in range(int(math.log2(depth)) + 1)]
    missing = [s for s in counts if s not in kept]
    if missing:
        raise NotYet(f"my_kept has no entry for {missing[0]} segment"
                     f"{'s' * (missing[0] > 1)}")
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


def _seeded(what, f, *args):
    """The losses of f(*args), run from torch's generator seeded with
    6050 (and left as it was), as floats: inf and nan too, for a run
    that diverges."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(6050)
        losses = call(what, f, *args)
    try:
        return [float(x) for x in losses]
    except (TypeError, ValueError):
        raise NotYet(f"{what} should return its losses, numbers") from None


def _same(a, b):
    """Two losses alike, to float32's digits, or both nan."""
    return close(a, b, 1e-6) or a == b or (math.isnan(a) and math.isnan(b))


def _accumulating(train_linear):
    """train_linear(True) with every zero_grad() call skipped: the curve
    of gradients summed over the steps; and how many calls it skipped."""
    skipped, kept = [], (torch.optim.Optimizer.zero_grad,
                         torch.nn.Module.zero_grad)

    def skip(self, *args, **kwargs):
        skipped.append(self)

    torch.optim.Optimizer.zero_grad = torch.nn.Module.zero_grad = skip
    try:
        losses = _seeded("train_linear(True)", train_linear, True)
    finally:
        torch.optim.Optimizer.zero_grad, torch.nn.Module.zero_grad = kept
    return losses, len(skipped)


@check
def check_zero_grad(train_linear):
    """Exercise zero-grad: train_linear(zero_grad) -> the losses of a
    training loop, with or without optimizer.zero_grad(). With it, the
    loss must fall at every step until it settles at its lowest, and by
    a tenth of its first value at least; without it, the curve must be
    that of train_linear(True) run with its zero_grad() calls skipped."""
    with_zero = [given("a loss of train_linear(True)", x) for x in _seeded(
        "train_linear(True)", train_linear, True)]
    without = _seeded("train_linear(False)", train_linear, False)
    if len(with_zero) < 10 or len(with_zero) != len(without):
        raise NotYet("train_linear should return one loss per step, the "
                     "same number of steps (10 or more) with and without")
    first, last, floor = with_zero[0], with_zero[-1], min(with_zero)
    stalls = [i + 2 for i, (a, b) in enumerate(zip(with_zero, with_zero[1:]))
              if b >= a and b > floor * (1 + 1e-5)]  # not yet settled
    yield (not stalls and last <= 0.9 * first, (
        f"with zero_grad the loss stays at {number(first)}: does "
        "optimizer.step() come after loss.backward(), and zero_grad() "
        "before it?") if max(with_zero) <= floor * (1 + 1e-6) else (
        f"with zero_grad the loss does not fall at step {stalls[0]}: is the"
        " learning rate small enough?") if stalls else (
        f"with zero_grad the loss falls only from {number(first)} to "
        f"{number(last)}, not by a tenth: train for more steps, or faster")
        if last > 0.9 * first else "with zero_grad the loss falls at every "
        f"step until it settles, from {number(first)} to {number(last)}")
    same = with_zero == without
    yield (not same, "without zero_grad the curve changes" if not same else
           "the two curves are the same: does train_linear(False) skip "
           "optimizer.zero_grad()?")
    summed, calls = _accumulating(train_linear)
    off = next((i for i, (a, b) in enumerate(zip(without, summed))
                if not _same(a, b)), None)
    # the exercise asks for optimizer.zero_grad(): a loop that zeroes by
    # hand leaves the check nothing to skip, and no accumulation to compare
    yield (calls > 0 and off is None, "train_linear(True) calls neither "
           "optimizer.zero_grad() nor model.zero_grad(): the exercise asks "
           "for optimizer.zero_grad(), so that the check can skip it and "
           "compare train_linear(False) with summed gradients" if not calls
           else "without zero_grad the curve is the one that summed "
           "gradients give: train_linear(True) with its zero_grad() calls "
           "skipped" if off is None else f"without zero_grad the loss at "
           f"step {off + 1} is {number(without[off])}, but train_linear("
           f"True) with its zero_grad() calls skipped gives "
           f"{number(summed[off])}: does train_linear(False) change more "
           "than that call?")
    ups = sum(b > a for a, b in zip(without, without[1:]))
    yield (ups > 0, f"without zero_grad the loss rises on {ups} steps" if
           ups else "without zero_grad the loss never rises: train for more"
           " steps, and watch what the summed gradients do")


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
