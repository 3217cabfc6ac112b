"""The pencil exercises' checks, pure Python, for a student working
alone: chapter 1's neuron and its 2-2-1 network, worked by hand. The
references are central differences of the loss, which do not use the
chain rule. The chapters import these from checks.py.
"""

import math

from backprop.verdicts import (
    NotYet,
    central_difference,
    check,
    close,
    digits_hint,
    given,
    half_unit,
    matches,
    significant,
    to_digits,
)


def _sigmoid(z):
    return 1 / (1 + math.exp(-z))



# ---- pencil exercises and numbers ------------------------------------------

# Exercise by-hand's neuron: the chapter states these numbers and its
# solution works them, and the check grades against them, from here only.
BY_HAND = {"w": -1.5, "x": 0.5, "b": 0.25, "y": 1.0}


@check
def check_by_hand(dL_dw, dL_db):
    """Exercise by-hand: the neuron of BY_HAND, L = (a - y)^2 / 2, graded
    to three significant digits by one rule: a number is right when,
    rounded to three significant digits (half away from zero), it is the
    exact answer rounded so. More digits are judged only through their
    rounding: for -0.07314, -0.07306 is right and -0.07315 is not."""
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

    no_b, minus_b = "is b in z = w x + b?", "is b added in z = w x + b?"
    slips = {  # what a wrong step gives, what to say, whether a slip on
        # the way to both gradients, which the other one, right, rules out
        "b": [(-want_b, "it has the wrong sign", False),
              (grads(1.0, gate=False)[1], "that is the blame at a, "
               "before the sigmoid's gate", True),
              (grads(0.0, gate=True)[1], no_b, True),
              (grads(-1.0, gate=True)[1], minus_b, True)],
        "w": [(-want_w, "it has the wrong sign", False),
              (want_b, "it equals the blame at z; the product w x hands "
               "it on scaled by the other factor", False),
              (want_b * n["w"], "that is dL/dx, the blame at z times w: w "
               "receives it times x, the other factor", False),
              (grads(1.0, gate=False)[0], "that is the blame at a times x, "
               "before the sigmoid's gate", False),
              (grads(0.0, gate=True)[0], no_b, True),
              (grads(-1.0, gate=True)[0], minus_b, True)]}
    right_b, right_w = (to_digits(x, want) == "right" for x, want in
                        ((db, want_b), (dw, want_w)))
    if not right_b and matches(db, want_w) and matches(dw, want_b):
        for name, x, other in (("b", db, "w"), ("w", dw, "b")):
            yield False, (f"dL/d{name} = {x} is not right yet: it is dL/d"
                          f"{other}'s value; are your two numbers swapped?")
        return

    def verdict(name, x, want, other_right, fallback):
        said = to_digits(x, want)
        if said == "right":
            return True, f"dL/d{name} = {x} is {digits_hint(x, said)}"
        open_ = [(v, h) for v, h, both in slips[name]
                 if not (both and other_right)]
        exact = next((h for v, h in open_ if matches(x, v, 3)
                      or close(x, v, 1e-6)), None)
        if said == "fewer":  # the answer to fewer digits, whatever else
            hint = digits_hint(x, said)
        elif exact:  # a slip of method, which more digits would not fix
            hint = exact
        elif said == "rounding":
            hint = f"{digits_hint(x, said)}: carry more digits at every step"
        else:
            hint = next((h for v, h in open_ if close(x, v, 0.005)),
                        fallback)
        return False, f"dL/d{name} = {x} is not right yet" + (
            f": {hint}" if hint else "")

    yield verdict("b", db, want_b, right_w, "walk back through the graph "
                  "one node at a time")
    # dL/dw to too few digits is the likelier slip, unless it is dL/db x x
    # exactly (-0.146 x 0.5 = -0.0730, which Python writes -0.073)
    if right_b and not right_w and matches(dw, db * n["x"]) and (to_digits(
            dw, want_w) != "fewer" or close(dw, db * n["x"], 1e-9)):
        yield False, (f"dL/dw = {dw} is not right yet: it is your dL/db "
                      "times x, as it should be, but from dL/db rounded: "
                      "carry more digits of dL/db into dL/dw")
    elif not right_b and not to_digits(dw, want_w) and significant(
            dw) >= 2 and abs(
            dw - db * n["x"]) <= (half_unit(dw) + half_unit(db) * abs(
                n["x"])) * (1 + 1e-9):  # wrong only through dL/db
        yield False, (f"dL/dw = {dw} is not right yet, but it follows "
                      "from your dL/db as it should: fix dL/db first")
    else:
        yield verdict("w", dw, want_w, right_b, "")


