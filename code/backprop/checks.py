"""Checks that answer back: one function per exercise, for a student
working alone. Each returns a Verdict, which prints as one message: what
is right already, and what is not yet, without the solution.

Pure Python, no torch: the engine's checks (chapter 2's `Value`) and
the cross-entropy's blame compare with central finite differences. The
checks of the pencil exercises are in checks_pencil.py (chapter 1) and
checks_companion.py (chapter 4), and can be imported from here; the
checks whose reference is torch are in checks_torch.py.
"""

import math
import numbers
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


# ---- one new operation on chapter 2's Values -------------------------------

PARENTS = (tuple, list, set, frozenset)  # what the engine can walk


def operation_lines(form, op, Value, reference, points):
    """(passed, sentence) lines for one new operation on Values: its
    value, its gradient with an upstream gradient of 2, through a chain,
    whether two uses of it add up and keep apart, and whether it is one
    Value with v as its only parent, as the exercises ask. form: how it
    is called, "power({}, 3"); reference: the same function on floats."""
    calls = []
    for x in points:
        v = Value(x)
        v.grad = 0.7  # a gradient already there, which the call must keep
        before = vars(v).copy()
        out = call(form.format(f"Value({x})"), op, v)
        if not isinstance(out, Value):
            raise NotYet(f"{form.format(f'Value({x})')} returns a "
                         f"{type(out).__name__}, not a Value")
        changed = [k for k, was in before.items() if getattr(v, k) is not
                   was and getattr(v, k) != was]
        calls.append((x, v, out, changed))
    structure = structure_line(form.format("v"), calls, Value)
    at = f"{len(points)} points from {min(points)} to {max(points)}"
    wrong = [(x, o.data) for x, _, o, _ in calls
             if not close(o.data, reference(x))]
    yield (not wrong, f"{form.format('v')} has the right value at {at}" if
           not wrong else f"{form.format(f'Value({wrong[0][0]})')}.data is"
           f" {number(wrong[0][1])}; it should be "
           f"{number(reference(wrong[0][0]))}")
    sound = structure[0]
    linked = all(isinstance(o.parents, PARENTS) and any(
        p is v for p in o.parents) for _, v, o, _ in calls)
    cause = (None if sound else "does the new Value set its own "
             "push_grad?" if linked else "does the new Value list v among "
             "its parents, and set its own push_grad?")
    try:  # an error in backward() is one line; the structure's still shows
        yield gradient_line(form, op, Value, reference, points, cause)
        yield chain_line(form, op, Value, reference, points[0], linked)
        yield uses_line(form, op, Value, points[:2], sound)
    except NotYet as stop:
        yield (False, str(stop))
    yield structure


def structure_line(name, calls, Value):
    """Whether each call made one new Value whose only parent is v, with
    a push_grad of its own, and left v as it was: what the exercises
    ask, not the engine's other operations chained, which can give the
    same numbers."""
    start = getattr(Value(0.0).push_grad, "__code__", None)
    for x, v, out, changed in calls:
        if out is v:
            return (False, f"{name} returns v itself: " + (
                "make a new Value from v's number, and leave v as it was"
                if changed else "the exercise asks for a new Value whose "
                "parent is v, even where its number is v's"))
        if "push_grad" in changed:
            return (False, f"{name} sets v.push_grad, not the new Value's: "
                    "out.push_grad = push_grad")
        if changed:
            return (False, f"{name} changes v." + " and v.".join(changed) +
                    f" at v = {x}: leave v as it was; backward() alone adds "
                    "into v.grad, through push_grad")
        if not isinstance(out.parents, PARENTS):
            return (False, f"{name}'s parents are a "
                    f"{type(out.parents).__name__}, not a tuple: " + (
                        "(v) is v itself; write (v,), with the comma" if
                        out.parents is v else "give v itself, in a tuple: "
                        "(v,)"))
        stray = [p for p in out.parents if not isinstance(p, Value)]
        if stray:
            return (False, f"{name} lists a {type(stray[0]).__name__}, not a"
                    " Value, among its parents: give the new Value v itself,"
                    " Value(..., (v,)), not v.data")
        if not callable(out.push_grad):
            return (False, f"{name}'s push_grad is a "
                    f"{type(out.push_grad).__name__}, not a function: "
                    "out.push_grad = push_grad, without ()")
    slips = [(x, parents_slip(v, list(out.parents))) for x, v, out, _ in
             calls if [p is v for p in out.parents] != [True]]
    if slips:  # named at its point where the others are right
        x, slip = slips[0]
        return (False, f"{name} " + (f"at v = {x} " if len(slips) < len(
            calls) else "") + slip)
    if any(getattr(o.push_grad, "__code__", None) is start
           for _, _, o, _ in calls):
        return (False, f"{name} keeps the push_grad every Value starts "
                "with: set the new Value's own, out.push_grad = push_grad")
    return (True, f"{name} is one new Value whose only parent is v")


