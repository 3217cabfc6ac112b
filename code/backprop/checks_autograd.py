"""Checks that answer back, for chapter 2's exercises whose reference is
torch: memory and checkpointing, a layer's own backward pass, and the
training loop. The chapter imports them from checks_torch.py; the
Verdict and its helpers are in verdicts.py."""

import math

import torch

from backprop.verdicts import (
    NotYet,
    call,
    check,
    close,
    given,
    number,
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


LAYER_NORM_EPS = 1e-5  # torch's default, which the exercise names
_NORM_SHAPES = [(3, 5), (2, 4, 7), (6,)]  # none square: a wrong dim shows


def _layer_norm_parts(x):
    """y, the normalised x, and sigma, by the exercise's formula."""
    centred = x - x.mean(-1, keepdim=True)
    sigma = (centred.pow(2).mean(-1, keepdim=True) + LAYER_NORM_EPS).sqrt()
    return centred / sigma, sigma


@check
def check_layer_norm(LayerNorm):
    """Exercise layer-norm: LayerNorm, a torch.autograd.Function for
    (x - mean) / sqrt(var + 1e-5) over the last dimension, against
    torch's own layer_norm and its autograd, in float64, on inputs of
    three shapes, none square, with a random v; then by gradcheck."""
    if not (isinstance(LayerNorm, type)
            and issubclass(LayerNorm, torch.autograd.Function)):
        raise NotYet("LayerNorm should be a class that subclasses "
                     "torch.autograd.Function, as the starter has it")
    gen = torch.Generator().manual_seed(6050)
    cases = [(torch.randn(s, generator=gen, dtype=torch.float64) * 2 + 0.5,
              torch.randn(s, generator=gen, dtype=torch.float64))
             for s in _NORM_SHAPES]
    outs = []
    for x, _ in cases:
        x = x.clone().requires_grad_()
        what = f"LayerNorm.apply(x) for x of shape {tuple(x.shape)}"
        out = call(what, LayerNorm.apply, x)
        if not isinstance(out, torch.Tensor) or out.shape != x.shape:
            raise NotYet(f"{what} should be a tensor of x's shape")
        if out.dtype != x.dtype:
            raise NotYet(f"{what} is {out.dtype}: keep x's dtype, float64")
        outs.append((x, out))
    wrong = next(((x, out) for x, out in outs if not torch.allclose(
        out, torch.nn.functional.layer_norm(x, x.shape[-1:],
                                            eps=LAYER_NORM_EPS),
        rtol=1e-9, atol=1e-12)), None)
    if wrong is None:
        yield True, ("the forward pass is torch's layer_norm, at three "
                     "shapes")
    else:
        x, out = wrong
        unbiased = (x - x.mean(-1, keepdim=True)) / (
            x.var(-1, keepdim=True) + LAYER_NORM_EPS).sqrt()
        outside = (x - x.mean(-1, keepdim=True)) / (
            x.var(-1, keepdim=True, correction=0).sqrt() + LAYER_NORM_EPS)
        def same(t):
            return torch.allclose(out.detach(), t, rtol=1e-9, atol=1e-12)
        hint = ("var divides by n - 1; the exercise's divides by n, the "
                "number of entries" if same(unbiased) else "1e-5 goes "
                "inside the square root" if same(outside) else "it differs"
                " from torch's layer_norm")
        yield False, (f"at shape {tuple(x.shape)} the output is not right "
                      f"yet: {hint}")
        return
    for (x, v), (leaf, out) in zip(cases, outs):
        what = f"backward() for x of shape {tuple(x.shape)}"
        (got,) = call(what, lambda out=out, leaf=leaf, v=v: torch.autograd
                      .grad(out, leaf, v.clone(), allow_unused=True))
        if got is None:
            raise NotYet(f"{what} gives no gradient: backward returns "
                         "None; return v J, the gradient with respect to x")
        reference = x.clone().requires_grad_()
        (want,) = torch.autograd.grad(torch.nn.functional.layer_norm(
            reference, x.shape[-1:], eps=LAYER_NORM_EPS), reference, v)
        if torch.allclose(got, want, rtol=1e-7, atol=1e-10):
            continue
        y, sigma = _layer_norm_parts(x)
        mean = lambda t: t.mean(-1, keepdim=True)  # noqa: E731
        slips = [
            (-want, "it has the wrong sign"),
            (v / sigma, "that treats the mean and sigma as constants: "
             "both depend on every entry of x"),
            ((v - mean(v)) / sigma, "it leaves out how sigma depends on "
             "x, the term in y mean(v y)"),
            ((v - y * mean(v * y)) / sigma, "it leaves out how the mean "
             "depends on x, the term mean(v)"),
            (torch.autograd.grad(torch.nn.functional.layer_norm(
                reference, x.shape[-1:], eps=LAYER_NORM_EPS), reference,
                torch.ones_like(v))[0], "it does not use grad_output: "
             "backward must multiply the v it receives into J")]
        off = (got - want).abs().max().item()
        hint = next((h for value, h in slips if torch.allclose(
            got, value, rtol=1e-7, atol=1e-10)), "it differs from torch's "
            f"autograd of layer_norm, by up to {number(off)}")
        yield False, f"{what} is not right yet: {hint}"
        yield False, "gradcheck: run once backward() is right"
        return
    yield True, ("backward() gives torch's v J at three shapes, for a "
                 "random v")
    passed = torch.autograd.gradcheck(
        LayerNorm.apply, (cases[0][0].clone().requires_grad_(),),
        raise_exception=False)
    yield passed, ("torch.autograd.gradcheck passes in float64" if passed
                   else "torch.autograd.gradcheck fails in float64")


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
