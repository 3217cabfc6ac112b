"""The companion's pencil checks (chapter 4), pure Python, so that they
also run in the page: a backward walk's order and the gradients it adds
up, gradients that accumulate, gradient clipping, and the cross-entropy's
blame. The references do not use the chain rule: the graph's own edges,
central differences, and the rule that PyTorch documents for
clip_grad_norm_. The chapters import these from checks.py.
"""

import math

from backprop.verdicts import (
    NotYet,
    call,
    central_difference,
    check,
    close,
    drawn,
    given,
    graded,
    number,
)

# ---- Exercise order: a walk in reverse topological order ------------------

# The graph, as (node, operation, its inputs) in the order it is built,
# and the leaves' values: the chapter prints these and its solution works
# them, and the check grades against them, from here only.
ORDER = {"leaves": {"x": 2.0, "w": -1.0},
         "nodes": [("a", "*", ("x", "w")), ("b", "+", ("a", "w")),
                   ("c", "*", ("a", "b")), ("L", "+", ("c", "b"))]}
_OPS = {"*": lambda p, q: p * q, "+": lambda p, q: p + q}


def _forward(moved=None, h=0.0):
    """Every node's value, in building order, with one node's value moved
    by h after it is computed: what the nodes after it then compute."""
    values = dict(ORDER["leaves"])
    if moved in values:
        values[moved] += h
    for name, op, (p, q) in ORDER["nodes"]:
        values[name] = _OPS[op](values[p], values[q])
        if name == moved:
            values[name] += h
    return values


def _consumers():
    """Each node's consumers: the nodes that take it as an input."""
    users = {name: [] for name in [*ORDER["leaves"], *(
        n for n, _, _ in ORDER["nodes"])]}
    for name, _, inputs in ORDER["nodes"]:
        for parent in dict.fromkeys(inputs):
            users[parent].append(name)
    return users


@check
def check_order(order, grads):
    """Exercise order: order, the nodes in an order in which a backward
    walk may complete their gradients (each after all its consumers), and
    grads, dL/d(node) for every node, each to three significant digits,
    against central differences of L with that node's value moved."""
    users = _consumers()
    if not order or not grads:
        raise NotYet("my_order or my_grads is still empty: fill both in")
    if not isinstance(grads, dict):
        raise NotYet("my_grads is a " + type(grads).__name__ + ": make it a "
                     'dict from each name to its gradient, {"L": 1.0, ...}')
    if isinstance(order, str):  # "L, c, b" or "Lcb": the names in it
        order = order.replace(",", " ").split() if " " in order or (
            "," in order) else list(order)
    order = [str(name).strip() for name in order]
    missing = [n for n in users if n not in order]
    extra = sorted({n for n in order if n not in users or order.count(n) > 1})
    if missing or extra:
        yield False, "my_order should name each of " + ", ".join(users) + (
            " once: " + ("it leaves out " + ", ".join(missing) if missing
                         else "it repeats or does not know " + ", ".join(
                             extra)))
    else:
        early = next(((n, u) for i, n in enumerate(order)
                      for u in users[n] if u in order[i + 1:]), None)
        yield early is None, "my_order " + (
            "completes every node after all of its consumers" if not early
            else f"is not right yet: it completes {early[0]} before "
            f"{early[1]} has sent {early[0]} its share ({early[1]} takes "
            f"{early[0]} as an input)")
    for name in reversed(users):  # from L back, as the walk goes
        if name not in grads:
            yield False, (f"my_grads has no entry '{name}': its names are "
                          + ", ".join(map(repr, grads)))
            continue
        # one path left out: the share that comes back along one of two
        shares = _shares(name)
        yield graded(f"dL/d{name}", grads.get(name), _slope(name), [
            (share, f"{name} feeds " + " and ".join(users[name]) + ", and "
             "what comes back along each path adds up")
            for share in (shares if len(shares) > 1 else [])])


def _slope(name):
    """dL/d(node) by central differences: L with the node's value moved."""
    return central_difference(lambda h: _forward(name, h)["L"], 0.0)


def _shares(name):
    """What comes back to name from each of its consumers: the
    consumer's dL/d(itself) times the local derivative."""
    values = _forward()
    return [_slope(user) * sum(
        1.0 if op == "+" else values[inputs[1 - i]]
        for i, parent in enumerate(inputs) if parent == name)
        for user, op, inputs in ORDER["nodes"] if name in inputs]


# ---- Exercise accumulate: .grad adds --------------------------------------

ACCUMULATE = {"x": 3.0}  # the leaf's value, printed by the chapter