def parents_slip(v, parents):
    """What is wrong with parents, a list of Values that is not [v]."""
    n, mine = len(parents), sum(p is v for p in parents)
    leaves = all(not p.parents for p in parents if p is not v)
    if n == 0:
        return "lists no parents: give the new Value v as its parent, " \
            "Value(..., (v,))"
    if mine > 1:
        return f"lists v {mine} times: list it once, (v,)"
    if mine == 1 and leaves:
        return f"lists {n} parents: list only v; a fixed number such as " \
            "k is not a Value that backward() must reach"
    if n == 1 and leaves:
        return "lists a parent that is not v: give v itself, (v,), not a " \
            "copy of it"
    return (f"should be one new Value whose only parent is v, with its own "
            f"push_grad; yours lists {n} parent" + "s" * (n != 1) + ": the "
            "engine's operations chained can give the right numbers, but "
            "the exercise asks for one step with its own local derivative")


def grads(what, *values):
    """The .grad of each Value, or NotYet if one is not a number."""
    for value in values:
        if isinstance(value.grad, bool) or not isinstance(value.grad,
                                                          numbers.Real):
            raise NotYet(f"after backward() through {what}, a gradient is a "
                         f"{type(value.grad).__name__}, not a number: "
                         "push_grad must add a number into v.grad (a slope "
                         "from t or out.data, not from out itself)")
    return [float(value.grad) for value in values]


def gradient_line(form, op, Value, reference, points, cause):
    """v.grad with an upstream gradient of 2 at every point; cause: the
    question to ask where v.grad stays 0 (None: the structure is as
    asked, and the local derivative is left)."""
    name, seen = form.format("v"), False
    for x in points:
        v, once = Value(x), Value(x)
        attempt(f"backward() through {name} at v = {x}",
                (op(v) * 2.0).backward)
        attempt(f"backward() through {name} at v = {x}", op(once).backward)
        (got, alone), want = grads(name, v, once), central_difference(
            reference, x)
        if close(got / 2, want, 1e-5, 1e-7):
            seen = seen or got != 0
            continue
        # (at v = 0 a slope of 0 is the likelier slip)
        question = cause or (f"is your local derivative 0 at v = {x}? By "
                             f"finite differences it is {number(want)}" if
                             seen else "does push_grad add into v.grad, "
                             "out.grad times the local derivative?")
        hint = (f" (v.grad stays 0: {question})" if got == 0 != x else
                " (the same as with an upstream gradient of 1: does "
                "push_grad multiply by out.grad?)" if got != 0 and close(
                    got, alone, 1e-9) else "")
        return (False, f"with an upstream gradient of 2, v.grad at v = {x} "
                f"should be {number(2 * want)} (twice the slope of {name}, "
                f"by finite differences); your {name} gives "
                f"{number(got)}{hint}")
    return (True, f"the gradient of {name} matches finite differences, "
            "with an upstream gradient of 2")


def chain_line(form, op, Value, reference, x, linked):
    """Through w * 2 + b: backward() must reach the Values before v, which
    it does only through parents (linked: each new Value lists its v)."""
    w, b, chain = Value(x / 4), Value(x / 2), form.format("w * 2 + b")
    attempt(f"backward() through {chain}", lambda: op(w * 2.0 + b).backward())
    slope, (dw, db) = central_difference(reference, x), grads(chain, w, b)
    if close(dw, 2 * slope, 1e-5, 1e-7) and close(db, slope, 1e-5, 1e-7):
        return (True, f"through {chain}, with {form.split('(')[0]} last (its"
                " out.grad is 1), w.grad and b.grad match finite differences")
    return (False, f"{chain} at w = {w.data}, b = {b.data}: w.grad is "
            f"{number(dw)} and b.grad {number(db)}, not {number(2 * slope)} "
            f"and {number(slope)} (by finite differences)" + (
                "; backward() reaches w only through the new Value's "
                "parents: does it list v among them?" if dw == 0 and not
                linked else ""))


