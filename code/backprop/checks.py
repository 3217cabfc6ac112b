"""Checks that answer back: one function per exercise, for a student
working alone. Each returns a Verdict, which prints as one message: what
is right already, and what is not yet, without the solution.

Pure Python, no torch: the engine's checks (chapter 2's `Value`) and
the cross-entropy's blame compare with central finite differences. The
checks of the pencil exercises are in checks_pencil.py (chapter 1) and
checks_companion.py (chapter 4), and can be imported from here, and the
lines of the checks of the engine's new operations in checks_values.py;
the checks whose reference is torch are in checks_torch.py.
"""

import math
import random

from backprop.checks_companion import (  # noqa: F401 (the chapters' imports)
    ACCUMULATE,
    CLIP,
    ORDER,
    _sigmoid,
    check_accumulate,
    check_clip,
    check_cross_entropy,
    check_order,
)
from backprop.checks_pencil import (  # noqa: F401
    BY_HAND,
    NETWORK,
    check_by_hand,
    check_network,
)
from backprop.checks_values import grads, operation_lines
from backprop.verdicts import (
    NotYet,
    attempt,
    call,
    central_difference,
    check,
    close,
    drawn,
    given,
    number,
)

# ---- chapter 2: the engine --------------------------------------------------

def _engine_sound(Value):
    """The chapter's own engine, before the student's operations: a rule
    of it broken by an edit would otherwise be blamed on their code."""
    a, b = Value(2.0), Value(3.0)
    (a + a * b).backward()  # by hand: d/da = 1 + b = 4, d/db = a = 2
    if (a.grad, b.grad) != (4.0, 2.0):
        raise NotYet(f"the engine's own + and * give a + a * b at (2, 3) "
                     f"the gradients ({a.grad}, {b.grad}), not (4, 2): run "
                     "the engine's cell as the book has it (on the page, "
                     "Reset it), then this check")


@check
def check_tanh(tanh, Value):
    """Exercise tanh: tanh(v) on Values, with its own push_grad, at six
    points (0, and +-5 where tanh is flat, among them) and nine drawn
    from [-3, 3]."""
    _engine_sound(Value)
    yield from operation_lines("tanh({})", tanh, Value, math.tanh, drawn(
        (0.5, -1.3, 2.0, 0.0, -5.0, 5.0), -3, 3))


def value_operations(exp, log, power):
    """(form, op, reference, points) of each operation check_value_ops
    tries: powers odd, even and 1 (at v < 0 and v = 0 too), negative and
    fractional."""
    return [("exp({})", exp, math.exp, drawn((0.5, -1.0, 2.0), -3, 3)),
           ("log({})", log, math.log, drawn((0.5, 1.3, 4.0), 0.05, 5))] + [
        (f"power({{}}, {k})", lambda v, k=k: power(v, k),
         lambda x, k=k: x**k, points) for k, points in [
            (3, drawn((0.5, -1.5, 2.0, 0.0), -3, 3)),  # v = 0 too
            (2, drawn((-1.5, 0.5, 2.0, 0.0), -3, 3)),
            (1, drawn((0.5, -1.5, 0.0), -3, 3)),  # slope 1 at v = 0
            (-1, drawn((0.5, -1.5, 2.0), 0.2, 3) + (-0.4, -2.5)),
            (-2, drawn((-1.5, 0.5, 2.0), 0.2, 3) + (-0.4, -2.5)),
            (0.5, drawn((0.5, 2.0), 0.05, 5))]]


@check
def check_value_ops(exp, log, power, Value):
    """Exercise value-ops: exp(v), log(v) and power(v, k) on Values, at
    chosen points and drawn ones (value_operations), then all four in
    one expression."""
    _engine_sound(Value)
    alone = True
    for form, op, reference, points in value_operations(exp, log, power):
        name = form.format("v")
        try:
            lines = list(operation_lines(form, op, Value, reference,
                                         points))
        except NotYet as stop:
            lines = [(False, str(stop))]
        except Exception as error:  # the other operations still show
            lines = [(False, f"{name} could not be checked: "
                      f"{type(error).__name__}: {error}")]
        # the structure's line (the last) first: it names the cause that
        # the gradients' lines can only ask about
        failed = [line for line in lines[-1:] + lines[:-1] if not line[0]]
        yield failed[0] if failed else (
            True, f"{name}: values, gradients and their sum are right")
        alone = alone and not failed
    if alone:  # (tried once each operation is right by itself)
        yield together_line(exp, log, power, Value)


def together_line(exp, log, power, Value):
    """The operations in one expression, two on each Value: a push_grad
    that reads what a later call left behind (a global k or out, or k
    kept on v) is right in each alone."""
    a, c = Value(1.3), Value(-1.5)
    mixed = "exp(a) * 3 + log(a) * 5 + power(c, 3) * 7 + power(c, 2)"
    attempt(f"backward() through {mixed}", lambda: (
        exp(a) * 3.0 + log(a) * 5.0 + power(c, 3) * 7.0 + power(c, 2)
    ).backward())
    for name, value, g, f in zip("ac", (a, c), grads(mixed, a, c), (
            lambda x: 3 * math.exp(x) + 5 * math.log(x),
            lambda x: 7 * x**3 + x**2)):
        want = central_difference(f, value.data)
        if not close(g, want, 1e-5, 1e-7):
            return (False, f"{mixed} at a = {a.data}, c = {c.data}: "
                    f"{name}.grad is {number(g)}, not {number(want)} (by "
                    "finite differences): does each push_grad use only its "
                    "own call's numbers (its v, k and out), not ones a later "
                    "call left behind?")
    return (True, f"{mixed} gives a and c each the sum of their uses' "
            "gradients")


