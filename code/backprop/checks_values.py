"""The lines of the checks of chapter 2's exercises that give the engine
a new operation (check_tanh and check_value_ops, in checks.py): each
answer tried at chosen and drawn points against central finite
differences, through a chain, in two uses at once, and for the shape
the exercises ask, one new Value whose only parent is v, with its own
push_grad."""

import numbers
import sys
import types

from backprop.verdicts import (
    NotYet,
    attempt,
    call,
    central_difference,
    close,
    number,
)

# ---- one new operation on chapter 2's Values -------------------------------

PARENTS = (tuple, list, set, frozenset)  # what the engine can walk


def operation_lines(form, op, Value, reference, points):
    """(passed, sentence) lines for one new operation on Values: its
    value, its gradient with an upstream gradient of 2, through a chain,
    whether two uses of it add up and keep apart, and whether it is one
    Value with v as its only parent, as the exercises ask. form: how it
    is called, "power({}, 3"); reference: the same function on floats."""
    calls = []
    for x in (*points, points[0]):  # twice at the first: a memo shows
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
    structure = structure_line(form.format("v"), calls, Value, op)
    at = f"{len(points)} points from {min(points)} to {max(points)}"
    wrong = [(x, o.data) for x, _, o, _ in calls[:-1]
             if not close(o.data, reference(x))]
    yield (not wrong, f"{form.format('v')} has the right value at {at}" if
           not wrong else f"{form.format(f'Value({wrong[0][0]})')}.data is"
           f" {number(wrong[0][1])}; it should be "
           f"{number(reference(wrong[0][0]))}")
    sound, cached = structure[0], calls[-1][2] is calls[0][2]
    linked = cached or all(isinstance(o.parents, PARENTS) and any(
        p is v for p in o.parents) for _, v, o, _ in calls)
    cause = (None if sound else "does each call make a new Value, not "
             "hand back an earlier one?" if cached else "does the new Value"
             " set its own push_grad?" if linked else "does the new Value "
             "list v among its parents, and set its own push_grad?")
    try:  # an error in backward() is one line; the structure's still shows
        yield gradient_line(form, op, Value, reference, points, cause)
        yield chain_line(form, op, Value, reference, points[0], linked)
        yield uses_line(form, op, Value, points[:2], sound)
    except NotYet as stop:
        yield (False, str(stop))
    yield structure


def structure_line(name, calls, Value, op):
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
                    f" at v = {x}: leave v as it was" + (
                        "; only backward() adds into v.grad, through "
                        "push_grad" if "grad" in changed else ""))
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
    if calls[-1][2] is calls[0][2]:  # the first point's, called again
        return (False, f"{name} returns the Value an earlier call made (a "
                "cache?): make a new Value at every call, with this v as its"
                " parent")
    home = engine_codes(Value)
    for _, _, out, _ in calls:
        if getattr(out.push_grad, "__code__", None) in home - {start}:
            return (False, f"{name} is a Value made by the engine's own "
                    f"operations (its last, {out.op or 'one of them'}): they "
                    "can give the right numbers, but the exercise asks for "
                    "one new Value whose push_grad adds its own local "
                    "derivative")
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
    if runs_engine(op, Value(calls[0][0]), home):
        return (False, f"{name}'s push_grad runs the engine's own "
                "push_grads: its operations chained inside can give the "
                "right numbers, but the exercise asks for a push_grad that "
                "adds its own local derivative")
    return (True, f"{name} is one new Value whose only parent is v")


def engine_codes(Value):
    """The code of the push_grads that the engine's own operations give
    their Values (and of the one every Value starts with): by identity,
    since the page's live cells all share one file name."""
    todo = [getattr(Value, name).__code__ for name in (
        "__init__", "__add__", "__mul__", "sigmoid") if hasattr(Value, name)]
    return {c for code in todo for c in code.co_consts
            if isinstance(c, types.CodeType)}


def runs_engine(op, v, home):
    """Whether op(v)'s push_grad calls one of the engine's push_grads,
    home: the engine's operations chained inside it. Never while another
    profiler runs, which it would stop."""
    if sys.getprofile() is not None:
        return False
    out, seen = op(v), []

    def watch(frame, event, arg):
        if event == "call" and frame.f_code in home:
            seen.append(frame.f_code)

    out.grad = 1.0
    sys.setprofile(watch)
    try:
        out.push_grad()
    except Exception:  # backward()'s own lines report it
        pass
    finally:
        sys.setprofile(None)
    return bool(seen)


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
        return f"lists {n} parents: list only v; a fixed number is not a " \
            "Value that backward() must reach"
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
                         "push_grad must add a Python number into v.grad " + (
                             "(.item() takes it out of a tensor)" if hasattr(
                                 value.grad, "item") else "(a slope from t "
                             "or out.data, not from out itself)"))
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
                    got, alone, 1e-9) and cause is None else "")
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
        outs = [call(form.format(left), op, value) for value in together]
        if outs[0] is outs[1] is not together[0]:  # (v itself: see below)
            raise NotYet(f"{form.format(left)} called twice on one Value "
                         "returns the same Value (a cache?): make a new "
                         "Value at every call")
        attempt(f"backward() through {both}", lambda: (
            outs[0] * 3.0 + outs[1] * 5.0).backward())
        for value, scale in zip(apart, (3.0, 5.0)):
            attempt(f"backward() through {form.format(left)} * {scale:g}",
                    lambda v=value, k=scale: (op(v) * k).backward())
        return both, grads(both, *together), grads(both, *apart)

    pairs = {"v": uses("v", "v", p, p), "u, w": uses("u", "w", p, q)}
    both, got, apart = pairs["v"]
    if apart == [0.0, 0.0]:  # 0 + 0 = 0 would pass, and prove nothing
        return (False, f"{both} leaves v.grad at 0, so whether two uses add "
                "up cannot be checked yet")
    if not close(got[0], sum(apart), 1e-5, 1e-7):  # as the slopes' lines
        kept_one = any(close(got[0], a, 1e-5, 1e-7) for a in apart)
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
    if all(close(a, b, 1e-5, 1e-7) for a, b in zip(got, apart)):
        return (True, f"two uses of {name}, on one Value ({name} * 3 + "
                f"{name} * 5) and on two ({both}), give what they give "
                "apart")
    return (False, f"{both} at u = {p}, w = {q}: u.grad is {number(got[0])}"
            f" and w.grad {number(got[1])}, not the {number(apart[0])} and "
            f"{number(apart[1])} that each use gives alone: does push_grad "
            "use only its own call's Values (its v and out), not ones a "
            "later call left behind (a global, a dict, a default argument)?")
