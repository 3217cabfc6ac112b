"""The exercises' checks (backprop/checks.py, checks_torch.py) pass the
worked solutions, say "not yet" to the starters and name what is wrong
in plausible wrong answers; the student notebooks carry them."""

import ast
import builtins
import json
import math
import shutil

import matplotlib
import nbformat
import pytest
import torch
from built import BUILD
from hypothesis import given, settings
from hypothesis import strategies as st
from mutants.solutions import program
from sources import book_numbers, read_qmd
from test_print import with_filter
from xor_reference import xor_descent

from backprop import checks, checks_torch, checks_values, verdicts
from backprop.blame import backward, forward
from backprop.engine import Value
from backprop.tasks import example_network, xor_problem
from backprop.train import train
from backprop.verdicts import central_difference
from booktools import ROOT

# every exercise with a check, by chapter; the worked solution's answer,
# as the chapter's kernel holds it after the solution has run
SOLVED = {
    "backprop": {
        "by-hand": "check_by_hand(d_z_ex * x_ex, d_z_ex)",
        "network": "check_network(d2_n[0], d1_n, dW2_n, dW1_n)",
        "gradcheck": "check_gradcheck(central_differences, mse, params64)",
        "bug": "check_bug(backward)",  # the fix: backward of @sec-blame
        "train": "check_train(final_loss)"},
    "autograd": {
        "tanh": "check_tanh(tanh, Value)",
        "value-ops": "check_value_ops(exp, log, power, Value)",
        "micro-mlp": "check_micro_mlp(train_xor)",
        "checkpoint": "check_checkpoint({s: k for s, k, _ in trade}, "
                      "best_segments[0])",
        "layer-norm": "check_layer_norm(LayerNorm)",
        "zero-grad": "check_zero_grad(train_linear)"},
    "deep": {
        "float32": "check_float32(g_needed)",
        "leaky": "check_leaky(lambda a: (1 + a**2) / 2, "
                 "lambda a, n: 2 / ((1 + a**2) * n))",
        "xavier": "check_xavier(xavier_std, he_std, 4 * xavier_std)",
        "adam": "check_adam(first_step(g_adam, ADAM['eps']), ADAM['eps'], "
                "first_step(g_adam, ADAM['tiny_eps']))",
        "residual": "check_residual(my_residual_norms)"},
    "by-hand": {
        "order": "check_order(my_order, my_grads)",
        "cross-entropy": "check_cross_entropy(lambda a, y: a - y)",  # derived
        "accumulate": "check_accumulate(my_after_twice, my_after_cube)",
        "clip": "check_clip(my_total_norm, my_clipped_w, my_clipped_b)"},
}
EACH = pytest.mark.parametrize("chapter, exercise", [
    (c, e) for c, names in SOLVED.items() for e in names], ids=str)


@EACH
def test_the_worked_solution_passes(run_chapter, chapter, exercise):
    verdict = run_chapter(chapter).value(f"str({SOLVED[chapter][exercise]})")
    assert verdict.startswith("right: every check passes"), verdict


@EACH
def test_the_worked_solution_passes_as_the_source_writes_it(chapter,
                                                            exercise):
    # without Quarto: the solution's cells, as make mutants takes them
    # from the .qmd, after the earlier cells that they read
    prelude, solved = program(chapter, exercise, SOLVED[chapter][exercise])
    namespace = {}
    with matplotlib.rc_context():  # a set-up cell styles the figures
        exec(f"{prelude}\n{solved}", namespace)
        verdict = namespace["solved"]()
    assert verdict.ok, verdict


@EACH
def test_the_starter_hears_not_yet(run_chapter, chapter, exercise):
    cells = {c.label: c for c in run_chapter(chapter).cells}
    assert f"starter-{exercise}" in cells
    text = "".join(o.get("data", {}).get("text/plain", "") for o in cells[
        f"check-{exercise}"].outputs)  # the verdict, the cell's value
    assert text.startswith("not yet: ") and "Traceback" not in text, text


def solution(chapter, label, end, *edits, names=None):
    """The names that a chapter's cell defines, its code cut at `end`
    and changed by (old, new) edits: a worked solution made wrong."""
    code = next(c.source for c in read_qmd(
        ROOT / "chapters" / f"{chapter}.qmd")[1] if c.label == label)
    code = code.split(end)[0]
    for old, new in edits:
        assert old in code
        code = code.replace(old, new)
    namespace = names or {"Value": Value}
    exec(f"import math\n{code}", namespace)
    return namespace


# tanh's six points (0, and the two outer ones where tanh is flat) and the
# nine that the check draws from [-3, 3]
POINTS = "15 points from -5.0 to 5.0"


def test_tanh_with_a_wrong_local_derivative():
    wrong = solution("autograd", "tanh-solution", "w, b =",
                     ("(1 - t * t)", "(1 - t)"))["tanh"]
    assert str(checks.check_tanh(wrong, Value)) == (
        "not yet: 3 of 5 checks pass\n"
        f"  ✓ tanh(v) has the right value at {POINTS}\n"
        # 1 - tanh(0.5)^2 = 0.786448, the wrong 1 - tanh(0.5) = 0.537883,
        # each twice, for the upstream gradient of 2, and for w in
        # tanh(w * 2 + b) at w * 2 + b = 0.5
        "  ✗ with an upstream gradient of 2, v.grad at v = 0.5 should be "
        "1.5729 (twice the slope of tanh(v), by finite differences); your "
        "tanh(v) gives 1.07577\n"
        # and for b, 0.537883 against 0.786448
        "  ✗ tanh(w * 2 + b) at w = 0.125, b = 0.25: w.grad is 1.07577 and "
        "b.grad 0.537883, not 1.5729 and 0.786448 (by finite differences)\n"
        "  ✓ two uses of tanh(v), on one Value (tanh(v) * 3 + tanh(v) * 5) "
        "and on two (tanh(u) * 3 + tanh(w) * 5), give what they give apart\n"
        "  ✓ tanh(v) is one new Value whose only parent is v")
    wrong = solution("autograd", "tanh-solution", "w, b =",
                     ("v.grad +=", "v.grad ="))["tanh"]
    # one use's 3 x 0.786448, where both give 8 x 0.786448 = 6.29158
    assert str(checks.check_tanh(wrong, Value)).splitlines()[-2] == (
        "  ✗ tanh(v) * 3 + tanh(v) * 5 at v = 0.5: v.grad is 2.35934, not "
        "6.29158, the 2.35934 and 3.93224 of the two uses apart: does "
        "push_grad add to v.grad (+=), rather than set it?")


def test_tanh_without_parents_cuts_the_graph():
    # Value(t, ()): push_grad still reaches v, so tanh(v) alone looks
    # right, but backward() never gets past the new Value, and w.grad in
    # tanh(w * 2 + b) stays 0 where it is 2 (1 - tanh(0.5)^2) = 1.5729
    cut = solution("autograd", "tanh-solution", "w, b =",
                   ("Value(t, (v,))", "Value(t, ())"))["tanh"]
    lines = str(checks.check_tanh(cut, Value)).splitlines()
    assert lines[0] == "not yet: 3 of 5 checks pass"
    assert lines[5] == ("  ✗ tanh(v) lists no parents: give the new Value "
                        "v as its parent, Value(..., (v,))")
    assert lines[3] == (
        "  ✗ tanh(w * 2 + b) at w = 0.125, b = 0.25: w.grad is 0 and b.grad "
        "0, not 1.5729 and 0.786448 (by finite differences); backward() "
        "reaches w only through the new Value's parents: does it list v "
        "among them?")
    w, b = Value(0.7), Value(-0.5)  # the chain of the worked solution
    cut(w * 2.0 + b).backward()
    assert w.grad == 0.0  # what the check now says


def test_tanh_that_never_sets_its_own_push_grad():
    # out.push_grad left as every Value starts, or set on v by a slip: the
    # parents are right, so no hint may ask about them, and nothing may
    # ask for += where the code has it; the last line names the slip
    for slip, last in [
            ("pass", "keeps the push_grad every Value starts with: set the "
             "new Value's own, out.push_grad = push_grad"),
            ("v.push_grad = push_grad", "sets v.push_grad, not the new "
             "Value's: out.push_grad = push_grad")]:
        cut = solution("autograd", "tanh-solution", "w, b =",
                       ("out.push_grad = push_grad", slip))["tanh"]
        text = str(checks.check_tanh(cut, Value))
        assert text.splitlines()[0].startswith("not yet")
        assert "among them" not in text and "(+=)" not in text, text
        assert text.splitlines()[-1] == f"  ✗ tanh(v) {last}"


def test_value_ops_without_parents_cut_the_graph():
    ops = solution("autograd", "value-ops-solution", "ops = ",
                   ("Value(value, (v,))", "Value(value, ())"))
    verdict = checks.check_value_ops(ops["exp"], ops["log"], ops["power"],
                                     Value)
    # each operation's line names the cause, which its chain line only
    # asks about; all four together are tried once each is right
    names = ["exp(v)", "log(v)", *(f"power(v, {k})" for k in
                                   (3, 2, 1, -1, -2, 0.5))]
    assert [text for _, text in verdict.lines] == [
        f"{name} lists no parents: give the new Value v as its parent, "
        "Value(..., (v,))" for name in names]
    assert [ok for ok, _ in verdict.lines] == [False] * 8
    # d/dw of f(w * 2 + b) at w * 2 + b = v, each operation's first
    # point, is 2 f'(v): 2 e^0.5, 2 / 0.5, 2 x 3 x 0.5^2, 2 x 2 x -1.5, 2 x 1,
    # 2 x -1 x 0.5^-2, 2 x -2 x (-1.5)^-3 = 1.185185, 2 x 0.5 / sqrt(0.5)
    chains = [list(checks_values.operation_lines(form, op, Value, ref,
                                                 points))[2][1]
              for form, op, ref, points in checks.value_operations(
                  ops["exp"], ops["log"], ops["power"])]
    assert [text.split(" and b.grad 0, not ")[1].split(" and ")[0] for
            text in chains] == ["3.29744", "4", "1.5", "-6", "2", "-8",
                                "1.18519", "1.41421"]


def test_tanh_whose_push_grad_adds_nothing():
    # the structure is as asked, so the hint asks about push_grad's sum
    idle = solution("autograd", "tanh-solution", "w, b =",
                    ("v.grad +=", "v.grad +"))["tanh"]
    assert str(checks.check_tanh(idle, Value)).splitlines()[2] == (
        "  ✗ with an upstream gradient of 2, v.grad at v = 0.5 should be "
        "1.5729 (twice the slope of tanh(v), by finite differences); your "
        "tanh(v) gives 0 (v.grad stays 0: does push_grad add into v.grad, "
        "out.grad times the local derivative?)")


def test_tanh_whose_push_grad_reads_what_a_later_call_left():
    # right alone and through a chain; wrong once two calls are alive.
    # By hand, 1 - tanh(0.5)^2 = 0.786448 and 1 - tanh(-1.3)^2 = 0.257433
    out = solution("autograd", "tanh-solution", "w, b =",
                   ("    t = math.tanh", "    global out\n    t = math.tanh"),
                   ("(1 - t * t)", "(1 - out.data**2)"))["tanh"]
    lines = str(checks.check_tanh(out, Value)).splitlines()
    assert lines[0] == "not yet: 4 of 5 checks pass"
    # at one v, the first use reads the second's out and its gradient 5:
    # 5 x 0.786448 twice, where 3 x and 5 x 0.786448 are right
    assert lines[4] == (
        "  ✗ tanh(v) * 3 + tanh(v) * 5 at v = 0.5: v.grad is 7.86448, not "
        "6.29158, the 2.35934 and 3.93224 of the two uses apart: does "
        "push_grad add to v.grad out.grad times the local derivative, and "
        "no more, with its own call's out, not one another call left (a "
        "global, a dict, an attribute of v)?")
    # a global t is right at one v; at two, u's reads w's: 3 x 0.257433
    t = solution("autograd", "tanh-solution", "w, b =",
                 ("    t = math.tanh", "    global t\n    t = math.tanh"))
    lines = str(checks.check_tanh(t["tanh"], Value)).splitlines()
    assert lines[0] == "not yet: 4 of 5 checks pass"
    assert lines[4] == (
        "  ✗ tanh(u) * 3 + tanh(w) * 5 at u = 0.5, w = -1.3: u.grad is "
        "0.7723 and w.grad 1.28717, not the 2.35934 and 1.28717 that each "
        "use gives alone: does push_grad use only its own call's Values "
        "(its v and out), not ones a later call left behind (a global, a "
        "dict, a default argument)?")


