"""Gradient descent, with the gradients from any backward pass.

The loop needs only a forward and a backward function with the
signatures of blame.py's: the chapter passes its own, and an exercise
can pass a different one.
"""


def train(forward, backward, weights, biases, X, y, lr, steps):
    """Full-batch gradient descent on the mean squared error.
    Updates the parameters in place and returns the loss before
    each step; y has one row per example, like X."""
    losses = []
    for _ in range(steps):
        acts = forward(weights, biases, X)
        losses.append(((acts[-1] - y) ** 2).mean().item())
        scale = 2 / len(y)  # the mean over n outputs: 2/n
        _, grad_w, grad_b = backward(weights, acts, y, scale)
        params, grads = weights + biases, grad_w + grad_b
        for param, grad in zip(params, grads):
            param -= lr * grad  # a step against the gradient
    return losses