# ---- chapter 2: the engine's XOR network ---------------------------------

XOR = [((0.0, 0.0), 0.0), ((0.0, 1.0), 1.0), ((1.0, 0.0), 1.0),
       ((1.0, 1.0), 0.0)]


def xor_descent(seed, steps=400, lr=2.0):
    """The XOR exercise's run: the loss before each update, the update
    after which all four outputs are first right, and the four outputs
    before the last update and after it. A 2-4-1 network, its backward
    pass written out by hand, drawn from random.Random(seed) neuron by
    neuron."""
    rng = random.Random(seed)
    hidden = [[rng.uniform(-1, 1), rng.uniform(-1, 1), 0.0] for _ in "abcd"]
    out = [rng.uniform(-1, 1) for _ in "abcd"] + [0.0]

    def run(x1, x2):  # the hidden outputs and the output
        h = [_sigmoid(w1 * x1 + w2 * x2 + b) for w1, w2, b in hidden]
        return h, _sigmoid(sum(w * a for w, a in zip(out, h)) + out[4])

    losses, solved_at = [], None
    for update in range(steps):
        grad_h, grad_o, before = [[0.0] * 3 for _ in "abcd"], [0.0] * 5, []
        for (x1, x2), t in XOR:
            h, o = run(x1, x2)
            before.append(o)
            blame = 2 * (o - t) * o * (1 - o)
            for j, (a, g) in enumerate(zip(h, grad_h)):
                grad_o[j] += blame * a
                back = blame * out[j] * a * (1 - a)
                g[:] = [g[0] + back * x1, g[1] + back * x2, g[2] + back]
            grad_o[4] += blame
        if solved_at is None and all((o > 0.5) == (t == 1) for o, (_, t)
                                     in zip(before, XOR)):
            solved_at = update
        losses.append(_xor_loss(before))
        for ws, gs in zip(hidden + [out], grad_h + [grad_o]):
            ws[:] = [w - lr * g for w, g in zip(ws, gs)]
    return losses, solved_at, before, [run(*x)[1] for x, _ in XOR]


def _xor_loss(outputs):
    return sum((o - t) ** 2 for o, (_, t) in zip(outputs, XOR))


@check
def check_micro_mlp(train_xor, seed=6050):
    """Exercise micro-mlp: train_xor(seed) -> (solved_at, losses, final
    predictions, number of parameters), after 400 updates; weights drawn
    from random.Random(seed) neuron by neuron, hidden neurons first. The
    reference is the same recipe with its backward pass by hand."""
    result = call(f"train_xor({seed})", train_xor, seed)
    if not (isinstance(result, tuple) and len(result) == 4):
        raise NotYet("train_xor should return (solved_at, losses, final "
                     "predictions, number of parameters)")
    solved_at, losses, final, n_params = result
    yield (n_params == 17, "the network has the right number of parameters"
           if n_params == 17 else f"the network has {n_params} parameters:"
           " not 4 neurons of 2 inputs and 1 of 4, each with a bias")
    if len(losses) != 400:
        raise NotYet(f"losses has {len(losses)} entries for 400 updates")
    want, want_solved, before, after = xor_descent(seed)
    if not close(losses[0], want[0], 1e-9):
        if all(close(a, b, 1e-6) for a, b in zip(
                losses, want[1:] + [_xor_loss(after)])):
            raise NotYet("each loss is the loss after its update: the "
                         "exercise asks for the loss before it, the first "
                         "from the weights as drawn")
        for factor, what in ((2, "half"), (4, "the mean")):
            if close(losses[0] * factor, want[0], 1e-9):
                raise NotYet(f"the first loss, {number(losses[0])}, is "
                             f"{what} of the one the exercise asks for: the "
                             "squared error summed over the four points")
        raise NotYet(f"the first loss, {number(losses[0])}, is not that of "
                     "weights drawn from random.Random(seed) neuron by "
                     "neuron, the hidden ones first, with biases 0")
    off = next((i for i, (a, b) in enumerate(zip(losses, want))
                if not close(a, b, 1e-6)), None)
    yield (off is None, "every update follows full-batch gradient descent"
           if off is None else f"update {off} leaves gradient descent (loss "
           f"{number(losses[off])}): are the gradients set to zero before "
           "each backward pass, and every step taken against them?")
    if off is not None:  # the last two lines compare with the reference run
        for what in ("the final predictions", "solved_at"):
            yield False, f"{what}: checked once every update is right"
        return
    final = [given("a final prediction", p) for p in final]
    ok, last = [[close(p, q, 1e-6) for p, q in zip(final, outputs)] == [
        True] * 4 for outputs in (after, before)]
    yield (ok, "the final predictions are the network's outputs after the "
           "last update" if ok else "the final predictions are the outputs"
           " before the last update: run the four points forward once more"
           " after it" if last else "the final predictions "
           f"{[round(p, 3) for p in final]} are not the network's four "
           "outputs after the last update")
    yield (solved_at == want_solved, f"solved after {solved_at} updates"
           if solved_at == want_solved else f"solved_at is {solved_at!r}: "
           "count the updates made before all four outputs are right")