# wrong answers from a check-and-verdict read (helper-70) that the check
# called right, or answered with the wrong cause: (edits of the worked
# solution, the line's index, what it says). By hand: tanh'(0.5) =
# 0.786448, and 3 and 5 times it are 2.35934 and 3.93224, 8 times 6.29158
SLIPS = {
    "reads the out that v keeps": ([
        ("    out = Value(t, (v,))", "    v.out = Value(t, (v,))\n"
         "    out = v.out"), ("* out.grad", "* v.out.grad")], 4,
        "✗ tanh(v) * 3 + tanh(v) * 5 at v = 0.5: v.grad is 7.86448, not "
        "6.29158, the 2.35934 and 3.93224 of the two uses apart: does "
        "push_grad add"),
    "reads the out a dict keeps for v": ([
        ("def tanh(v):", "OUTS = {}\n\n\ndef tanh(v):"),
        ("    out = Value(t, (v,))", "    OUTS[id(v)] = out = Value(t, (v,))"),
        ("* out.grad", "* OUTS[id(v)].grad")], 4,
        "✗ tanh(v) * 3 + tanh(v) * 5 at v = 0.5: v.grad is 7.86448, not "
        "6.29158, the 2.35934 and 3.93224 of the two uses apart: does "
        "push_grad add"),
    "hands back an earlier call's Value": ([
        ("def tanh(v):", "MEMO = {}\n\n\ndef tanh(v):\n    if v.data in MEMO:"
         "\n        return MEMO[v.data]"),
        ("    out.push_grad = push_grad\n", "    out.push_grad = push_grad\n"
         "    MEMO[v.data] = out\n")], -1,
        "✗ tanh(v) returns the Value an earlier call made (a cache?): make a "
        "new Value at every call, with this v as its parent"),
    "adds its gradient in the forward pass": ([
        ("    out.push_grad = push_grad\n", "    v.grad += 1 - t * t\n")], 2,
        "✗ with an upstream gradient of 2, v.grad at v = 0.5 should be 1.5729"
        " (twice the slope of tanh(v), by finite differences); your tanh(v) "
        "gives 0.786448\n"),
    # (0.786448 x 5 + 0.786448) x 3 = 14.1561
    "multiplies v.grad by out.grad": ([(
        "v.grad += (1 - t * t) * out.grad",
        "v.grad = (v.grad + (1 - t * t)) * out.grad")], 4,
        "✗ tanh(v) * 3 + tanh(v) * 5 at v = 0.5: v.grad is 14.1561, not "
        "6.29158"),
    "is wrong at 0 only": ([("(1 - t * t)", "((1 - t * t) if v.data != 0 "
                             "else 0.0)")], 2,
                           "✗ with an upstream gradient of 2, v.grad at v "
                           "= 0.0 should be 2"),
    "resets v.grad": ([("    out = Value(t, (v,))", "    v.grad = 0.0\n"
                        "    out = Value(t, (v,))")], 5,
                      "✗ tanh(v) changes v.grad at v = 0.5: leave v as it "
                      "was; only backward() adds into v.grad, through "
                      "push_grad"),
    "changes v.data": ([("    t = math.tanh(v.data)", "    v.data = "
                         "math.tanh(v.data)\n    t = v.data")], 5,
                       "✗ tanh(v) changes v.data at v = 0.5"),
    "cuts the graph at |v| > 4": ([(
        "    t = math.tanh(v.data)\n", "    t = math.tanh(v.data)\n    if "
        "abs(v.data) > 4:\n        return Value(t)\n")], 5,
        "✗ tanh(v) at v = -5.0 lists no parents: give the new Value v as its"
        " parent, Value(..., (v,))"),
    "lists a constant too": ([("(v,)", "(v, Value(1.0))")], 5,
                             "✗ tanh(v) lists 2 parents: list only v; a "
                             "fixed number is not a Value that backward() "
                             "must reach"),
    "takes its slope from out, a Value": ([("(1 - t * t)", "(1 - out * "
                                            "out)")], 2,
                                          "✗ after backward() through "
                                          "tanh(v), a gradient is a Value, "
                                          "not a number"),
}


@pytest.mark.parametrize("slip", SLIPS)
def test_tanh_slips_that_passed_hear_their_cause(slip):
    edits, index, said = SLIPS[slip]
    tanh = solution("autograd", "tanh-solution", "w, b =", *edits)["tanh"]
    lines = str(checks.check_tanh(tanh, Value)).splitlines()
    assert lines[0].startswith("not yet") and (lines[index] + "\n").startswith(
        f"  {said}"), lines


def test_value_ops_slips_that_passed_hear_their_cause():
    # the shared helper's slip shows in each operation's line
    ops = solution("autograd", "value-ops-solution", "ops = ", (
        "v.grad += slope * out.grad", "v.grad = (v.grad + slope) * out.grad"))
    lines = str(checks.check_value_ops(ops["exp"], ops["log"], ops["power"],
                                       Value)).splitlines()
    # (e^0.5 x 5 + e^0.5) x 3 = 18 e^0.5 = 29.677, against 8 e^0.5
    assert lines[0] == "not yet: 0 of 8 checks pass"
    assert lines[1].startswith("  ✗ exp(v) * 3 + exp(v) * 5 at v = 0.5: "
                               "v.grad is 29.677, not 13.1898")

    def exp(v):  # its slope out itself, a Value, which the check's own
        out = Value(math.exp(v.data), (v,))  # code then met

        def push_grad():
            v.grad += out.grad * out

        out.push_grad = push_grad
        return out

    ops = solution("autograd", "value-ops-solution", "ops = ")
    lines = str(checks.check_value_ops(exp, ops["log"], ops["power"],
                                       Value)).splitlines()
    assert lines[0] == "not yet: 7 of 8 checks pass"  # every line shows
    assert lines[1].startswith("  ✗ after backward() through exp(v), a "
                               "gradient is a Value, not a number")


def test_a_cache_and_v_itself_hear_their_own_causes():
    memo = {}

    def cached(v):  # hands back the Value of an earlier call at v.data
        if v.data not in memo:
            memo[v.data] = solution("autograd", "tanh-solution",
                                    "w, b =")["tanh"](v)
        return memo[v.data]

    lines = str(checks.check_tanh(cached, Value)).splitlines()
    assert lines[2].endswith("(v.grad stays 0: does each call make a new "
                             "Value, not hand back an earlier one?)")

    def in_place(v):  # v itself, which is no cache
        v.data = math.tanh(v.data)
        return v

    said = str(checks.check_tanh(in_place, Value))
    assert "cache" not in said and said.endswith("returns v itself: make a "
                                                 "new Value from v's number, "
                                                 "and leave v as it was")


def test_value_ops_that_keep_k_on_v_or_chain_the_engine():
    def power(v, k):  # k kept on v: right alone, wrong mixed
        v.k = k
        out = Value(v.data**k, (v,))

        def push_grad():
            v.grad += v.k * v.data ** (v.k - 1) * out.grad

        out.push_grad = push_grad
        return out

    ops = solution("autograd", "value-ops-solution", "ops = ")
    said = str(checks.check_value_ops(ops["exp"], ops["log"], power, Value))
    # right for each k alone; together, power(c, 3) reads power(c, 2)'s k
    # on c: 7 x 2 x -1.5 + 2 x -1.5 = -24, where 44.25 is right
    assert said.splitlines()[-1].startswith(
        "  ✗ exp(a) * 3 + log(a) * 5 + power(c, 3) * 7 + power(c, 2) at a "
        "= 1.3, c = -1.5: c.grad is -24, not 44.25"), said

    def square(v, k):  # v * v for k = 2: the engine's own product
        return v * v if k == 2 else ops["power"](v, k)

    said = str(checks.check_value_ops(ops["exp"], ops["log"], square, Value))
    assert "  ✗ power(v, 2) is a Value made by the engine's own operations " \
        "(its last, *)" in said, said

    import functools  # a cache: the same Value for the same v

    said = str(checks.check_tanh(functools.lru_cache(None)(solution(
        "autograd", "tanh-solution", "w, b =")["tanh"]), Value))
    assert "  ✗ tanh(v) called twice on one Value returns the same Value " \
        "(a cache?): make a new Value at every call" in said, said


def test_by_hand_names_swapped_numbers_and_dL_dx():
    _, dw, db = by_hand()
    said = str(checks.check_by_hand(digits(db, 3), digits(dw, 3)))
    assert said.splitlines()[1:] == [
        f"  ✗ dL/db = {digits(dw, 3)} is not right yet: it is dL/dw's value; "
        "are your two numbers swapped?",
        f"  ✗ dL/dw = {digits(db, 3)} is not right yet: it is dL/db's value; "
        "are your two numbers swapped?"]
    # dL/dx = dL/dz x w = dL/db x w, and the blame at a times x, by hand
    n = checks.BY_HAND
    a = 1 / (1 + math.exp(-(n["w"] * n["x"] + n["b"])))
    for slip, cause in [(db * n["w"], "that is dL/dx"),
                        ((a - n["y"]) * n["x"], "that is the blame at a "
                         "times x, before the sigmoid's gate")]:
        said = str(checks.check_by_hand(digits(slip, 3), digits(db, 3)))
        assert said.splitlines()[-1].startswith(
            f"  ✗ dL/dw = {digits(slip, 3)} is not right yet: {cause}"), said


def test_value_ops_whose_push_grad_reads_what_a_later_call_left():
    def power(v, k):  # right for each k alone; a later call changes K
        global K
        K = k
        out = Value(v.data**K, (v,))

        def push_grad():
            v.grad += K * v.data ** (K - 1) * out.grad

        out.push_grad = push_grad
        return out

    ops = solution("autograd", "value-ops-solution", "ops = ")
    lines = str(checks.check_value_ops(ops["exp"], ops["log"], power,
                                       Value)).splitlines()
    # power(c, 3)'s push_grad reads power(c, 2)'s K: 7 x 2 x -1.5 + 2 x
    # -1.5 = -24, where 7 x 3 x (-1.5)^2 + 2 x -1.5 = 44.25
    assert lines[0] == "not yet: 8 of 9 checks pass"
    assert lines[-1] == (
        "  ✗ exp(a) * 3 + log(a) * 5 + power(c, 3) * 7 + power(c, 2) at a ="
        " 1.3, c = -1.5: c.grad is -24, not 44.25 (by finite differences): "
        "does each push_grad use only its own call's numbers (its v, k and "
        "out), not ones a later call left behind?")
    # one out shared by every call: both uses take the second's out.grad,
    # 5; by hand e^0.5 = 1.64872, times 10, against times 3 and 5 apart
    ops = solution("autograd", "value-ops-solution", "ops = ", (
        "    out = Value(value, (v,))",
        "    global out\n    out = Value(value, (v,))"))
    lines = str(checks.check_value_ops(ops["exp"], ops["log"], ops["power"],
                                       Value)).splitlines()
    assert lines[0] == "not yet: 0 of 8 checks pass"
    assert lines[1].startswith(
        "  ✗ exp(v) * 3 + exp(v) * 5 at v = 0.5: v.grad is 16.4872, not "
        "13.1898, the 4.94616 and 8.24361 of the two uses apart")


def test_tanh_of_the_wrong_shape_hears_what_to_write():
    # each breaks backward(), which is one line; the last names the slip
    for old, new, last in [
            ("(v,)", "(v)", "tanh(v)'s parents are a Value, not a tuple: "
             "(v) is v itself; write (v,), with the comma"),
            ("(v,)", "v.data", "tanh(v)'s parents are a float, not a "
             "tuple: give v itself, in a tuple: (v,)"),
            ("(v,)", "(v.data,)", "tanh(v) lists a float, not a Value, among"
             " its parents: give the new Value v itself, Value(..., (v,)), "
             "not v.data"),
            ("out.push_grad = push_grad", "out.push_grad = push_grad()",
             "tanh(v)'s push_grad is a NoneType, not a function: "
             "out.push_grad = push_grad, without ()")]:
        slip = solution("autograd", "tanh-solution", "w, b =", (old, new))
        lines = str(checks.check_tanh(slip["tanh"], Value)).splitlines()
        assert lines[0] == "not yet: 1 of 3 checks pass", lines
        assert lines[2].startswith("  ✗ backward() through tanh(v) at v = "
                                   "0.5 raised ")
        assert lines[3] == f"  ✗ {last}"

    def in_place(v):  # tanh's value and slope, but on v itself
        t = math.tanh(v.data)
        v.data = t
        return v

    lines = str(checks.check_tanh(in_place, Value)).splitlines()
    assert lines[0].startswith("not yet") and lines[-1] == (
        "  ✗ tanh(v) returns v itself: make a new Value from v's number, "
        "and leave v as it was")