# Exercise network's 2-2-1 network, in the layout of the chapter's pencil
# network (@sec-pencil): the chapter prints these numbers and its solution
# works them, and the check grades against them, from here only.
NETWORK = {"x": [2.0, -1.0], "y": [1.5],
           "W": {1: [[0.5, 1.0], [-1.0, 0.5]], 2: [[1.0, -2.0]]},
           "b": {1: [0.5, 0.0], 2: [0.0]}}


def _network_loss(W, b, x=NETWORK["x"], y=NETWORK["y"]):
    """The half squared error of the 2-2-1 network: sigmoid hidden
    layer, identity output."""
    hidden = [_sigmoid(sum(w * e for w, e in zip(row, x)) + c)
              for row, c in zip(W[1], b[1])]
    out = sum(w * h for w, h in zip(W[2][0], hidden)) + b[2][0]
    return 0.5 * (out - y[0]) ** 2, hidden


def _nudged(layers, layer, index, h):
    """A copy of W or b with one entry moved by h."""
    copy = {k: [row[:] if isinstance(row, list) else row for row in v]
            for k, v in layers.items()}
    *outer, last = index
    target = copy[layer][outer[0]] if outer else copy[layer]
    target[last] += h
    return copy


def _slope(which, layer, index):
    """dL/d(one entry of W or b) by central differences: the reference,
    which does not use the chain rule."""
    W, b = NETWORK["W"], NETWORK["b"]

    def loss(h):
        nudged = _nudged(W if which == "W" else b, layer, index, h)
        return _network_loss(*((nudged, b) if which == "W"
                               else (W, nudged)))[0]
    return central_difference(loss, 0.0)


def _entries(what, value, shape):
    """The student's numbers as a flat list, for a shape of () (one
    number), (2,) or (2, 2), or NotYet."""
    if not shape:
        return [given(what, value)]
    if hasattr(value, "dtype") and hasattr(value, "__len__"):  # an array:
        # its entries, each of which given() reads as typed (float32 too)
        value = [list(r) if getattr(r, "ndim", 0) else r for r in value]
    if len(shape) == 1 and isinstance(value, (list, tuple)) and len(
            value) == 1 and isinstance(value[0], (list, tuple)):
        value = value[0]  # a row of two, as W(2) is shaped: 1 x 2
    rows = value if len(shape) == 2 else [value]
    if not isinstance(value, (list, tuple)) or len(value) != shape[0] or (
            len(shape) == 2 and not all(isinstance(r, (list, tuple))
                                        and len(r) == shape[1]
                                        for r in rows)):
        form = "a list of two lists of two" if len(shape) == 2 else (
            "a list of two")
        raise NotYet(f"{what} should be {form} numbers, as the starter "
                     "has it")
    return [given(f"{what}[{j}]" if len(shape) == 1 else
                  f"{what}[{k}][{j}]", e)
            for k, row in enumerate(rows) for j, e in enumerate(row)]


ANSWERS = (("my_delta2", ()), ("my_delta1", (2,)), ("my_dW2", (2,)),
           ("my_dW1", (2, 2)))  # the starter's names, and their shapes


