"""Checks that answer back: one function per exercise, for a student
working alone. Each returns a Verdict, which prints as one message: what
is right already, and what is not yet, without the solution.

Pure Python, no torch: the engine's checks (chapter 2's `Value`) compare
with central finite differences, the pencil checks with numbers worked
out here. The checks whose reference is torch are in checks_torch.py.
"""

import math
import random

from backprop.verdicts import (
    NotYet,
    attempt,
    call,
    central_difference,
    check,
    close,
    given,
    number,
    to_digits,
)


def _sigmoid(z):
    return 1 / (1 + math.exp(-z))


# ---- chapter 2: the engine --------------------------------------------------

def _unary(form, op, Value, reference, points):
    """(passed, sentence) lines for one new operation on Values: its
    value, its gradient with an upstream gradient of 2, and whether two
    uses of it add up. form: how it is called, "power({}, 3");
    reference: the same function on floats."""
    outs = []
    for x in points:
        out = call(form.format(f"Value({x})"), op, Value(x))
        if not isinstance(out, Value):
            raise NotYet(f"{form.format(f'Value({x})')} returns a "
                         f"{type(out).__name__}, not a Value")
        outs.append(out)
    name = form.format("v")
    at = ", ".join(map(str, points))
    wrong = [(x, o.data) for x, o in zip(points, outs)
             if not close(o.data, reference(x))]
    yield (not wrong, f"{name} has the right value at v = {at}" if not
           wrong else f"{form.format(f'Value({wrong[0][0]})')}.data is "
           f"{number(wrong[0][1])}; it should be "
           f"{number(reference(wrong[0][0]))}")
    problems = []
    for x in points:
        v, once = Value(x), Value(x)
        attempt(f"backward() through {name}", (op(v) * 2.0).backward)
        attempt(f"backward() through {name}", op(once).backward)
        got, want = v.grad / 2, central_difference(reference, x)
        if not close(got, want, 1e-5, 1e-7):
            hint = (" (v.grad stays 0: does the new Value list v among its"
                    " parents, and set its push_grad?)" if got == 0 else
                    " (the same as with an upstream gradient of 1: does "
                    "push_grad multiply by out.grad?)" if close(
                        v.grad, once.grad, 1e-9) else "")
            problems.append(f"with an upstream gradient of 2, v.grad at v = "
                            f"{x} should be {number(2 * want)} (twice the "
                            f"slope of {name}, by finite differences); "
                            f"your engine gives {number(v.grad)}{hint}")
    yield (not problems, problems[0] if problems else
           f"the gradient of {name} matches finite differences, "
           "with an upstream gradient of 2")
    # through a chain: backward() must reach the Values before v
    w, b, chain = Value(points[0] / 4), Value(points[0] / 2), form.format(
        "w * 2 + b")
    attempt(f"backward() through {chain}", lambda: op(w * 2.0 + b).backward())
    slope = central_difference(reference, points[0])
    chained = close(w.grad, 2 * slope, 1e-5, 1e-7) and close(b.grad, slope,
                                                             1e-5, 1e-7)
    yield (chained, f"through {chain}, w.grad and b.grad match finite "
           "differences" if chained else f"{chain} at w = {w.data}, b = "
           f"{b.data}: w.grad is {number(w.grad)}, not {number(2 * slope)} "
           "(twice the slope, by finite differences)" + (
               "; backward() reaches w only through the new Value's "
               "parents: does it list v among them?" if w.grad == 0 else ""))
    once, twice = Value(points[0]), Value(points[0])
    attempt(f"backward() through {name}", op(once).backward)
    attempt(f"backward() through {name} + {name}",
            (op(twice) + op(twice)).backward)
    if once.grad == 0:  # 2 x 0 = 0 would pass, and prove nothing
        yield (False, f"whether {name} + {name} adds both gradients into "
               "v.grad shows once v.grad is no longer 0")
        return
    adds = close(twice.grad, 2 * once.grad, 1e-9, 1e-12)
    yield (adds, f"{name} + {name} adds both gradients into v.grad" if adds
           else f"{name} + {name} at v = {points[0]}: v.grad is "
           f"{number(twice.grad)}, not twice {number(once.grad)}: does "
           "push_grad add to v.grad (+=), rather than set it?")


@check
def check_tanh(tanh, Value):
    """Exercise tanh: tanh(v) on Values, with its own push_grad."""
    yield from _unary("tanh({})", tanh, Value, math.tanh, (0.5, -1.3, 2.0))