def test_tanh_with_its_own_push_grad_written_other_ways_is_right():
    def from_sigmoid(v):  # tanh(v) = 2 sigmoid(2 v) - 1, from the engine
        return 2 * (2 * v).sigmoid() - 1

    def from_exp(v):  # (e^2v - 1) / (e^2v + 1), slope 1 - out^2
        e = math.exp(2 * v.data)
        out = Value((e - 1) / (e + 1), (v,))

        def push_grad():
            v.grad += out.grad * (1 - out.data**2)

        out.push_grad = push_grad
        return out

    assert checks.check_tanh(from_exp, Value).ok
    # right in value and slope, but the exercise asks for a push_grad of
    # its own, and an outside trial had this called right
    verdict = checks.check_tanh(from_sigmoid, Value)
    assert [ok for ok, _ in verdict.lines] == [True] * 4 + [False]
    assert str(verdict).splitlines()[-1] == (
        "  ✗ tanh(v) is a Value made by the engine's own operations (its "
        "last, +): they can give the right numbers, but the exercise asks "
        "for one new Value whose push_grad adds its own local derivative")

    def inside(v):  # one new Value, whose push_grad runs the engine's
        two_v = v * 2.0
        s = two_v.sigmoid()
        out = Value(2 * s.data - 1, (v,))

        def push_grad():  # an outside read had this called right
            s.grad = 2 * out.grad
            s.push_grad()
            two_v.push_grad()
            s.grad = two_v.grad = 0.0

        out.push_grad = push_grad
        return out

    verdict = checks.check_tanh(inside, Value)
    assert [ok for ok, _ in verdict.lines] == [True] * 4 + [False]
    assert str(verdict).splitlines()[-1].startswith(
        "  ✗ tanh(v)'s push_grad runs the engine's own push_grads")
    # a slope in numpy's float32 is right, to the lines' tolerance
    import numpy as np
    ops = solution("autograd", "value-ops-solution", "ops = ", (
        "v.grad += slope * out.grad", "v.grad += np.float32(slope) * out.grad"
    ), names={"Value": Value, "np": np})
    assert checks.check_value_ops(ops["exp"], ops["log"], ops["power"],
                                  Value).ok


def test_value_ops_with_a_wrong_power_rule():
    ops = solution("autograd", "value-ops-solution", "ops = ",
                   ("k * v.data ** (k - 1)", "k * v.data ** k"))
    verdict = checks.check_value_ops(ops["exp"], ops["log"], ops["power"],
                                     Value)
    assert str(verdict).splitlines()[:4] == [
        "not yet: 2 of 8 checks pass",
        "  ✓ exp(v): values, gradients and their sum are right",
        "  ✓ log(v): values, gradients and their sum are right",
        "  ✗ with an upstream gradient of 2, v.grad at v = 0.5 should be 1.5 "
        "(twice the slope of power(v, 3), by finite differences); your "
        "power(v, 3) gives 0.75"]  # 2 x 3 (0.5)^2, against 2 x 3 (0.5)^3


def test_micro_mlp_that_never_resets_its_gradients():
    wrong = solution("autograd", "micro-mlp-solution", "solved_at, xor_",
                     ("p.grad = 0.0", "pass"))["train_xor"]
    assert str(checks.check_micro_mlp(wrong)).splitlines()[:3] == [
        "not yet: 1 of 4 checks pass",
        "  ✓ the network has the right number of parameters",
        "  ✗ update 2 leaves gradient descent (loss 1.00042): are the "
        "gradients set to zero before each backward pass, and every step "
        "taken against them?"]


def by_hand():
    """Exercise 1.1's numbers and its answers, dL/dw and dL/db, by
    torch.autograd in float64."""
    n = checks.BY_HAND
    w, b = (torch.tensor(n[k], dtype=torch.float64, requires_grad=True)
            for k in "wb")
    (0.5 * (torch.sigmoid(w * n["x"] + b) - n["y"]) ** 2).backward()
    return n, w.grad.item(), b.grad.item()


def digits(x, n):
    """x to n significant digits, as a student writes it."""
    return float(f"{x:.{n}g}")


def test_pencil_answers_that_miss_a_step():
    n, _, _ = by_hand()
    # the blame at a, a - y, taken for dL/db: the gate left out
    at_a = round(1 / (1 + math.exp(-(n["w"] * n["x"] + n["b"]))) - n["y"],
                 4)
    at_w = round(at_a * n["x"], 4)
    assert str(checks.check_by_hand(at_w, at_a)) == (
        "not yet: 0 of 2 checks pass\n"
        f"  ✗ dL/db = {at_a} is not right yet: that is the blame at a, "
        "before the sigmoid's gate\n"
        f"  ✗ dL/dw = {at_w} is not right yet, but it follows from your "
        "dL/db as it should: fix dL/db first")
    assert str(checks.check_cross_entropy(lambda a, y: (a - y) * a * (1 - a))
               ).splitlines()[1] == (
        "  ✗ at a = 0.99, y = 1 your blame is -9.9e-05: that is the half "
        "squared error's (a - y) sigma'(z)")
    assert str(checks_torch.check_float32(2.0**-26 / 0.1)) == (
        f"not yet: my_g = {2.0**-26 / 0.1} is not right yet: that is a "
        "whole spacing over 0.1; the step is rounded to the nearest "
        "float32 number, so a step past half a spacing moves it")
    assert str(checks_torch.check_leaky(lambda a: (1 + a) / 2, lambda a, n:
               2 / ((1 + a) * n))).splitlines()[1] == (
        "  ✗ my_fraction(0.2) is 0.6: not the share of f(z')^2 in a standard "
        "normal z'")
    assert str(checks_torch.check_xavier(1 / 64, 2**0.5 / 8, 0.5)
               ).splitlines()[1] == (
        "  ✗ Xavier's std, 0.015625, is a variance: the question asks for a"
        " standard deviation")


def test_the_buggy_backward_is_caught_at_equal_widths_too():
    buggy = solution("backprop", "buggy-backward", "\n\n\n")
    lines = str(checks_torch.check_bug(buggy["buggy_backward"]))
    assert lines.splitlines()[:2] == [
        "not yet: 0 of 2 checks pass",
        "  ✗ 3-4-4-1, 6 examples, the default scale: the gradients of "
        "layers 1 and 2 differ from torch.autograd's; layer 3 agrees"]
    assert "3-5-4-1 network raised RuntimeError" in lines


def backward_with(*edits):
    """backward of blame.py, as @sec-blame shows it, with (old, new)
    edits: a fix of Exercise bug written wrong, or written otherwise."""
    code = (ROOT / "code" / "backprop" / "blame.py").read_text()
    for old, new in edits:
        assert old in code
        code = code.replace(old, new)
    namespace = {}
    exec(code, namespace)
    return namespace["backward"]


def test_bug_fixes_that_one_example_and_scale_1_let_through():
    # each is right for one example with scale 1, the old check's only case
    weights, biases, x = example_network([3, 4, 4, 1], seed=6050)
    acts = forward(weights, biases, x)
    y = torch.ones(1, 1)
    default = "3-4-4-1, 6 examples, the default scale: "
    scaled = "3-5-4-1, 6 examples, scale 2/6: "
    every = "the gradients of layers 1, 2 and 3 differ from torch.autograd's"
    for edit, lines in [
            (("d.sum(0) for d", "d.mean(0) for d"), [
                f"✗ {net}{every}; the bias gradients are means over the "
                "batch: the blame equations sum them"
                for net in (default, scaled)]),
            (("d.sum(0) for d", "d[0] for d"),
             [f"✗ {default}{every}", f"✗ {scaled}{every}"]),
            (("[scale * (acts[-1] - y)]", "[acts[-1] - y]"), [
                f"✓ {default}every layer's gradients agree with "
                "torch.autograd", f"✗ {scaled}{every}; all are 1/scale "
                "times too large: does the output blame take scale?"]),
            (("y, scale=1.0):", "y, scale=2.0):"), [  # its default
                f"✗ {default}{every}", f"✓ {scaled}every layer's "
                "gradients agree with torch.autograd"])]:
        wrong = backward_with(edit)
        for got, want in zip(wrong(weights, acts, y, 1.0)[1:],
                             backward(weights, acts, y)[1:]):
            assert all(torch.equal(g, w) for g, w in zip(got, want))
        verdict = checks_torch.check_bug(wrong)
        assert [line.strip() for line in str(verdict).splitlines()[1:]
                ] == lines, edit
        assert not verdict.ok


def test_a_transposed_weight_gradient_is_named_by_its_shape():
    said = str(checks_torch.check_bug(backward_with(("d.T @ a", "a.T @ d"))))
    assert said.splitlines()[1:] == [  # W1 is 4 x 3, and 5 x 3
        "  ✗ 3-4-4-1: layer 1's grad_w has shape (3, 4), expected (4, 3)",
        "  ✗ 3-5-4-1: layer 1's grad_w has shape (3, 5), expected (5, 3)"]


def test_bug_fixes_written_other_ways_are_right():
    for edits in [
            # the fix itself, in the buggy code's own words
            [("a = acts[layer]  #", "a = acts[layer + 1 - 1]  #")],
            # scale applied to the gradients instead of the output blame
            [("[scale * (acts[-1] - y)]", "[acts[-1] - y]"),
             ("return deltas, grad_w, grad_b", "return deltas, [scale * g "
              "for g in grad_w], [scale * g for g in grad_b]")],
            # sums written as products with ones, and with einsum
            [("d.sum(0)", "torch.ones(len(d)) @ d"),
             ("d.T @ a for", "torch.einsum('ni,nj->ij', d, a) for")]]:
        assert checks_torch.check_bug(backward_with(*edits)).ok, edits


def gradcheck_problem():
    """The exercise's mse and params64, as a student has them: the
    chapter's check-data cell, then the starter's."""
    cells = {c.label: c.source for c in read_qmd(
        ROOT / "chapters" / "backprop.qmd")[1]}
    names = {"torch": torch, "forward": forward}
    exec(cells["check-data"] + "\n" + cells["starter-gradcheck"], names)
    return names["mse"], names["params64"]


def nudged(loss, params, h, step=lambda up, down, h: (up - down) / (2 * h),
           dtype=torch.float64):
    """Slopes of loss, an entry of params at a time, nudged in place by
    += h, -= 2h, += h: put back to rounding, not to the bit."""
    slopes = []
    for flat in (p.view(-1) for p in params):
        for i in range(flat.numel()):
            flat[i] += h
            up = loss(params)
            flat[i] -= 2 * h
            down = loss(params)
            flat[i] += h
            slopes.append(step(up, down, h))
    return torch.tensor(slopes, dtype=dtype)


def test_central_differences_that_are_one_sided():
    mse, params = gradcheck_problem()
    base = mse(params)

    def one_sided(h):  # (L(theta + h) - L(theta)) / h
        return nudged(mse, params, h, lambda up, down, h: (up - base) / h)

    assert str(checks_torch.check_gradcheck(one_sided, mse, params)
               ).splitlines()[2].endswith(
        "(relative); it matches (L(theta + h) - L(theta)) / h, a "
        "one-sided difference")


def test_runs_that_reuse_trained_weights():
    X, y, weights, biases = xor_problem(seed=6050)  # shared by every run

    def final_loss(lr, d_hidden=8):
        return train(forward, backward, weights, biases, X, y, lr=lr,
                     steps=2000)[-1]

    lines = str(checks_torch.check_train(final_loss)).splitlines()
    assert lines[1] == (
        "  ✓ lr 0.05: your final loss 0.435379 agrees with a torch.autograd"
        " run")
    # the check calls final_loss(0.05) again, last, and it differs: the
    # evidence that the hint names
    assert lines[2].startswith("  ✗ lr 1.0: final_loss(1.0) = ")
    assert lines[2].split(" is not the loss before the last of 2000 steps "
                          "from xor_problem(d_hidden=8, seed=6050): ")[1] \
        .startswith("does every run start from fresh weights (train() "
                    "changes them in place)? final_loss(0.05) gave 0.435379,"
                    " then ")


