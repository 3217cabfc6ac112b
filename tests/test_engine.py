"""The Value engine against torch.autograd and finite differences."""

import math

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from backprop.engine import Value, topological_order

OPS = ["add", "mul", "sub", "sigmoid", "add_const", "mul_const"]


def build(program, inputs, lib):
    """Evaluate a random program over a pool of nodes (shared reuse).

    Every step combines earlier nodes of the pool, so later nodes reuse
    earlier ones many times: the graphs have shared sub-expressions.
    """
    pool = list(inputs)
    for op, i, j, c in program:
        a, b = pool[i % len(pool)], pool[j % len(pool)]
        if op == "add":
            pool.append(a + b)
        elif op == "mul":
            pool.append(a * b)
        elif op == "sub":
            pool.append(a - b)
        elif op == "sigmoid":
            pool.append(lib.sigmoid(a))
        elif op == "add_const":
            pool.append(c + a)
        else:
            pool.append(c * a)
    out = pool[len(inputs)]
    for node in pool[len(inputs) + 1:]:
        out = out + node  # every node reaches the output
    return out


class ValueLib:
    sigmoid = staticmethod(lambda v: v.sigmoid())


class TorchLib:
    sigmoid = staticmethod(torch.sigmoid)


programs = st.lists(
    st.tuples(st.sampled_from(OPS), st.integers(0, 50), st.integers(0, 50),
              st.floats(-2, 2)),
    min_size=1, max_size=12)
inputs = st.lists(st.floats(-1.5, 1.5), min_size=1, max_size=4)


@settings(max_examples=150, deadline=None)
@given(programs, inputs)
def test_value_gradients_equal_autograd(program, xs):
    values = [Value(x) for x in xs]
    out = build(program, values, ValueLib)
    out.backward()

    tensors = [torch.tensor(x, dtype=torch.float64, requires_grad=True)
               for x in xs]
    ref = build(program, tensors, TorchLib)
    grads = torch.autograd.grad(ref, tensors, allow_unused=True)

    assert math.isclose(out.data, ref.item(), rel_tol=1e-9, abs_tol=1e-9)
    for v, g in zip(values, grads):
        expected = 0.0 if g is None else g.item()
        assert math.isclose(v.grad, expected, rel_tol=1e-7, abs_tol=1e-9)


@settings(max_examples=50, deadline=None)
@given(programs, inputs)
def test_value_gradients_match_finite_differences(program, xs):
    values = [Value(x) for x in xs]
    build(program, values, ValueLib).backward()
    h = 1e-6
    for k in range(len(xs)):
        up = [x + h * (i == k) for i, x in enumerate(xs)]
        down = [x - h * (i == k) for i, x in enumerate(xs)]
        fd = (build(program, [Value(x) for x in up], ValueLib).data
              - build(program, [Value(x) for x in down], ValueLib).data)
        fd /= 2 * h
        assert math.isclose(values[k].grad, fd, rel_tol=1e-4, abs_tol=1e-5)


def test_one_neuron_matches_the_hand_derivation():
    # L = (a - y)^2 / 2, a = sigma(z), z = w x + b. By hand:
    # dL/dw = (a - y) sigma'(z) x, with sigma'(z) = a (1 - a)
    w, x, b, y = 0.7, 2.0, -0.5, 0.1
    s = 1 / (1 + math.exp(-(w * x + b)))
    wv = Value(w)
    a = (wv * x + b).sigmoid()
    (0.5 * (a - y) * (a - y)).backward()
    assert math.isclose(wv.grad, (s - y) * s * (1 - s) * x, rel_tol=1e-12)
    assert f"{wv.grad:.6f}" == "0.251101"  # the value the chapter prints


def test_paths_add_for_a_reused_value():
    x, y = Value(2.0), Value(3.0)
    (x * y + y).backward()
    assert y.grad == 3.0  # x + 1, by hand
    assert x.grad == 3.0  # y


def test_topological_order_puts_parents_first():
    x = Value(1.0)
    s = x * 3.0
    out = s * 2.0 + s * s
    order = topological_order(out)
    position = {id(n): i for i, n in enumerate(order)}
    for node in order:
        for parent in node.parents:
            assert position[id(parent)] < position[id(node)]
    assert order[-1] is out
    assert len(order) == len({id(n) for n in order})


def test_backward_twice_accumulates_like_torch():
    w = Value(1.5)
    out = w * w
    out.backward()
    first = w.grad
    out.backward()
    assert first == 3.0
    assert w.grad > first  # leaves accumulate, as torch's .grad does