@check
def check_value_ops(exp, log, power, Value):
    """Exercise value-ops: exp(v), log(v) and power(v, k) on Values."""
    ops = [("exp({})", exp, math.exp, (0.5, -1.0, 2.0)),
           ("log({})", log, math.log, (0.5, 1.3, 4.0)),
           ("power({}, 3)", lambda v: power(v, 3), lambda x: x**3,
            (0.5, -1.5, 2.0)),
           ("power({}, 0.5)", lambda v: power(v, 0.5), math.sqrt,
            (0.5, 2.0))]
    for form, op, reference, points in ops:
        name = form.format("v")
        try:
            lines = list(_unary(form, op, Value, reference, points))
        except NotYet as stop:
            lines = [(False, str(stop))]
        failed = [line for line in lines if not line[0]]
        yield failed[0] if failed else (
            True, f"{name}: values, gradients and their sum are right")


XOR = [((0.0, 0.0), 0.0), ((0.0, 1.0), 1.0), ((1.0, 0.0), 1.0),
       ((1.0, 1.0), 0.0)]


def xor_descent(seed, steps=400, lr=2.0):
    """The XOR exercise's losses, and the update after which all four
    outputs are first right: a 2-4-1 network, its backward pass written
    out by hand, drawn from random.Random(seed) neuron by neuron."""
    rng = random.Random(seed)
    hidden = [[rng.uniform(-1, 1), rng.uniform(-1, 1), 0.0] for _ in "abcd"]
    out = [rng.uniform(-1, 1) for _ in "abcd"] + [0.0]
    losses, solved_at = [], None
    for update in range(steps):
        grad_h, grad_o = [[0.0] * 3 for _ in "abcd"], [0.0] * 5
        loss, right = 0.0, True
        for (x1, x2), t in XOR:
            h = [_sigmoid(w1 * x1 + w2 * x2 + b) for w1, w2, b in hidden]
            o = _sigmoid(sum(w * a for w, a in zip(out, h)) + out[4])
            loss, right = loss + (o - t) ** 2, right and (o > 0.5) == (t == 1)
            blame = 2 * (o - t) * o * (1 - o)
            for j, (a, g) in enumerate(zip(h, grad_h)):
                grad_o[j] += blame * a
                back = blame * out[j] * a * (1 - a)
                g[:] = [g[0] + back * x1, g[1] + back * x2, g[2] + back]
            grad_o[4] += blame
        if right and solved_at is None:
            solved_at = update
        losses.append(loss)
        for ws, gs in zip(hidden + [out], grad_h + [grad_o]):
            ws[:] = [w - lr * g for w, g in zip(ws, gs)]
    return losses, solved_at


@check
def check_micro_mlp(train_xor, seed=6050):
    """Exercise micro-mlp: train_xor(seed) -> (solved_at, losses, final
    predictions, number of parameters), after 400 updates; weights drawn
    from random.Random(seed) neuron by neuron, hidden neurons first."""
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
    want, want_solved = xor_descent(seed)
    if not close(losses[0], want[0], 1e-9):
        for factor, what in ((2, "half"), (4, "the mean")):
            if close(losses[0] * factor, want[0], 1e-9):
                raise NotYet(f"the first loss, {number(losses[0])}, is "
                             f"{what} of the squared error summed over the "
                             "four points that the exercise asks for")
        raise NotYet(f"the first loss, {number(losses[0])}, is not that of "
                     "weights drawn from random.Random(seed) neuron by "
                     "neuron, the hidden ones first, with biases 0")
    off = next((i for i, (a, b) in enumerate(zip(losses, want))
                if not close(a, b, 1e-6)), None)
    yield (off is None, "every update follows full-batch gradient descent"
           if off is None else f"update {off} leaves gradient descent (loss "
           f"{number(losses[off])}): are the gradients set to zero before "
           "each backward pass, and every step taken against them?")
    right = [(p > 0.5) == (t == 1.0) for p, (_, t) in zip(final, XOR)]
    yield (all(right), "all four outputs end on the right side of 0.5" if
           all(right) else f"the final outputs {[round(p, 3) for p in final]}"
           " are not all on the right side of 0.5")
    yield (solved_at == want_solved, f"solved after {solved_at} updates"
           if solved_at == want_solved else f"solved_at is {solved_at!r}: "
           "count the updates made before all four outputs are right")