def final_loss_with(*edits):
    """final_loss of the worked solution of Exercise train, edited."""
    return solution("backprop", "train-solution", "\n\n\n", *edits,
                    names={"forward": forward, "backward": backward,
                           "train": train, "xor_problem": xor_problem}
                    )["final_loss"]


def test_runs_a_step_off_or_of_another_width_are_not_right():
    # the last loss of 2000 steps, against 2001, or the loss before the
    # last but one: at lr 0.05 the loss moves by 7e-4 in a step
    X, y, weights, biases = xor_problem(seed=6050)
    losses = train(forward, backward, weights, biases, X, y, lr=0.05,
                   steps=2001)
    assert abs(losses[2000] / losses[1999] - 1) > 5e-4
    for edit in [("steps=2000)[-1]", "steps=2001)[-1]"),
                 ("steps=2000)[-1]", "steps=2000)[-2]"),
                 ("d_hidden=8):", "d_hidden=9):")]:  # its default, 8
        verdict = checks_torch.check_train(final_loss_with(edit))
        assert not verdict.ok and "✗ lr 0.05" in str(verdict), edit
    again = final_loss_with(("return train(forward, backward, w_t, b_t",
                             "w_t = [w.clone() for w in w_t]\n    "
                             "return train(forward, backward, w_t, b_t"))
    assert checks_torch.check_train(again).ok  # fresh weights, copied