@check
def check_accumulate(after_twice, after_cube):
    """Exercise accumulate: x.grad after y = x^2 is walked back twice,
    then after z = x^3 is walked back once more, with no zeroing between.
    The reference: each walk adds its own dy/dx or dz/dx to .grad, which
    the test compares with torch."""
    x = ACCUMULATE["x"]
    square = central_difference(lambda t: t * t, x)
    cube = central_difference(lambda t: t ** 3, x)
    for name, got, want, slips in [
            ("my_after_twice", after_twice, 2 * square,
             [(square, "that is one walk's gradient: the second backward "
               "adds its own to .grad"),
              (2 * square + cube, "that is what x.grad holds at the end: "
               "it is one tensor, which later calls add into, so read its "
               "value with x.grad.item() when you need it")]),
            ("my_after_cube", after_cube, 2 * square + cube,
             [(cube, "that is z's gradient alone: .grad still held y's two "
               "when z.backward() added to it"),
              (square + cube, "y was walked back twice before z, and each "
               "walk added to .grad")])]:
        yield graded(name, got, want, slips)


# ---- Exercise clip: one norm over every gradient --------------------------

# The gradients before clipping, by parameter, and the largest norm
# allowed: the chapter prints these, from here only.
CLIP = {"grads": {"W": [[3.0, 0.0], [-4.0, 0.0]], "b": [12.0]},
        "max_norm": 5.0}


def _flat(grads):
    return [v for g in grads.values() for v in (
        [e for row in g for e in row] if isinstance(g[0], list) else g)]


@check
def check_clip(total_norm, clipped_w, clipped_b):
    """Exercise clip: the total norm of all the gradients, then the
    clipped values of W's entry -4 and of b's 12, to three significant
    digits. The rule, as PyTorch documents clip_grad_norm_: one norm over
    every gradient together, and every gradient scaled by max_norm over
    it when it is larger (PyTorch adds 1e-6 to the norm, which changes
    no third digit here)."""
    flat, limit = _flat(CLIP["grads"]), CLIP["max_norm"]
    norm = math.sqrt(sum(v * v for v in flat))
    scale = min(1.0, limit / norm)
    b_alone = CLIP["grads"]["b"][0]
    together = "clip_grad_norm_ takes one norm over all the gradients " \
        "together, and scales them all when it is above max_norm"
    for name, got, want, slips in [
            ("my_total_norm", total_norm, norm,
             [(norm * norm, "that is the squared norm"),
              (sum(abs(v) for v in flat), "that is the sum of the sizes: "
               "the norm is the square root of the sum of squares")]),
            ("my_clipped_w", clipped_w, -4.0 * scale,
             [(-4.0, "that is the entry unclipped: " + together),
              (-4.0 / norm, "that is the gradient scaled to norm 1, not to "
               "max_norm"), (-4.0 * norm / limit, "the scale is max_norm "
               "over the norm, not the norm over max_norm")]),
            ("my_clipped_b", clipped_b, b_alone * scale,
             [(limit, "that clips b's gradient by its own norm: " +
               together), (b_alone, "that is the entry unclipped: " +
                           together), (b_alone / norm, "that is the gradient "
               "scaled to norm 1, not to max_norm"),
              (b_alone * norm / limit, "the scale is max_norm over the "
               "norm, not the norm over max_norm")])]:
        yield graded(name, got, want, slips)


# ---- Exercise cross-entropy: the blame at z ------------------------------

def _sigmoid(z):
    return 1 / (1 + math.exp(-z))


@check
def check_cross_entropy(blame):
    """Exercise cross-entropy: blame(a, y) = dL/dz of the binary
    cross-entropy L = -y log a - (1 - y) log(1 - a), with a = sigmoid(z),
    at four chosen a and sixteen drawn ones. A slip is named only when
    the reply is its formula at every one of them, to a relative 1e-6."""
    points = drawn((0.99, 0.3, 0.7, 0.05), 0.01, 0.99, n=16)
    slips = [("that is the half squared error's (a - y) sigma'(z)",
              lambda a, y: (a - y) * a * (1 - a)),
             ("that is dL/da: go on through the sigmoid to z",
              lambda a, y: (a - y) / (a * (1 - a)))]
    for y in (1.0, 0.0):
        got, want = [], []
        for a in points:
            said = f"my_blame({a}, {y:g})"  # as the starter names it
            got.append(given(said, call(said, blame, a, y)))
            want.append(central_difference(lambda z, y=y: -y * math.log(
                _sigmoid(z)) - (1 - y) * math.log(1 - _sigmoid(z)),
                math.log(a / (1 - a))))
        wrong = [i for i, (g, w) in enumerate(zip(got, want))
                 if not close(g, w, 1e-4, 1e-6)]
        if not wrong:
            yield True, f"right for the target y = {y:g}"
            continue
        hint = next((h for h, f in slips if all(close(g, f(a, y), 1e-6, 0)
                                                for g, a in zip(got, points))),
                    "it has the wrong sign" if all(close(-g, w, 1e-4, 1e-6)
                                                   for g, w in zip(got, want))
                    else "the slope of the loss in z differs")
        yield False, (f"at a = {points[wrong[0]]}, y = {y:g} your blame is "
                      f"{number(got[wrong[0]])}: {hint}")