def uses_line(form, op, Value, points, sound):
    """Two uses of the operation, against the same uses apart: at one
    Value, with upstream gradients 3 and 5, their gradients add up (+=,
    not =, and each push_grad with its own out); at two Values each
    keeps its own, which a push_grad reading what a later call left
    behind (a global out) does not."""
    name, (p, q) = form.format("v"), points

    def uses(left, right, x, y):  # left * 3 + right * 5, together and apart
        both = f"{form.format(left)} * 3 + {form.format(right)} * 5"
        apart = [Value(x), Value(y)]
        together = [Value(x)] * 2 if left == right else [Value(x), Value(y)]
        attempt(f"backward() through {both}", lambda: (
            op(together[0]) * 3.0 + op(together[1]) * 5.0).backward())
        for value, scale in zip(apart, (3.0, 5.0)):
            attempt(f"backward() through {form.format(left)} * {scale:g}",
                    lambda v=value, k=scale: (op(v) * k).backward())
        return both, grads(both, *together), grads(both, *apart)

    pairs = {"v": uses("v", "v", p, p), "u, w": uses("u", "w", p, q)}
    both, got, apart = pairs["v"]
    if apart == [0.0, 0.0]:  # 0 + 0 = 0 would pass, and prove nothing
        return (False, f"whether {name} * 3 + {name} * 5 adds both "
                "gradients into v.grad shows once v.grad is no longer 0")
    if not close(got[0], sum(apart), 1e-9, 1e-12):
        kept_one = any(close(got[0], a, 1e-9, 1e-12) for a in apart)
        return (False, f"{both} at v = {p}: v.grad is {number(got[0])}, not "
                f"{number(sum(apart))}, the {number(apart[0])} and "
                f"{number(apart[1])} of the two uses apart" + (
                    "" if not sound else ": does push_grad add to v.grad "
                    "(+=), rather than set it?" if kept_one else ": does "
                    "push_grad add to v.grad out.grad times the local "
                    "derivative, and no more, with its own call's out, not "
                    "one another call left (a global, a dict, an attribute "
                    "of v)?"))
    both, got, apart = pairs["u, w"]
    if all(close(a, b, 1e-9, 1e-12) for a, b in zip(got, apart)):
        return (True, f"{name} * 3 + {name} * 5 adds both uses' gradients "
                f"into v.grad, and {both} gives u and w each their own")
    return (False, f"{both} at u = {p}, w = {q}: u.grad is {number(got[0])}"
            f" and w.grad {number(got[1])}, not the {number(apart[0])} and "
            f"{number(apart[1])} that each use gives alone: does push_grad "
            "use only its own call's Values (its v and out), not ones a "
            "later call left behind (a global, a dict, a default argument)?")


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
    """The operations in one expression: a push_grad that reads what a
    later call left behind (a global k or out) is right in each alone."""
    a, b, c, d = Value(0.5), Value(1.3), Value(-1.5), Value(2.0)
    mixed = "exp(a) * 3 + log(b) * 5 + power(c, 3) * 7 + power(d, 2)"
    attempt(f"backward() through {mixed}", lambda: (
        exp(a) * 3.0 + log(b) * 5.0 + power(c, 3) * 7.0 + power(d, 2)
    ).backward())
    got = grads(mixed, a, b, c, d)
    for name, value, g, f, scale in zip("abcd", (a, b, c, d), got, (
            math.exp, math.log, lambda x: x**3, lambda x: x**2), (3, 5, 7, 1)):
        want = scale * central_difference(f, value.data)
        if not close(g, want, 1e-5, 1e-7):
            at = ", ".join(f"{n} = {v.data}" for n, v in zip(
                "abcd", (a, b, c, d)))
            return (False, f"{mixed} at {at}: {name}.grad is "
                    f"{number(g)}, not {number(want)} (by finite "
                    "differences): does each push_grad use only its own "
                    "call's numbers (its v, k and out), not ones a later "
                    "call left behind?")
    return (True, f"{mixed} gives a, b, c and d each their own gradient")


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