def _drawn_graph():
    import matplotlib

    matplotlib.use("Agg")
    from backprop import diagrams, style

    style.apply()
    w, x, b, y = Value(0.7), Value(2.0), Value(-0.5), Value(0.1)
    err = (w * x + b).sigmoid() - y
    loss = 0.5 * err * err
    loss.backward()
    fig = diagrams.value_graph(loss, {w: "w", err: "a − y", loss: "L"})
    return fig, loss


def test_drawn_graph_shows_every_node_and_keeps_lines_off_the_boxes():
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.patches import FancyBboxPatch

    fig, loss = _drawn_graph()
    ax = fig.axes[0]
    nodes = topological_order(loss)
    boxes = [p for p in ax.patches if isinstance(p, FancyBboxPatch)]
    assert len(boxes) == len(nodes)
    texts = [t.get_text() for t in ax.texts]
    for node in nodes:  # data and gradient to 4 decimals, as Figure 1.1
        for number in (node.data, node.grad):
            shown = f"{number:.4f}".rstrip("0").rstrip(".")
            assert shown.replace("-", "−") in texts
    assert "0.0879" in texts and "0.08789" not in texts  # dL/dx
    assert not any("-" in t for t in texts)
    # every edge runs between boxes: no point of a line lies inside one,
    # and each starts on the drawn right border of a box
    inside = [p.get_path().get_extents() for p in boxes]  # as drawn
    for line in ax.lines:
        xs, ys = line.get_data()
        for (x0, y0), (x1, y1) in zip(zip(xs, ys), zip(xs[1:], ys[1:])):
            for t in np.linspace(0.01, 0.99, 50):
                px, py = x0 + t * (x1 - x0), y0 + t * (y1 - y0)
                assert not any(b.x0 < px < b.x1 and b.y0 < py < b.y1
                               for b in inside)
        assert any(abs(xs[0] - b.x1) < 1e-9 and b.y0 < ys[0] < b.y1
                   for b in inside)
    plt.close(fig)


def test_drawn_graph_arrowheads_end_on_box_borders_apart():
    import matplotlib.pyplot as plt
    from matplotlib.patches import Circle, FancyBboxPatch
    from matplotlib.text import Annotation

    fig, loss = _drawn_graph()
    ax = fig.axes[0]
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    point = fig.dpi / 72  # display pixels per point
    boxes = [p for p in ax.patches if isinstance(p, FancyBboxPatch)]
    drawn = [p.get_path().get_extents() for p in boxes]
    circles = [p.get_window_extent(renderer) for p in ax.patches
               if isinstance(p, Circle)]
    arrows = [t for t in ax.texts if isinstance(t, Annotation)]
    edges = {(id(p), id(n)) for n in topological_order(loss)
             for p in n.parents}
    assert len(arrows) == len(edges) == len(ax.lines)
    heads = {}
    for arrow in arrows:
        tip_x, tip_y = arrow.xy
        # the tip is on the left border of a box, on its straight part
        target = [i for i, b in enumerate(drawn)
                  if abs(tip_x - b.x0) < 1e-9 and b.y0 + 0.06 < tip_y
                  < b.y1 - 0.06]
        assert len(target) == 1, arrow.xy
        head = arrow.arrow_patch.get_path().get_extents()  # display
        border = ax.transData.transform((drawn[target[0]].x0, tip_y))[0]
        # the arrow comes in level, and its head stops at the border:
        # neither short of it nor inside the box
        assert arrow.xyann[1] == tip_y
        assert border - 1.5 * point < head.x1 <= border + 0.01
        # and it keeps clear of every operation circle
        assert not any(head.padded(point).overlaps(c) for c in circles)
        heads.setdefault(target[0], []).append(head)
    assert len(heads[len(boxes) - 1]) == 2  # the root L, drawn last
    for into in heads.values():  # heads into one box are apart
        for i, one in enumerate(into):
            for other in into[i + 1:]:
                assert not one.padded(point).overlaps(other)
    plt.close(fig)


def test_drawn_graph_prints_its_text_at_7_5_points_or_more():
    import matplotlib.pyplot as plt

    from backprop import style

    fig, _ = _drawn_graph()
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    # saved with a 0.1-inch margin, and scaled down if wider than the
    # PDF's text block
    wide = fig.get_tightbbox(renderer).width + 0.2
    scale = min(1.0, style.TEXT / wide)
    sizes = [t.get_fontsize() * scale for t in fig.axes[0].texts
             if t.get_text()]
    assert min(sizes) >= 7.5, (wide, min(sizes))
    plt.close(fig)