@check
def check_network(delta2, delta1, dW2, dW1):
    """Exercise network: the blames and the weight gradients of NETWORK,
    graded to three significant digits by the rule of check_by_hand,
    one line for each of the four answers. The references are central
    differences of the loss; a wrong answer that is a known slip, or
    that follows from an earlier wrong answer of the student's, is
    named as such."""
    W, x = NETWORK["W"], NETWORK["x"]
    want = {"my_delta2": [_slope("b", 2, (0,))],
            "my_delta1": [_slope("b", 1, (j,)) for j in range(2)],
            "my_dW2": [_slope("W", 2, (0, j)) for j in range(2)],
            "my_dW1": [_slope("W", 1, (k, j)) for k in range(2)
                       for j in range(2)]}
    hidden = _network_loss(W, NETWORK["b"])[1]
    z1 = [sum(w * e for w, e in zip(row, x)) + c
          for row, c in zip(W[1], NETWORK["b"][1])]
    gates = [a * (1 - a) for a in hidden]
    got, missing = {}, {}
    for (name, shape), value in zip(ANSWERS, (delta2, delta1, dW2, dW1)):
        try:
            got[name] = _entries(name, value, shape)
        except NotYet as stop:
            missing[name] = str(stop)
    if not got:
        raise NotYet(missing["my_delta2"])

    def implied(name):  # (the earlier answer, and for each entry what
        # it gives with the slope of the entry in it), or None
        d2, d1 = (got.get(n, [None])[0] for n in ("my_delta2", "my_delta1"))
        if name == "my_delta1" and not right.get("my_delta2", True):
            return "my_delta2", [(W[2][0][j] * gates[j] * d2, [(
                "my_delta2", 0, W[2][0][j] * gates[j])]) for j in range(2)]
        if name == "my_dW2" and not right.get("my_delta2", True):
            return "my_delta2", [(a * d2, [("my_delta2", 0, a)])
                                 for a in hidden]
        if name == "my_dW1" and not right.get("my_delta1", True):
            return "my_delta1", [(got["my_delta1"][k] * x[j],
                                  [("my_delta1", k, x[j])])
                                 for k in range(2) for j in range(2)]
        return None, None

    def follows(name, mine):
        """Whether every entry is what the student's earlier answer gives,
        within the rounding of both, and of the activations or gates a
        student rounds on the way (half a percent)."""
        earlier, parts = implied(name)
        if earlier and any(significant(got[n][i]) < 2 for _, uses in parts
                           for n, i, _ in uses):
            return None  # one digit would excuse almost anything
        rounded = 0.0 if name == "my_dW1" else 0.005  # x is exact
        return earlier if earlier and all(
            abs(g - v) <= (half_unit(g) + sum(
                half_unit(got[n][i]) * abs(c) for n, i, c in uses)
                + rounded * abs(v)) * (1 + 1e-9)
            for g, (v, uses) in zip(mine, parts)) else None

    d1_want = want["my_delta1"]
    slips = {  # name: [(values, what to say)]
        "my_delta2": [([-want["my_delta2"][0]], "it has the wrong sign: "
                       "the output's blame is a(2) - y"),
                      ([2 * want["my_delta2"][0]], "that is 2 (a(2) - y): "
                       "the half in the loss cancels the 2 of the square")],
        "my_delta1": [([-v for v in d1_want], "it has the wrong sign"),
                      (d1_want[::-1], "its entries are swapped: entry j "
                       "belongs to hidden neuron j"),
                      ([W[2][0][j] * want["my_delta2"][0] for j in range(2)],
                       "that is W(2)^T delta(2), before the hidden "
                       "neurons' gates a(1 - a)")],
        "my_dW2": [([-v for v in want["my_dW2"]], "it has the wrong sign"),
                   ([want["my_delta2"][0] * z for z in z1], "that is "
                    "delta(2) times z(1): the signal in is the activation "
                    "a(1), not the pre-activation")],
        "my_dW1": [([-v for v in want["my_dW1"]], "it has the wrong sign"),
                   ([d1_want[j] * x[k] for k in range(2) for j in range(2)],
                    "it is transposed: row k is hidden neuron k's, "
                    "delta(1)_k times x")]}
    right = {name: all(to_digits(g, w) == "right"
                       for g, w in zip(got[name], want[name]))
             for name in got}

    for name, _ in ANSWERS:
        if name in missing:
            yield False, missing[name]
            continue
        mine, answer = got[name], want[name]
        said = [to_digits(g, w) for g, w in zip(mine, answer)]
        if right[name]:
            yield True, f"{name} is right to three significant digits"
            continue
        earlier = follows(name, mine)
        slip = next((h for values, h in slips[name] if all(
            matches(g, v, 3) or close(g, v, 1e-6)  # digits, or pasted
            for g, v in zip(mine, values))), None)
        first = next(i for i, s in enumerate(said) if s != "right")
        if all(s in ("right", "fewer") for s in said):
            hint = digits_hint(mine[first], "fewer")
        elif earlier:  # before a slip: the earlier answer's slip carried on
            hint = (f"it follows from your {earlier} as it should: fix "
                    f"{earlier} first")
        elif slip:
            hint = slip
        elif all(s in ("right", "fewer", "rounding") for s in said):
            hint = (f"{digits_hint(mine[first], 'rounding')}: carry more "
                    "digits at every step")
        elif name == "my_delta2":  # from the forward values alone
            hint = ("it is a(2) - y: check the forward values z(1), a(1) "
                    "and a(2) first")
        else:
            hint = "work back from the output one equation at a time"
        yield False, f"{name} is not right yet: {hint}"
