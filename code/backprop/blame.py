"""The backward pass written out from the four blame equations.

The network has sigmoid hidden layers and an identity output layer.
Rows are examples: z = a @ W.T + b, so a whole batch flows at once.
No autograd is used anywhere in this file.
"""

import torch


def forward(weights, biases, x):
    """Run the network and cache every activation for the backward pass."""
    acts = [x]  # acts[0] is the input itself
    for layer, (W, b) in enumerate(zip(weights, biases)):
        z = acts[-1] @ W.T + b
        is_output = layer == len(weights) - 1
        acts.append(z if is_output else torch.sigmoid(z))
    return acts


def backward(weights, acts, y, scale=1.0):
    """Blame for every layer, then the weight and bias gradients.

    scale sets the loss convention: 1 for 0.5 * ||a - y||^2 on one
    example, 2 / n for the mean squared error over n scalar outputs.
    """
    deltas = [scale * (acts[-1] - y)]  # output blame: identity, no gate
    for layer in range(len(weights) - 1, 0, -1):
        a = acts[layer]  # cached sigmoid output of this hidden layer
        gate = a * (1 - a)  # sigma'(z) = sigma(z) (1 - sigma(z))
        back = deltas[0] @ weights[layer]  # recursion: back through W^T
        deltas.insert(0, back * gate)
    # weight gradient: blame out x signal in, summed over the batch
    grad_w = [d.T @ a for d, a in zip(deltas, acts)]
    grad_b = [d.sum(0) for d in deltas]  # bias gradient
    return deltas, grad_w, grad_b