def test_measurements_that_do_not_add_up():
    kept = {s: (s + 64 // s) * 128 * 64 * 4 + 128 * 4 for s in
            [1, 2, 4, 8, 16, 32, 64]}
    assert checks_torch.check_checkpoint(kept, 8).ok
    assert str(checks_torch.check_checkpoint(kept, 4)).splitlines()[2] == (
        "  ✗ my_best = 4: your own table keeps less with another number of "
        "segments")
    same = checks_torch.check_zero_grad(lambda zero: [1 / (k + 1) for k in
                                                      range(20)])
    assert str(same).splitlines()[2:4] == [  # no zero_grad call to skip
        "  ✗ the two curves are the same: does train_linear(False) skip "
        "optimizer.zero_grad()?",
        "  ✗ train_linear(True) calls neither optimizer.zero_grad() nor "
        "model.zero_grad(): the exercise asks for optimizer.zero_grad(), so "
        "that the check can skip it and compare train_linear(False) with "
        "summed gradients"]


finite = st.floats(-100, 100, allow_nan=False)


@given(finite, finite, finite, finite)
def test_central_differences_are_exact_for_quadratics(a, b, c, x):
    h = 1e-3  # the O(h^2) error is a third derivative's: zero here
    size = abs(a) * (abs(x) + h) ** 2 + abs(b) * (abs(x) + h) + abs(c)
    got = central_difference(lambda t: a * t * t + b * t + c, x, h)
    assert got == pytest.approx(2 * a * x + b, abs=1e-12 * size / h + 1e-12)


@given(finite, st.floats(1e-6, 1e-2))
def test_central_differences_are_odd_and_zero_on_even_functions(x, h):
    assert central_difference(lambda t: -math.sin(t) - t**3, x, h) == (
        -central_difference(lambda t: math.sin(t) + t**3, x, h))
    assert central_difference(math.cos, 0.0, h) == 0.0


@settings(max_examples=50)
@given(st.floats(-3, 3), st.sampled_from([1e-2, 1e-3, 1e-4]))
def test_central_differences_err_by_h_squared(x, h):
    # |error| <= h^2/6 max|f'''| + rounding: for sin, h^2/6 + eps/h
    err = abs(central_difference(math.sin, x, h) - math.cos(x))
    assert err <= h * h / 6 + 1e-15 / h


def test_student_notebooks_carry_a_starter_and_a_check_per_exercise(
        render_log):
    numbers = book_numbers()  # read from the sources, here
    for chapter, solved in SOLVED.items():  # as the build wrote them
        name = f"{numbers[f'sec-{chapter}']}-{chapter}.ipynb"
        nb = nbformat.read(BUILD / "notebooks" / name, as_version=4)
        text = json.dumps(nb)
        for gone in ("tanh_losses", "ops_gaps", "bug_gaps", "check_errors",
                     "with_zero", "leaky_curves", "xavier_span"):
            assert gone not in text, (chapter, gone)  # no solution code
        kinds, bound = [], set(dir(builtins))
        for cell in nb.cells:
            kinds.append((cell.metadata.get("tags", [""])[0], cell.source))
            if cell.cell_type == "code":  # starters read no later name
                tree = ast.parse(cell.source)
                bound |= names_bound(tree)
                assert kinds[-1][0] == "" or {n.id for n in ast.walk(tree)
                    if isinstance(n, ast.Name)} <= bound, cell.source
        for exercise in solved:
            title = f"\n### Exercise {numbers['exr-' + exercise]} "
            head = next(i for i, (_, source) in enumerate(kinds)
                        if title in f"\n{source}")
            after = kinds[head + 1:]
            at = [kind for kind, _ in after].index("starter")
            assert after[at + 1][0] == "check", (chapter, exercise)
            assert "### Exercise" not in "".join(s for _, s in after[:at])
            call = SOLVED[chapter][exercise].split("(")[0]
            assert f"{call}(" in after[at + 1][1]


def names_bound(tree):
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.arg)):
            names.add(getattr(node, "name", None) or node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return names


@pytest.mark.skipif(shutil.which("quarto") is None,
                    reason="Quarto is not on PATH: the print filter cannot "
                    "be rendered")
def test_print_shows_the_check_with_a_right_answers_verdict(tmp_path):
    # a check cell's label is on its output div, where Quarto moves it
    document = ("::: {#exr-one}\n## Code, easy\n\nDo it.\n\n"
                "::: {#check-data .cell}\n```python\nKEPT = 1\n```\n:::\n\n"
                "::: {#starter-one .cell}\n```python\nSTARTER = 1\n```\n\n"
                "::: {.cell-output}\nSTARTED\n:::\n:::\n\n"
                "::: {.cell}\n```python\ncheck_one()\n```\n\n"
                "::: {#check-one .cell-output}\nNOTYET\n:::\n:::\n:::\n")
    for to, present in (("typst", False), ("html", True)):
        printed = with_filter("print-drop-folded.lua", document, to, tmp_path)
        for word in ("STARTED", "NOTYET"):  # outputs: on screen only
            assert (word in printed) == present, (to, word)
        assert "STARTER" in printed  # the skeleton is printed
        assert "KEPT" in printed and "Do it" in printed
        assert "check_one()" in printed  # the check's code stays
        # in print, the verdict of a right answer, in the checks' words
        verdict = ("When your answer is right, the check prints "
                   f"`{verdicts.RIGHT}`.")
        assert (verdict in " ".join(printed.split())) != present, to


def test_an_error_in_the_answer_names_its_line():
    def tanh(v):
        t = v.dat  # a typo: the line the verdict must name
        return t

    said = str(checks.check_tanh(tanh, Value))
    line = tanh.__code__.co_firstlineno + 1
    assert said.startswith("not yet: tanh(Value(0.5)) raised AttributeError")
    assert f"at line {line} of your cell: t = v.dat" in said


def unit(x):
    """One unit of x's third significant digit."""
    return 10.0 ** (math.floor(math.log10(abs(x))) - 2)


def test_rounded_numbers_hear_close_not_a_wrong_method():
    _, dw, db = by_hand()
    said = str(checks.check_by_hand(digits(dw, 2), digits(db, 2)))
    assert said.count("close, but not to three significant digits") == 2
    assert "walk back" not in said
    # three digits, but wrong in the third: not right either
    assert not checks.check_by_hand(digits(dw, 3) + 6 * unit(dw),
                                    digits(db, 3) + 6 * unit(db)).ok
    assert checks.check_by_hand(digits(dw, 3), digits(db, 3)).ok
    # dL/dw to two digits is also dL/db (to four) times x, to two: the
    # digits are the slip, not a dL/db rounded too early
    said = str(checks.check_by_hand(digits(dw, 2), digits(db, 4)))
    assert said.splitlines()[-1] == (
        f"  ✗ dL/dw = {digits(dw, 2)} is not right yet: close, but not to "
        f"three significant digits: {digits(dw, 2)} is the answer to fewer "
        "digits; give three"), said


def test_no_tick_for_adding_gradients_that_never_arrive():
    def tanh(v):  # the value, but no push_grad: v.grad stays 0
        return Value(math.tanh(v.data), (v,))

    verdict = checks.check_tanh(tanh, Value)
    # and the last line: its parent is right, but it keeps the push_grad
    # every Value starts with
    assert [ok for ok, _ in verdict.lines] == [True, False, False, False,
                                                False]


def autograd_slopes(params):
    """The exercise's gradient, flat, by torch.autograd on its own loss:
    the mean squared error of the chapter's 5-8-1 network."""
    cells = {c.label: c.source for c in read_qmd(
        ROOT / "chapters" / "backprop.qmd")[1]}
    names = {"torch": torch}
    exec(cells["check-data"], names)
    X, y = names["X"].double(), names["y"].double()
    leaves = [p.clone().requires_grad_() for p in params]
    W1, b1, W2, b2 = leaves
    prediction = torch.sigmoid(X @ W1.T + b1) @ W2.T + b2
    loss = torch.nn.functional.mse_loss(prediction[:, 0], y)
    return torch.cat([g.flatten() for g in torch.autograd.grad(loss, leaves)])


def test_gradcheck_tells_a_finite_difference_from_the_gradient():
    mse, params = gradcheck_problem()
    exact = autograd_slopes(params)  # the same for any h
    said = str(checks_torch.check_gradcheck(lambda h: exact, mse, params))
    assert said.splitlines()[1:] == [
        "  ✓ mse(params64) is the mean squared error over the batch",
        "  ✗ central_differences gives the same slopes for h = 1e-4 and "
        "1e-6, to the last bit; a finite difference changes with h: does "
        "it use h?"]
    assert checks_torch.check_gradcheck(
        lambda h: nudged(mse, params, h), mse, params).ok
    # torch.tensor's default, float32, keeps 7 digits of the slopes: the
    # exercise's smallest errors, near 1e-10, would not show
    said = str(checks_torch.check_gradcheck(
        lambda h: nudged(mse, params, h, dtype=torch.float32), mse, params))
    assert said.splitlines()[-1] == (
        "  ✗ central_differences(0.01) returns torch.float32 numbers: keep "
        "the slopes in float64")
    assert checks_torch.check_gradcheck(  # a list of floats is float64
        lambda h: nudged(mse, params, h).tolist(), mse, params).ok


def test_by_hand_is_graded_to_three_significant_digits():
    n, dw, db = by_hand()
    # the chain rule by hand, for the book's numbers: w = -1.5, x = 0.5,
    # b = 0.25, y = 1 give dL/dw = -0.073140 and dL/db = -0.146280
    if n == {"w": -1.5, "x": 0.5, "b": 0.25, "y": 1.0}:
        assert (round(dw, 6), round(db, 6)) == (-0.07314, -0.14628)
    assert checks.check_by_hand(digits(dw, 3), digits(db, 3)).ok
    # dL/dw to two digits is also dL/db (to four) times x, to two: the
    # digits are the slip, not a dL/db rounded too early
    said = str(checks.check_by_hand(digits(dw, 2), digits(db, 4)))
    assert said.splitlines()[-1] == (
        f"  ✗ dL/dw = {digits(dw, 2)} is not right yet: close, but not to "
        f"three significant digits: {digits(dw, 2)} is the answer to fewer "
        "digits; give three"), said
    assert checks.check_by_hand(digits(dw, 5), digits(db, 6)).ok  # more
    for off in (-1, 1):  # one unit either side of the rounded answer
        said = checks.check_by_hand(digits(dw, 3) + off * unit(dw),
                                    digits(db, 3) - off * unit(db))
        # -0.0730 is the float -0.073, the answer to two digits, whose
        # third digit, 0, is wrong: close too
        assert not said.ok and str(said).count(
            "close, but not to three significant digits") == 2
    assert not checks.check_by_hand(digits(dw, 2), digits(db, 3)).ok


def test_a_right_dL_db_is_not_blamed_for_a_rounded_dL_dw():
    # -0.146 then half of it, -0.073: dL/db is right, and the hint for
    # dL/dw is to carry more digits, not to fix dL/db; the true dL/dw is
    # -0.07314, -0.0731 to three digits
    n, dw, db = by_hand()
    said = str(checks.check_by_hand(digits(db, 3) * n["x"], digits(db, 3)))
    assert said == (
        "not yet: 1 of 2 checks pass\n"
        f"  ✓ dL/db = {digits(db, 3)} is right to three significant "
        "digits\n"
        f"  ✗ dL/dw = {digits(db, 3) * n['x']} is not right yet: it is "
        "your dL/db times x, as it should be, but from dL/db rounded: "
        "carry more digits of dL/db into dL/dw")
    assert digits(dw, 3) != digits(db, 3) * n["x"]


answers = st.one_of(  # numbers a student writes for dL/dw or dL/db
    st.sampled_from([-0.0731, -0.073, -0.0732, -0.146, -0.147, -0.15,
                     0.0731, 0.146, -0.0744, -0.074, -0.1488, -0.0713,
                     -0.143, -0.0711, -0.0725, -0.0365, -0.292]),
    st.floats(-0.3, 0.3, allow_nan=False).map(lambda x: round(x, 4)))


@given(answers, answers)
def test_no_verdict_ticks_what_its_own_hint_contradicts(dw, db):
    said = str(checks.check_by_hand(dw, db))
    if "✓ dL/db" in said:  # then b is in z, added, the gate is there, and
        assert "fix dL/db" not in said and "is b in z" not in said
        assert "is b added" not in said
    if "✓ dL/dw" in said:  # dL/dw is right through the same z and gate
        assert "is b in z" not in said and "before the sigmoid's gate" \
            not in said and "is b added" not in said
    assert said.count("✓") + said.count("✗") == 2


def test_by_hand_is_symmetric_about_the_rounded_answer():
    # one and three units either side of the correctly rounded answer are
    # close; four are not: whatever the exact value's own digits, and
    # where rounding carries into a new digit (0.09996 is 0.100)
    for exact, answer, unit in [(-0.069185, -0.0692, 1e-4),
                                (-0.07314, -0.0731, 1e-4),
                                (0.09996, 0.100, 1e-3),
                                (-0.14628, -0.146, 1e-3)]:
        assert verdicts.to_digits(answer, exact) == "right"
        for off in (-3, -1, 1, 3):  # -0.0730 is written -0.073: fewer
            near = round(answer + off * unit, 6)
            assert verdicts.to_digits(near, exact) == (
                "fewer" if near == digits(exact, 2) else "rounding"), (
                exact, off)
        for off in (-4, 4):  # but -0.15, -0.14628 to two digits, is close
            far = round(answer + off * unit, 6)
            assert verdicts.to_digits(far, exact) == (
                "fewer" if far == digits(exact, 2) else None), (exact, off)
    # more digits are judged only through their rounding, even where
    # rounding twice lands elsewhere: -0.069145 is -0.0691 to three
    # digits, and -0.06915, its four, rounds to -0.0692
    assert verdicts.to_digits(-0.06915, -0.069145) == "rounding"
    assert verdicts.to_digits(-0.06914, -0.069145) == "right"
    assert verdicts.to_digits(-0.0692, -0.069145) == "rounding"


def test_by_hand_rounds_the_digits_a_student_writes_half_up():
    _, dw, db = by_hand()
    # a boundary written out: -0.1455 rounds half up to -0.146 (the float
    # is -0.14549999..., which round() would take to -0.145)
    assert checks.check_by_hand(digits(dw, 3), -0.1455).ok
    assert not checks.check_by_hand(digits(dw, 3), -0.1465).ok  # -0.147
    assert checks.check_by_hand("\u22120.0731", "-0.146").ok  # a minus
    said = str(checks.check_by_hand(float("inf"), float("-inf")))
    assert said.startswith("not yet: dL/dw is inf, not a finite number")


def test_by_hand_calls_only_a_rounding_slip_close():
    n, dw, db = by_hand()
    # the bias forgotten, z = w x: dL/dw is then off by about one per
    # cent, nine units of the third digit, a slip of method that rounding
    # does not explain, and the hint names it
    z = n["w"] * n["x"]
    a = 1 / (1 + math.exp(-z))
    no_bias = (a - n["y"]) * a * (1 - a)
    said = str(checks.check_by_hand(digits(no_bias * n["x"], 3),
                                    digits(-db, 3)))
    assert "dL/dw" in said and "is b in z = w x + b?" in said
    assert "close" not in said
    # with dL/db right, b is in z: no hint says it is not
    said = str(checks.check_by_hand(digits(no_bias * n["x"], 3),
                                    digits(db, 3)))
    assert "✓ dL/db" in said and "is b in z" not in said
    assert "close" not in said
    # three units off is still a rounding slip, four are not
    assert "close" in str(checks.check_by_hand(digits(dw, 3), digits(db, 3)
                                               + 3 * unit(db)))
    assert "close" not in str(checks.check_by_hand(digits(dw, 3),
                                                   digits(db, 3)
                                                   + 4 * unit(db)))
    assert not checks.check_by_hand(1e30, -1e30).ok  # said, not crashed
    assert "could not be checked" not in str(checks.check_by_hand(1e30,
                                                                  1e30))


def test_by_hand_reads_a_float32_tensor_as_typed():
    _, dw, db = by_hand()
    said = checks.check_by_hand(torch.tensor(-0.07305), torch.tensor(-0.146))
    assert said.ok and "-0.07305 is right" in str(said)


def test_by_hand_gives_one_hint_for_one_rounded_answer():
    _, dw, db = by_hand()
    # within three units of the third digit, every answer hears "close",
    # even where a slip of method lands near (b left out gives -0.148)
    for off in (1, 1.3, 1.4, 2, 3):
        said = str(checks.check_by_hand(digits(dw, 3),
                                        digits(db, 3) - off * unit(db)))
        assert "close, but not" in said and "is b in z" not in said, off
    for odd in (True, 10**400):
        assert not checks.check_by_hand(odd, odd).ok
        assert "could not be checked" not in str(checks.check_by_hand(odd,
                                                                      odd))


def test_xavier_stds_of_another_width_are_judged_by_their_rounding():
    # 64-wide square layers: Xavier sqrt(2 / 128) = 1/8, He sqrt(2 / 64)
    # = 0.1767767, and 4 x 1/8 = 1/2. One fan 65 wide gives Xavier
    # sqrt(2 / 129) = 0.12451, which rounds to 0.125, right by the rule,
    # and He sqrt(2 / 65) = 0.17541, 0.175: two units off, not close
    assert checks_torch.check_xavier(0.125, 0.177, 0.5).ok
    assert checks_torch.check_xavier(1 / 8, 2**0.5 / 8, "0.5").ok
    lines = str(checks_torch.check_xavier((2 / 129) ** 0.5, (2 / 65) ** 0.5,
                                          0.5)).splitlines()
    assert lines[1:3] == [
        f"  ✓ Xavier's std, {(2 / 129) ** 0.5}, is right to three "
        "significant digits (it rounds to 0.125)",
        f"  ✗ He's std, {(2 / 65) ** 0.5}, is not right yet"]
    said = str(checks_torch.check_xavier(0.125, 0.18, 0.5))  # 2 digits
    assert "  ✗ He's std, 0.18, is close, but not to three significant " \
        "digits: 0.18 is the answer to fewer digits; give three" in (
            said)


# ---- an independent attack's findings, with its exact inputs ----------------

def train_linear_with(*edits):
    """train_linear of the worked solution of Exercise zero-grad, edited."""
    return solution("autograd", "zero-grad-solution", "\n\n\n", *edits,
                    names={"torch": torch, "nn": torch.nn})["train_linear"]


ZEROED = "        if zero_grad:\n            optimizer.zero_grad()\n"


def test_zero_grad_after_backward_never_learns_and_is_told():
    # zero_grad() between loss.backward() and optimizer.step(): every
    # step sees a zero gradient, and the loss stays at its first value
    stuck = train_linear_with((ZEROED, ""), (
        "        optimizer.step()", ZEROED + "        optimizer.step()"))
    losses = stuck(True)
    assert len(set(losses)) == 1 and round(losses[0], 5) == 4.87987
    lines = str(checks_torch.check_zero_grad(stuck)).splitlines()
    assert lines[1] == (
        "  ✗ with zero_grad the loss stays at 4.87987: does optimizer.step()"
        " come after loss.backward(), and zero_grad() before it?")


def test_a_false_branch_that_zeroes_is_not_accumulation():
    # train_linear(False) still zeroes, with a learning rate of 1.05: its
    # curve changes and rises, but no gradient is ever summed
    other = train_linear_with((ZEROED, "        optimizer.zero_grad()\n"), (
        "lr=lr)", "lr=lr if zero_grad else 1.05)"))
    verdict = checks_torch.check_zero_grad(other)
    lines = str(verdict).splitlines()
    assert not verdict.ok and lines[2] == (
        "  ✓ without zero_grad the curve changes")
    assert lines[3].startswith("  ✗ without zero_grad the loss at step 2 is ")
    assert lines[3].endswith(": does train_linear(False) change more than "
                             "that call?")


def test_the_accumulating_reference_sums_the_gradients():
    # by hand, with torch.autograd.grad and no optimizer: each step takes
    # the sum of every gradient so far, which is what a .grad never
    # zeroed holds; the check's reference, train_linear(True) with its
    # zero_grad() skipped, is that curve
    torch.manual_seed(6050)  # the worked solution's data and model
    X = torch.randn(100, 3)
    y = X @ torch.tensor([1.5, -2.0, 0.5]) + 0.1 * torch.randn(100)
    w, b = (p.detach().clone().requires_grad_()
            for p in torch.nn.Linear(3, 1).parameters())
    summed, losses = [torch.zeros_like(w), torch.zeros_like(b)], []
    for _ in range(60):
        loss = ((X @ w.T + b)[:, 0] - y).pow(2).mean()
        summed = [s + g for s, g in zip(summed, torch.autograd.grad(
            loss, [w, b]))]
        with torch.no_grad():
            w -= 0.05 * summed[0]
            b -= 0.05 * summed[1]
        losses.append(loss.item())
    from backprop.checks_autograd import _accumulating
    got, calls = _accumulating(train_linear_with())
    assert calls == 60 and got == pytest.approx(losses, rel=1e-5)
    params = [torch.ones(1, requires_grad=True)]
    params[0].sum().backward()
    torch.optim.SGD(params, lr=0.1).zero_grad()  # put back: it zeroes again
    assert params[0].grad is None


def test_zero_grad_loops_written_other_ways_are_right():
    for edits in [
            [(ZEROED, ZEROED.replace("optimizer", "model"))],
            [("optimizer.zero_grad()", "optimizer.zero_grad(set_to_none="
              "False)")],
            [(ZEROED, ""), ("        optimizer.step()\n", "        optimizer"
              ".step()\n        if zero_grad:\n            optimizer.zero_"
              "grad()\n")],  # after the step: before the next backward
            [("steps=60, lr=0.05", "steps=300, lr=0.1")]]:  # it settles
        assert checks_torch.check_zero_grad(train_linear_with(*edits)).ok, \
            edits


def test_a_fix_in_float64_is_checked_in_float64():
    def fixed64(weights, acts, y, scale=1.0):
        return backward([w.double() for w in weights],
                        [a.double() for a in acts], y.double(), scale)

    assert checks_torch.check_bug(fixed64).ok
    buggy = solution("backprop", "buggy-backward", "\n\n\n")["buggy_backward"]

    def buggy64(weights, acts, y, scale=1.0):
        return buggy([w.double() for w in weights],
                     [a.double() for a in acts], y.double(), scale)

    said = str(checks_torch.check_bug(buggy64))
    assert "could not be checked" not in said
    assert said.splitlines()[1] == (
        "  ✗ 3-4-4-1, 6 examples, the default scale: the gradients of "
        "layers 1 and 2 differ from torch.autograd's; layer 3 agrees")


def test_leaky_var_w_is_called_at_several_widths():
    def fraction(a):
        return (1 + a**2) / 2

    # right at n_in = 256 only; 2 / (1.04 x 64) = 0.0300, not 0.00751
    lines = str(checks_torch.check_leaky(fraction, lambda alpha, n_in: 2 / (
        (1 + alpha**2) * 256))).splitlines()
    assert lines[2] == ("  ✗ my_var_w(0.2, 64) is 0.00751202: not what "
                        "PyTorch's leaky_relu gain keeps steady")
    said = str(checks_torch.check_leaky(fraction, lambda a, n: 2 / (
        n + n * a * a)))
    assert said.splitlines()[2] == (
        "  ✓ var_w is right for alpha = 0, 0.2, 0.5 and 1, and n_in = 64, "
        "256 and 1000")


def test_xavier_is_graded_by_rounding_to_three_digits():
    # by hand: Xavier 1/8 = 0.125, He sqrt(2/64) = 0.17678 (0.177), the
    # gate's 4/8 = 0.500; one unit off in the third digit is close
    xavier = checks_torch.check_xavier
    for wrong, line in [
            ((0.125, 0.177, 0.501), "the std the gate asks for, 0.501, is "
             "close, but not to three significant digits"),
            ((0.125, 0.177, 0.499), "the std the gate asks for, 0.499, is "
             "close, but not to three significant digits"),
            ((0.125, 0.1763, 0.5), "He's std, 0.1763, is close, but not to "
             "three significant digits (it rounds to 0.176)"),
            ((0.125, 0.176, 0.5), "He's std, 0.176, is close, but not to "
             "three significant digits"),
            ((0.125, 0.174, 0.5), "He's std, 0.174, is not right yet")]:
        verdict = xavier(*wrong)
        assert not verdict.ok and f"  ✗ {line}" in str(verdict), wrong
    for right in [(0.125, 0.1768, 0.5), (0.1249, 0.17678, "0.500"),
                  ("0.125", 0.17749, 0.50049), (1 / 8, 2**0.5 / 8, 0.4995)]:
        assert xavier(*right).ok, right


def test_a_quarter_for_the_gate_names_both_ways_to_it():
    # 0.25 is the right std squared, 0.5^2, and the std of an unsquared
    # gate, sqrt(1 / (64 x 1/4)) = 1/4: both are said, as either
    assert str(checks_torch.check_xavier(0.125, 0.177, 0.25)).splitlines(
    )[3] == ("  ✗ the std the gate asks for, 0.25, is a variance, or the "
             "std of a gate left unsquared: the question asks for a "
             "standard deviation, and E[sigma'^2] squares the gate")


def micro_mlp_with(*edits):
    return solution("autograd", "micro-mlp-solution", "solved_at, xor_",
                    *edits)["train_xor"]


def test_micro_mlp_checks_the_final_predictions_values():
    right = micro_mlp_with()

    def hard_coded(seed):
        solved_at, losses, _, n = right(seed)
        return solved_at, losses, [0.0, 1.0, 1.0, 0.0], n

    lines = str(checks.check_micro_mlp(hard_coded)).splitlines()
    assert lines[3] == ("  ✗ the final predictions [0.0, 1.0, 1.0, 0.0] are "
                        "not the network's four outputs after the last "
                        "update")
    before = micro_mlp_with(("    final = [predict(inputs).data for inputs, "
                             "_ in xor]", "    final = [o.data for o in "
                             "outputs]"))  # the outputs of the last update
    assert str(checks.check_micro_mlp(before)).splitlines()[3] == (
        "  ✗ the final predictions are the outputs before the last update: "
        "run the four points forward once more after it")


def test_micro_mlp_names_losses_recorded_after_each_update():
    after = micro_mlp_with((
        "        losses.append(loss.data)\n",
        "        losses.append(sum(((o - t) * (o - t) for o, (_, t) in zip("
        "[predict(i) for i, _ in xor], xor)), Value(0.0)).data)\n"))
    assert str(checks.check_micro_mlp(after)).splitlines()[2] == (
        "  ✗ each loss is the loss after its update: the exercise asks for "
        "the loss before it, the first from the weights as drawn")


def test_the_xor_reference_is_the_recipe_by_autograd():
    # the prompt's recipe with torch.autograd, as test_chapters does it:
    # the check's hand-written run gives the same losses and the same
    # outputs before and after the last update
    losses, _, out_before, out_after = xor_descent(6050)
    want, _, before, after = checks.xor_descent(6050)
    assert want == pytest.approx(losses, rel=1e-9)
    assert before == pytest.approx(out_before, rel=1e-9)
    assert after == pytest.approx(out_after, rel=1e-9)


def test_by_hand_names_a_slip_that_more_digits_would_not_fix():
    n, _, _ = by_hand()

    def slip(sign):  # by hand: z = w x + sign b, a, then the gate
        a = 1 / (1 + math.exp(-(n["w"] * n["x"] + sign * n["b"])))
        d_z = (a - n["y"]) * a * (1 - a)
        return d_z * n["x"], d_z

    assert [digits(g, 3) for g in slip(0)] == [-0.074, -0.148]
    assert [digits(g, 3) for g in slip(-1)] == [-0.0719, -0.144]
    assert str(checks.check_by_hand(-0.0740, -0.148)) == (
        "not yet: 0 of 2 checks pass\n"
        "  ✗ dL/db = -0.148 is not right yet: is b in z = w x + b?\n"
        "  ✗ dL/dw = -0.074 is not right yet, but it follows from your "
        "dL/db as it should: fix dL/db first")
    assert str(checks.check_by_hand(-0.0719, -0.144)).splitlines()[1] == (
        "  ✗ dL/db = -0.144 is not right yet: is b added in z = w x + b?")
    # with dL/dw right, b is in z and added: -0.148 is then close
    said = str(checks.check_by_hand(-0.0731, -0.148))
    assert "is b" not in said and "close, but not" in said


def test_by_hand_says_from_dL_db_rounded_only_when_it_is():
    # -0.1462 x 0.5 = -0.0731, not -0.07315: no "your dL/db times x"
    said = str(checks.check_by_hand(-0.07315, -0.1462))
    assert "times x" not in said
    assert said.splitlines()[2] == (
        "  ✗ dL/dw = -0.07315 is not right yet: close, but not to three "
        "significant digits (it rounds to -0.0732): carry more digits at "
        "every step")
    assert "times x" in str(checks.check_by_hand(-0.0731 + 1e-4, -0.146))


def test_by_hand_judges_more_digits_only_through_their_rounding():
    # the exact answer, by autograd, is dL/dw = -0.073140 (-0.0731): by
    # hand, the five-digit replies that round half up to -0.0731 are
    # -0.07305 to -0.07314, and only those are right, either side alike
    _, dw, db = by_hand()
    assert digits(dw, 3) == -0.0731
    for k in range(7290, 7331):
        x = -k / 100000
        said = checks.check_by_hand(x, digits(db, 3))
        assert said.ok == (7305 <= k <= 7314), x
    assert checks.check_by_hand(-0.07306, -0.14645).ok  # both round right
    for x in (-0.07319, -0.07315):
        assert "close, but not" in str(checks.check_by_hand(x, -0.146))
    assert "More digits are judged only through their rounding" in " ".join(
        checks.check_by_hand.__doc__.split())  # the rule, as the cell says


def test_float32_is_graded_to_three_significant_digits():
    # by hand: floats in [1/8, 1/4) lie 2^-26 apart, and a step moves
    # 0.2 once 0.1 |g| passes half of that: |g| > 2^-27 / 0.1 = 7.4506e-8
    g = 2.0**-27 / 0.1
    assert round(g, 12) == 7.4506e-08
    for right in (g, 7.45e-8, 7.4506e-8, "7.45e-08", 7.4549e-8):
        assert checks_torch.check_float32(right).ok, right
    for wrong, said in [
            (7.6e-8, "a step of 0.1 x 7.6e-08 already moves the stored "
             "weight: the threshold is lower"),
            (7.4e-8, "a step of 0.1 x 7.4e-08 still leaves the stored weight"
             " at 0.2: the threshold is higher"),
            (7.31e-8, "a step of 0.1 x 7.31e-08 still leaves the stored "
             "weight at 0.2: the threshold is higher"),
            (7.46e-8, "close, but not to three significant digits")]:
        assert str(checks_torch.check_float32(wrong)) == (
            f"not yet: my_g = {wrong} is not right yet: {said}"), wrong
    assert str(checks_torch.check_float32(-1e-8)) == (
        "not yet: my_g = -1e-08 is negative: |g| is a size, give it without "
        "its sign")


def test_cross_entropy_names_a_slip_only_when_the_reply_is_it():
    # (a - y)(1 - a) is within 1e-6 of (a - y) a (1 - a) at a = 0.99 only
    # in absolute terms, and log(a) - y near dL/da there by chance
    for wrong in (lambda a, y: (a - y) * (1 - a),
                  lambda a, y: math.log(a) - y):
        said = str(checks.check_cross_entropy(wrong))
        assert "half squared error" not in said and "dL/da" not in said
        assert said.count("the slope of the loss in z differs") == 2

    fixed = {(a, y): a - y for a in (0.99, 0.3, 0.7, 0.05) for y in (0, 1)}
    said = str(checks.check_cross_entropy(lambda a, y: fixed.get((a, y), 0.0)))
    assert said.startswith("not yet: 0 of 2 checks pass")  # drawn points
    for right in (lambda a, y: -(y - a), lambda a, y: a * (1 - y) - y * (
            1 - a), lambda a, y: (a - y) * (a * (1 - a)) / (a * (1 - a))):
        assert checks.check_cross_entropy(right).ok


def test_the_gradcheck_batch_is_the_chapters():
    from backprop.checks_torch import _check_batch
    cells = {c.label: c.source for c in read_qmd(
        ROOT / "chapters" / "backprop.qmd")[1]}
    names = {"torch": torch}
    exec(cells["check-data"], names)
    X, y, params = _check_batch()
    assert torch.equal(X, names["X"].double())
    assert torch.equal(y, names["y"].double())
    for got, want in zip(params, [names[k].double() for k in (
            "W1", "b1", "W2", "b2")]):
        assert torch.equal(got, want)


def test_gradcheck_needs_finite_differences_of_the_true_loss():
    mse, params = gradcheck_problem()
    exact = autograd_slopes(params)
    # the gradient itself, times 1 + h^2: it changes with h, but at
    # h = 0.01 a central difference is off the gradient by its truncation
    said = str(checks_torch.check_gradcheck(lambda h: exact * (1 + h * h),
                                            mse, params)).splitlines()
    assert said[2].startswith("  ✗ h = 0.01: your slopes differ from "
                              "central differences")
    assert said[3].startswith("  ✗ h = 0.0001: your slopes differ")
    cells = {c.label: c.source for c in read_qmd(
        ROOT / "chapters" / "backprop.qmd")[1]}
    for edit, hint in [
            ("** 2).mean()", "it sums the squared errors, where the mean "
             "divides by n"),
            ("acts[-1][:, 0] - y64", "the outputs, n x 1, minus y, n, "
             "broadcast to n x n; take the outputs' column, acts[-1][:, 0]")]:
        names = {"torch": torch, "forward": forward}
        starter = cells["starter-gradcheck"].replace(*(
            (edit, "** 2).sum()") if "mean" in edit else (
                edit, "acts[-1] - y64")))
        exec(cells["check-data"] + "\n" + starter, names)
        wrong, ps = names["mse"], names["params64"]
        verdict = checks_torch.check_gradcheck(
            lambda h, wrong=wrong, ps=ps: nudged(wrong, ps, h), wrong, ps)
        lines = str(verdict).splitlines()
        assert lines[1].startswith("  ✗ mse(params64) is ") and \
            lines[1].endswith(hint), lines[1]
        assert all(line.startswith("  ✗") for line in lines[1:])


def test_gradcheck_takes_a_tensor_per_parameter():
    mse, params = gradcheck_problem()

    def per_parameter(h):
        flat, at = nudged(mse, params, h), 0
        shaped = []
        for p in params:
            shaped.append(flat[at:at + p.numel()].view_as(p))
            at += p.numel()
        return shaped

    assert checks_torch.check_gradcheck(per_parameter, mse, params).ok
    said = str(checks_torch.check_gradcheck(
        lambda h: [torch.zeros(3, 3, dtype=torch.float64)], mse, params))
    assert said.splitlines()[-1] == (
        "  ✗ central_differences(0.01) returns 9 slopes; return one flat "
        "tensor of 57 slopes, one for each entry of params64 in order (or "
        "one tensor per parameter, shaped like it)")


def test_train_gives_the_fresh_weights_hint_only_on_evidence():
    # 1999 steps, an ignored lr: each a fresh run, so no hint about weights
    for edit, hint in [
            (("steps=2000)[-1]", "steps=1999)[-1]"), ": it is the loss before"
             " step 1999, not before the 2000th and last"),
            (("lr=lr,", "lr=0.2,"), ": final_loss gives the same loss for "
             "every learning rate: does it pass lr to train()?")]:
        said = str(checks_torch.check_train(final_loss_with(edit)))
        assert "fresh weights" not in said and said.count(hint) >= 2, said


def test_train_checks_a_learning_rate_the_exercise_does_not_name():
    right = final_loss_with()
    table = {(0.05, 8): right(0.05), (1.0, 8): right(1.0),
             (0.2, 2): right(0.2, 2)}  # the exercise's three runs

    def hard_coded(lr, d_hidden=8):
        return table.get((lr, d_hidden), 0.1)

    verdict = checks_torch.check_train(hard_coded)
    assert not verdict.ok and [ok for ok, _ in verdict.lines] == [
        True, True, True, False]
    assert checks_torch.TRAIN_LR not in (0.05, 0.2, 1.0)


def test_tanh_right_only_at_its_named_points_is_wrong():
    right = solution("autograd", "tanh-solution", "w, b =")["tanh"]

    def looked_up(v):  # right at 0.5, -1.3 and 2.0, and nowhere else
        return right(v) if v.data in (0.5, -1.3, 2.0) else right(v * 0.0)

    said = str(checks.check_tanh(looked_up, Value))
    assert said.startswith("not yet") and "has the right value" not in said


def test_value_ops_test_even_and_negative_powers_at_negative_v():
    ops = solution("autograd", "value-ops-solution", "ops = ",
                   ("k * v.data ** (k - 1)", "k * abs(v.data) ** (k - 1)"))
    lines = str(checks.check_value_ops(ops["exp"], ops["log"], ops["power"],
                                       Value)).splitlines()
    # by hand: d/dv v^2 = 2v = -3 at v = -1.5, twice that -6 (abs gives
    # +6), and d/dv v^-2 = -2 v^-3 = 0.592593, twice 1.18519
    assert lines[4] == (
        "  ✗ with an upstream gradient of 2, v.grad at v = -1.5 should be -6"
        " (twice the slope of power(v, 2), by finite differences); your "
        "power(v, 2) gives 6")
    assert lines[7] == (
        "  ✗ with an upstream gradient of 2, v.grad at v = -1.5 should be "
        "1.18519 (twice the slope of power(v, -2), by finite differences);"
        " your power(v, -2) gives -1.18519")


def test_value_ops_test_a_power_at_v_zero():
    # k v^k / v is k v^(k-1) except at v = 0, where it divides by zero:
    # an outside trial had it called right
    ops = solution("autograd", "value-ops-solution", "ops = ",
                   ("k * v.data ** (k - 1)", "k * v.data**k / v.data"))
    lines = str(checks.check_value_ops(ops["exp"], ops["log"], ops["power"],
                                       Value)).splitlines()
    assert lines[0] == "not yet: 5 of 8 checks pass"
    for k, line in zip((3, 2, 1), lines[3:6]):
        assert line.startswith(f"  ✗ power(Value(0.0), {k}) raised "
                               "ZeroDivisionError"), line
    # guarded with a slope of 0 at v = 0, which is 1 for k = 1
    ops = solution("autograd", "value-ops-solution", "ops = ",
                   ("k * v.data ** (k - 1)",
                    "k * v.data**k / v.data if v.data != 0 else 0.0"))
    lines = str(checks.check_value_ops(ops["exp"], ops["log"], ops["power"],
                                       Value)).splitlines()
    assert lines[0] == "not yet: 7 of 8 checks pass"
    assert lines[5] == (
        "  ✗ with an upstream gradient of 2, v.grad at v = 0.0 should be 2 "
        "(twice the slope of power(v, 1), by finite differences); your "
        "power(v, 1) gives 0")


def test_checkpoint_reads_keys_written_as_strings():
    kept = {s: (s + 64 // s) * 128 * 64 * 4 + 128 * 4 for s in
            [1, 2, 4, 8, 16, 32, 64]}  # by hand, as above
    assert checks_torch.check_checkpoint({str(s): k for s, k in
                                          kept.items()}, "8").ok
    assert checks_torch.check_checkpoint({float(s): k for s, k in
                                          kept.items()}, 8.0).ok
    for gone, said in ((1, "1 segment"), (2, "2 segments")):
        assert str(checks_torch.check_checkpoint({
            s: k for s, k in kept.items() if s != gone}, 8)) == (
            f"not yet: my_kept has no entry for {said}")


def test_a_decimal_comma_is_told_to_be_a_point():
    # -0,146 in Python is the tuple (0, 146); "-0,146" a string
    from backprop import verdicts

    for typed in [(0, 146), "-0,146"]:
        with pytest.raises(verdicts.NotYet, match="a comma separates "
                                                  "values; write a decimal"):
            verdicts.given("dL/db", typed)
    assert verdicts.given("dL/db", "−0.146") == -0.146


def test_an_engine_broken_by_an_edit_is_named_before_the_answer():
    # the trial's slip: __add__ that lists only self as its parent
    class Cut(Value):
        def __add__(self, other):
            other = other if isinstance(other, Value) else Cut(other)
            out = Cut(self.data + other.data, (self,))

            def push_grad():
                self.grad += out.grad
            out.push_grad = push_grad
            return out

    def tanh(v):
        t = math.tanh(v.data)
        out = type(v)(t, (v,))

        def push_grad():
            v.grad += (1 - t * t) * out.grad
        out.push_grad = push_grad
        return out

    verdict = str(checks.check_tanh(tanh, Cut))
    assert "the engine's own + and * give" in verdict
    assert "+=" not in verdict  # the student's tanh is not blamed
    assert str(checks.check_tanh(tanh, Value)).startswith("right")
    assert "the engine's own" in str(checks.check_value_ops(
        math.exp, math.log, pow, Cut))


def test_second_attack_verdicts():
    # a loop that zeroes by hand is told to call zero_grad(), as the
    # exercise asks: with no call to skip, a False branch that zeroes by
    # hand too would pass unseen
    def train_linear(zero_grad, steps=60, lr=0.05, seed=6050):
        torch.manual_seed(seed)
        X = torch.randn(100, 3)
        y = X @ torch.tensor([1.5, -2.0, 0.5]) + 0.1 * torch.randn(100)
        model = torch.nn.Linear(3, 1)
        losses = []
        for _ in range(steps):
            if zero_grad:
                for p in model.parameters():
                    p.grad = None
            loss = torch.nn.functional.mse_loss(model(X).squeeze(1), y)
            loss.backward()
            with torch.no_grad():
                for p in model.parameters():
                    p -= lr * p.grad
            losses.append(loss.item())
        return losses

    said = str(checks_torch.check_zero_grad(train_linear))
    assert "the exercise asks for optimizer.zero_grad()" in said
    # one digit is no slip and no "follows from dL/db" (-0.1 x 0.5 = -0.05)
    assert "follows from" not in str(checks.check_by_hand(-0.1, -0.1))
    # two digits, -0.14, is no "minus b" slip (that is -0.1437) by name
    assert "is b added" not in str(checks.check_by_hand(-0.07, -0.14))
    # one digit names no slip: -0.1 is not "the blame at z" (-0.146)
    verdict = str(checks.check_by_hand(-0.1, -0.146))
    assert "blame at z" not in verdict
    # too few digits is said first: -0.07 is dL/dw to one digit
    verdict = str(checks.check_by_hand(-0.07, -0.146))
    assert "fewer digits" in verdict and "times x" not in verdict
    # a slip at three digits is still named
    assert "blame at z" in str(checks.check_by_hand(-0.146, -0.146))


# ---- Exercise network: the 2-2-1 network by pencil --------------------------

def network_by_autograd():
    """Exercise network's answers, (delta2, delta1, dW2, dW1), by
    torch.autograd in float64: the blames are the bias gradients."""
    n = checks.NETWORK
    as64 = {"dtype": torch.float64}
    W1, b1, W2, b2 = (torch.tensor(n[k][layer], **as64, requires_grad=True)
                      for layer in (1, 2) for k in ("W", "b"))
    hidden = torch.sigmoid(W1 @ torch.tensor(n["x"], **as64) + b1)
    (0.5 * (W2 @ hidden + b2 - n["y"][0]).pow(2).sum()).backward()
    return (b2.grad.item(), b1.grad.tolist(), W2.grad[0].tolist(),
            W1.grad.tolist()), hidden.detach().tolist()


def to3(answer):
    """Each number of an answer to three significant digits."""
    if isinstance(answer, (list, tuple)):
        return [to3(a) for a in answer]
    return digits(answer, 3)


def test_network_passes_three_digits_and_more():
    answer, _ = network_by_autograd()
    assert checks.check_network(*to3(answer)).ok
    assert checks.check_network(*answer).ok  # every digit
    # a tensor of the right shape is a list of numbers too
    assert checks.check_network(answer[0], torch.tensor(to3(answer[1])),
                                *to3(answer[2:])).ok


@pytest.mark.parametrize("which", range(4))
def test_network_fails_any_entry_off_by_a_unit(which):
    answer = to3(network_by_autograd()[0])
    flat = [[a] if not isinstance(a, list) else a for a in answer]
    for index in range(len(sum(([e] if not isinstance(e, list) else e
                                for e in flat[which]), []))):
        for off in (-1, 1):
            wrong = json.loads(json.dumps(answer))
            if which == 0:
                wrong[0] += off * unit(wrong[0])
            elif which == 3:
                row, col = divmod(index, 2)
                wrong[3][row][col] += off * unit(wrong[3][row][col])
            else:
                wrong[which][index] += off * unit(wrong[which][index])
            said = checks.check_network(*wrong)
            assert not said.ok, (which, index, off)
            assert sum(ok for ok, _ in said.lines) == 3, str(said)


def test_network_names_the_slips():
    (d2, d1, dW2, dW1), hidden = network_by_autograd()
    n = checks.NETWORK
    W2, x = n["W"][2][0], n["x"]
    z1 = [sum(w * e for w, e in zip(row, x)) + c
          for row, c in zip(n["W"][1], n["b"][1])]
    lines = str(checks.check_network(
        to3(-d2), to3([w * d2 for w in W2]), to3([d2 * z for z in z1]),
        to3([[dW1[0][0], dW1[1][0]], [dW1[0][1], dW1[1][1]]]))).splitlines()
    assert lines[1].endswith("my_delta2 is not right yet: it has the wrong "
                             "sign: the output's blame is a(2) - y")
    assert lines[2].endswith("that is W(2)^T delta(2), before the hidden "
                             "neurons' gates a(1 - a)")
    assert lines[3].endswith("that is delta(2) times z(1): the signal in is"
                             " the activation a(1), not the pre-activation")
    assert lines[4].endswith("it is transposed: row k is hidden neuron k's,"
                             " delta(1)_k times x")
    said = str(checks.check_network(to3(d2), to3([-v for v in d1]),
                                    to3([-v for v in dW2]), to3(dW1)))
    assert said.count("it has the wrong sign") == 2 and "✓ my_dW1" in said


def test_network_traces_a_wrong_answer_to_the_earlier_one():
    (d2, _, _, _), hidden = network_by_autograd()
    n = checks.NETWORK
    W2, x = n["W"][2][0], n["x"]
    gates = [a * (1 - a) for a in hidden]
    slip = -1.1  # a wrong delta(2), carried on correctly by hand
    d1 = [to3(w * slip * g) for w, g in zip(W2, gates)]
    said = str(checks.check_network(
        slip, d1, [to3(slip * a) for a in hidden],
        [[to3(d * e) for e in x] for d in d1])).splitlines()
    assert said[1].endswith("my_delta2 is not right yet: it is a(2) - y: "
                            "check the forward values z(1), a(1) and a(2) "
                            "first")
    for line, earlier in zip(said[2:], ("my_delta2", "my_delta2",
                                        "my_delta1")):
        assert line.endswith(f"it follows from your {earlier} as it "
                             f"should: fix {earlier} first"), line
    # one entry off by more than rounding is not traced back
    d1_off = d1[:1] + [d1[1] + 10 * unit(d1[1])]
    said = str(checks.check_network(slip, d1_off, [to3(slip * a)
                                                   for a in hidden], None))
    assert "my_delta1 is not right yet: work back" in said
    assert d2 != slip


def test_network_hears_fewer_digits_and_missing_answers():
    answer, _ = network_by_autograd()
    said = str(checks.check_network(digits(answer[0], 2), *to3(answer[1:])))
    assert "my_delta2 is not right yet: close, but not to three" in said
    assert str(checks.check_network(None, None, None, None)) == (
        "not yet: my_delta2 is None: put your number in its place")
    said = str(checks.check_network(to3(answer[0]), [None, None],
                                    to3(answer[2]), [1.0, 2.0]))
    assert "✓ my_delta2" in said and "✓ my_dW2" in said
    assert "✗ my_delta1[0] is None: put your number in its place" in said
    assert ("✗ my_dW1 should be a list of two lists of two numbers, as the "
            "starter has it") in said


# ---- Exercise layer-norm: a torch.autograd.Function ------------------------

def layer_norm_function(backward=None, forward=None):
    """A LayerNorm Function with the exercise's forward pass and a given
    backward(v, y, sigma), or a given forward(x)."""
    class LayerNorm(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            if forward:
                return forward(x)
            centred = x - x.mean(-1, keepdim=True)
            sigma = (centred.pow(2).mean(-1, keepdim=True) + 1e-5).sqrt()
            ctx.save_for_backward(centred / sigma, sigma)
            return centred / sigma

        @staticmethod
        def backward(ctx, grad_output):
            return backward(grad_output, *ctx.saved_tensors)
    return LayerNorm


def _mean(t, dim=-1):
    return t.mean(dim, keepdim=True)


@pytest.mark.parametrize("backward, said", [
    (lambda v, y, s: -(v - _mean(v) - y * _mean(v * y)) / s,
     "it has the wrong sign"),
    (lambda v, y, s: v / s, "that treats the mean and sigma as constants"),
    (lambda v, y, s: (v - _mean(v)) / s, "the term in y mean(v y)"),
    (lambda v, y, s: (v - y * _mean(v * y)) / s, "the term mean(v)"),
    (lambda v, y, s: (1 - _mean(torch.ones_like(v)) - y * _mean(y)) / s,
     "it does not use grad_output"),
    (lambda v, y, s: None, "gives no gradient"),
    # a mean over the wrong dimension: the shapes are not square
    (lambda v, y, s: (v - _mean(v, 0) - y * _mean(v * y, 0)) / s,
     "it differs from torch's autograd of layer_norm")])
def test_layer_norm_check_names_wrong_backward_passes(backward, said):
    verdict = checks_torch.check_layer_norm(layer_norm_function(backward))
    assert not verdict.ok and said in str(verdict), str(verdict)
    assert "✓ the forward pass is torch's layer_norm" in str(verdict)


@pytest.mark.parametrize("forward, said", [
    (lambda x: (x - _mean(x)) / (x.var(-1, keepdim=True) + 1e-5).sqrt(),
     "var divides by n - 1"),
    (lambda x: (x - _mean(x)) / (x.var(-1, keepdim=True, correction=0)
                                 .sqrt() + 1e-5), "inside the square root"),
    (lambda x: (x - _mean(x, 0)) / (x.var(0, keepdim=True, correction=0)
                                    + 1e-5).sqrt(),
     "it differs from torch's layer_norm"),
    (lambda x: (x - _mean(x)) / (x.var(-1, keepdim=True, correction=0)
                                 + 1e-4).sqrt(), "differs from torch's")])
def test_layer_norm_check_names_wrong_forward_passes(forward, said):
    verdict = checks_torch.check_layer_norm(layer_norm_function(
        forward=forward))
    assert not verdict.ok and said in str(verdict), str(verdict)


def test_layer_norm_check_takes_a_right_answer_written_another_way():
    def backward(v, y, sigma):  # the Jacobian built, then v J
        n = y.shape[-1]
        J = (torch.eye(n, dtype=y.dtype) - 1 / n
             - y[..., :, None] * y[..., None, :] / n) / sigma[..., None]
        return (v[..., :, None] * J).sum(-2)
    assert checks_torch.check_layer_norm(layer_norm_function(backward)).ok
    assert "subclasses torch.autograd.Function" in str(
        checks_torch.check_layer_norm(lambda x: x))


def test_network_reads_float32_arrays_as_typed():
    import numpy as np

    answer, _ = network_by_autograd()
    right = to3(answer)
    # -0.6415 rounds to -0.642, not to dW2's -0.641: wrong as a list, and
    # as float32, whose binary value lies just above -0.6415
    for form in (list, lambda v: torch.tensor(v, dtype=torch.float32),
                 lambda v: np.array(v, dtype=np.float32)):
        said = checks.check_network(right[0], right[1],
                                    form([-0.6415, right[2][1]]), right[3])
        assert not said.ok and "✗ my_dW2" in str(said), form
        assert checks.check_network(right[0], form(right[1]),
                                    form(right[2]), right[3]).ok


def test_network_traces_nothing_back_to_a_one_digit_answer():
    # delta(2) = -1 is right to one digit: almost any delta(1) lies within
    # its rounding, so none is said to follow from it
    said = str(checks.check_network(-1.0, [-0.30, 0.20], [-0.9, -0.1],
                                    [[-0.5, 0.3], [0.2, -0.1]]))
    assert "follows from" not in said, said


def test_a_message_points_to_the_students_line_not_torchs():
    class TwoGradients(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return torch.nn.functional.layer_norm(x, x.shape[-1:])

        @staticmethod
        def backward(ctx, grad_output):
            return grad_output, grad_output  # one too many
    said = str(checks_torch.check_layer_norm(TwoGradients))
    assert "incorrect number of gradients" in said, said  # torch's words
    assert "_execution_engine" not in said and "user_fn" not in said, said
    assert "drop the comma" in str(checks.check_network((-1.03,), None,
                                                        None, None))


def test_network_names_swapped_hidden_neurons():
    answer = to3(network_by_autograd()[0])
    said = str(checks.check_network(answer[0], answer[1][::-1], answer[2],
                                    answer[3]))
    assert "my_delta1 is not right yet: its entries are swapped" in said


def test_layer_norm_check_is_not_fooled_by_a_backward_that_edits_v():
    def in_place(v, y, sigma):  # right, but it scales grad_output in place
        v /= sigma
        return v - _mean(v) - y * _mean(v * y)
    assert checks_torch.check_layer_norm(layer_norm_function(in_place)).ok
    zeroed = checks_torch.check_layer_norm(layer_norm_function(
        lambda v, y, sigma: v.zero_()))
    assert not zeroed.ok and "✓ backward()" not in str(zeroed)


# ---- the companion's checks and chapter 3's last two, against torch ---------

def order_by_autograd():
    """Exercise order's graph in torch: every node's dL/d(node)."""
    values = {k: torch.tensor(v, dtype=torch.float64, requires_grad=True)
              for k, v in checks.ORDER["leaves"].items()}
    values["a"] = values["x"] * values["w"]
    values["b"] = values["a"] + values["w"]
    values["c"] = values["a"] * values["b"]
    values["L"] = values["c"] + values["b"]
    for v in values.values():
        v.retain_grad()
    values["L"].backward()
    return {k: 1.0 if k == "L" else v.grad.item() for k, v in values.items()}


def test_order_check_grades_torch_and_names_the_node_completed_early():
    # the graph, written out here by hand, is the one the module holds
    assert checks.ORDER["nodes"] == [("a", "*", ("x", "w")),
                                     ("b", "+", ("a", "w")),
                                     ("c", "*", ("a", "b")),
                                     ("L", "+", ("c", "b"))]
    grads = order_by_autograd()
    for order in (["L", "c", "b", "a", "w", "x"], ["L", "c", "b", "a", "x",
                                                   "w"]):
        assert checks.check_order(order, grads).ok
    said = str(checks.check_order(["L", "b", "c", "a", "w", "x"], grads))
    assert "completes b before c has sent b its share" in said
    # dL/dw by one path only: through a (dL/da * x), or through b
    one_path = {**grads, "w": grads["a"] * checks.ORDER["leaves"]["x"]}
    said = str(checks.check_order(["L", "c", "b", "a", "w", "x"], one_path))
    assert "✗ dL/dw = -8.0 is not right yet: w feeds a and b" in said
    assert said.count("✗") == 1


def test_accumulate_check_grades_what_torch_holds():
    x = torch.tensor(checks.ACCUMULATE["x"], requires_grad=True)
    y = x**2
    y.backward(retain_graph=True)
    once = x.grad.item()
    y.backward()
    twice = x.grad.item()
    (x**3).backward()
    assert checks.check_accumulate(twice, x.grad.item()).ok
    said = str(checks.check_accumulate(once, x.grad.item() - once))
    assert "that is one walk's gradient" in said
    assert "y was walked back twice before z" in said


def test_clip_check_grades_torchs_clip_grad_norm():
    def clipped(each_alone):
        params = {k: torch.nn.Parameter(torch.zeros(torch.tensor(g).shape))
                  for k, g in checks.CLIP["grads"].items()}
        for k, p in params.items():
            p.grad = torch.tensor(checks.CLIP["grads"][k])
        groups = [[p] for p in params.values()] if each_alone else [
            list(params.values())]
        norm = [torch.nn.utils.clip_grad_norm_(
            g, checks.CLIP["max_norm"]).item() for g in groups][-1]
        return norm, params["W"].grad[1, 0].item(), params["b"].grad.item()
    norm, w, b = clipped(each_alone=False)
    assert checks.check_clip(norm, w, b).ok
    assert checks.check_clip(round(norm, 1), round(w, 2), round(b, 2)).ok
    _, w_alone, b_alone = clipped(each_alone=True)
    said = str(checks.check_clip(norm, w_alone, b_alone))
    assert "W's entry" not in said and said.count("together") == 2, said
    assert "clips b's gradient by its own norm" in said, said
    assert not checks.check_clip(norm, round(w, 1), round(b, 1)).ok


def test_adam_check_grades_the_first_step_derived_by_hand():
    # after one step m_hat = g and v_hat = g^2: the step is lr g / (g + eps)
    a = checks_torch.ADAM
    step = a["lr"] * a["g"] / (a["g"] + a["eps"])
    tiny = a["lr"] * a["g"] / (a["g"] + a["tiny_eps"])
    assert checks_torch.check_adam(step, a["eps"], tiny).ok
    assert checks_torch.check_adam(f"{step:.3g}", a["eps"], 1e-3).ok
    said = str(checks_torch.check_adam(a["lr"], a["eps"] / 2, tiny))
    assert "that is the step without eps" in said
    assert "the step is a third of the learning rate" in said
    assert not checks_torch.check_adam(step * 1.01, a["eps"], tiny).ok


def test_residual_check_tells_a_skip_around_the_sigmoid_from_one_inside():
    def norms(inside):
        def residual_norms(x, hidden, head):
            h = x
            for W in hidden:
                h = torch.sigmoid(h + h @ W.T) if inside else (
                    h + torch.sigmoid(h @ W.T))
            grads = torch.autograd.grad((h @ head.T).mean(), hidden)
            return [g.norm() for g in grads]  # tensors of one number
        return residual_norms
    assert checks_torch.check_residual(norms(inside=False)).ok

    def piling_up(x, hidden, head):  # backward() into .grad, never cleared
        h = x
        for W in hidden:
            h = h + torch.sigmoid(h @ W.T)
        (h @ head.T).mean().backward()
        return [W.grad.norm().item() for W in hidden]
    assert "called twice on one network" in str(
        checks_torch.check_residual(piling_up))
    said = str(checks_torch.check_residual(norms(inside=True)))
    assert "compare your forward pass" in said and "✓" not in said