# ---- pencil exercises and numbers ------------------------------------------

# Exercise by-hand's neuron: the chapter states these numbers and its
# solution works them, and the check grades against them, from here only.
BY_HAND = {"w": -1.5, "x": 0.5, "b": 0.25, "y": 1.0}


@check
def check_by_hand(dL_dw, dL_db):
    """Exercise by-hand: the neuron of BY_HAND, L = (a - y)^2 / 2."""
    n = BY_HAND
    dw, db = given("dL/dw", dL_dw), given("dL/db", dL_db)

    def loss(w, b):
        return 0.5 * (_sigmoid(w * n["x"] + b) - n["y"]) ** 2

    # the answer by finite differences, independent of the chain rule
    want_w = central_difference(lambda w: loss(w, n["b"]), n["w"])
    want_b = central_difference(lambda b: loss(n["w"], b), n["b"])

    def grads(b_in_z, gate):  # (dL/dw, dL/db) of a slip of method
        a = _sigmoid(n["w"] * n["x"] + b_in_z * n["b"])
        d_z = (a - n["y"]) * (a * (1 - a) if gate else 1.0)
        return d_z * n["x"], d_z

    slips = {  # what a wrong step gives, what to say, whether a slip on
        # the way to both gradients, which the other one, right, rules out
        "b": [(-want_b, "it has the wrong sign", False),
              (grads(1.0, gate=False)[1], "that is the blame at a, "
               "before the sigmoid's gate", True),
              (grads(0.0, gate=True)[1], "is b in z = w x + b?", True)],
        "w": [(-want_w, "it has the wrong sign", False),
              (want_b, "it equals the blame at z; the product w x hands "
               "it on scaled by the other factor", False),
              (grads(0.0, gate=True)[0], "is b in z = w x + b?", True)]}
    right_b, right_w = (to_digits(x, want) == "right" for x, want in
                        ((db, want_b), (dw, want_w)))

    def verdict(name, x, want, other_right, fallback):
        said = to_digits(x, want)
        if said == "right":
            return True, f"dL/d{name} = {x} is right"
        if said == "rounding":  # a slip of rounding, whatever else it is
            hint = ("close, but not to three significant digits: carry "
                    "more digits at every step")
        else:
            hint = next((h for value, h, both in slips[name] if close(
                x, value, 0.005) and not (both and other_right)), fallback)
        return False, f"dL/d{name} = {x} is not right yet" + (
            f": {hint}" if hint else "")

    yield verdict("b", db, want_b, right_w, "walk back through the graph "
                  "one node at a time")
    if right_b and not right_w and close(dw, db * n["x"], 1e-3):
        yield False, (f"dL/dw = {dw} is not right yet: it is your dL/db "
                      "times x, as it should be, but from dL/db rounded: "
                      "carry more digits of dL/db into dL/dw")
    elif not right_b and not to_digits(dw, want_w) and close(
            dw, db * n["x"], 0.01):  # wrong only through dL/db
        yield False, (f"dL/dw = {dw} is not right yet, but it follows "
                      "from your dL/db as it should: fix dL/db first")
    else:
        yield verdict("w", dw, want_w, right_b, "")


@check
def check_softmax(blame):
    """Exercise softmax: blame(a, y) = dL/dz of the binary cross-entropy
    L = -y log a - (1 - y) log(1 - a), with a = sigmoid(z)."""
    for y in (1.0, 0.0):
        wrong = None
        for a in (0.99, 0.3, 0.7, 0.05):
            said = f"my_blame({a}, {y:g})"  # as the starter names it
            got = given(said, call(said, blame, a, y))
            z = math.log(a / (1 - a))
            want = central_difference(lambda z, y=y: -y * math.log(
                _sigmoid(z)) - (1 - y) * math.log(1 - _sigmoid(z)), z)
            if not close(got, want, 1e-4, 1e-6) and wrong is None:
                hint = ("that is the half squared error's (a - y) sigma'(z)"
                        if close(got, (a - y) * a * (1 - a), 1e-4, 1e-6)
                        else "that is dL/da: go on through the sigmoid to z"
                        if close(got, (a - y) / (a * (1 - a)), 1e-4) else
                        "it has the wrong sign" if close(-got, want, 1e-4)
                        else "the slope of the loss in z differs")
                wrong = f"at a = {a}, y = {y:g} your blame is {number(got)}: "
                wrong += hint
        yield (wrong is None, wrong or f"right for the target y = {y:g}")
