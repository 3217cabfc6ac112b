"""A scalar reverse-mode autograd engine, small enough to read at once.

The design follows Andrej Karpathy's micrograd (MIT licence, see
THIRD_PARTY_NOTICES.md): each Value keeps the Values it was made from
and a small function that hands its gradient back to them.
"""

import math


class Value:
    """One number in a computation graph, plus room for dL/d(number)."""

    def __init__(self, data, parents=(), op=""):
        self.data = float(data)
        self.grad = 0.0
        self.parents = parents  # the Values this one was computed from
        self.op = op  # the operation that made it, for drawing the graph
        self.push_grad = lambda: None  # set by the op that made this Value

    def __repr__(self):
        return f"Value(data={self.data:.6g}, grad={self.grad:.6g})"

    def __add__(self, other):
        other = as_value(other)
        total = Value(self.data + other.data, (self, other), op="+")

        def push_grad():  # local derivative 1 for both inputs
            self.grad += total.grad
            other.grad += total.grad

        total.push_grad = push_grad
        return total

    def __mul__(self, other):
        other = as_value(other)
        product = Value(self.data * other.data, (self, other), op="*")

        def push_grad():  # each factor is scaled by the other one
            self.grad += product.grad * other.data
            other.grad += product.grad * self.data

        product.push_grad = push_grad
        return product

    def sigmoid(self):
        s = 1.0 / (1.0 + math.exp(-self.data))
        squashed = Value(s, (self,), op="sigmoid")

        def push_grad():  # the gate: sigma'(z) = s (1 - s)
            self.grad += squashed.grad * s * (1.0 - s)

        squashed.push_grad = push_grad
        return squashed

    # Reflected and derived operations reuse the two rules above.
    __radd__ = __add__
    __rmul__ = __mul__

    def __neg__(self):
        return self * -1.0

    def __sub__(self, other):
        return self + -as_value(other)

    def __rsub__(self, other):
        return as_value(other) + -self

    def backward(self):
        """Fill .grad of every Value that this one depends on."""
        self.grad = 1.0  # dL/dL = 1: the blame starts here
        for node in reversed(topological_order(self)):
            node.push_grad()  # all consumers of node have reported


def as_value(x):
    return x if isinstance(x, Value) else Value(x)


def topological_order(root):
    """Every node of root's graph, each one after all of its parents."""
    order, seen = [], set()

    def visit(node):
        if node not in seen:
            seen.add(node)
            for parent in node.parents:
                visit(parent)
            order.append(node)

    visit(root)
    return order
