"""The XOR exercise's starting network, rebuilt from its prompt with
torch: weights drawn from random.Random(6050) neuron by neuron, biases 0.
An independent reference for the chapter's run and for its check."""

import random

import torch


def xor_start(seed=6050):
    """(W1, W2, b1, b2, X, T) in float64, the parameters a leaf each."""
    rng = random.Random(seed)
    draws = torch.tensor([rng.uniform(-1, 1) for _ in range(12)],
                         dtype=torch.float64)
    W1 = draws[:8].view(4, 2).clone().requires_grad_()
    W2 = draws[8:].view(1, 4).clone().requires_grad_()
    b1 = torch.zeros(4, dtype=torch.float64, requires_grad=True)
    b2 = torch.zeros(1, dtype=torch.float64, requires_grad=True)
    X = torch.tensor([[0, 0], [0, 1], [1, 0], [1, 1]], dtype=torch.float64)
    T = torch.tensor([0, 1, 1, 0], dtype=torch.float64)
    return W1, W2, b1, b2, X, T


def xor_descent(seed=6050, steps=400, lr=2.0):
    """The prompt's full-batch descent on the summed squared error, by
    torch.autograd: (losses before each update, the updates made before
    all four outputs were right, outputs before and after the last)."""
    W1, W2, b1, b2, X, T = xor_start(seed)
    params = [W1, b1, W2, b2]

    def outputs():
        return torch.sigmoid(torch.sigmoid(X @ W1.T + b1) @ W2.T + b2)[:, 0]

    solved, losses = None, []
    for updates in range(steps):
        out = outputs()
        if solved is None and torch.equal(out > 0.5, T > 0.5):
            solved = updates
        loss = ((out - T) ** 2).sum()
        grads = torch.autograd.grad(loss, params)
        with torch.no_grad():
            for param, grad in zip(params, grads):
                param -= lr * grad
        losses.append(loss.item())
    return losses, solved, out.tolist(), outputs().tolist()
