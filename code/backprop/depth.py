"""How much gradient reaches each layer of a deep MLP, and does it matter?

The norms are computed in float64 so that they cannot underflow; the
audit then asks the practical float32 question: would one step of
gradient descent change the first layer's stored weights at all?
"""

import torch
from torch import nn

ACTIVATIONS = {"sigmoid": nn.Sigmoid, "tanh": nn.Tanh, "relu": nn.ReLU}
INIT_STD = {  # weight std as a function of fan-in and fan-out
    "naive 0.05": lambda n_in, n_out: 0.05,
    "naive 0.12": lambda n_in, n_out: 0.12,
    "xavier": lambda n_in, n_out: (2 / (n_in + n_out)) ** 0.5,
    "he": lambda n_in, n_out: (2 / n_in) ** 0.5,
}


def build_mlp(activation, depth, width, init="he", seed=6050):
    """depth hidden layers of the given width, then one output unit."""
    torch.manual_seed(seed)
    make_act = ACTIVATIONS[activation]
    blocks = [module for _ in range(depth)
              for module in (nn.Linear(width, width), make_act())]
    net = nn.Sequential(*blocks, nn.Linear(width, 1)).to(torch.float64)
    linears = [m for m in net if isinstance(m, nn.Linear)]
    with torch.no_grad():  # re-draw every weight with the chosen scale
        for linear in linears:
            n_in, n_out = linear.in_features, linear.out_features
            nn.init.normal_(linear.weight, std=INIT_STD[init](n_in, n_out))
            nn.init.zeros_(linear.bias)
    return net


def gradient_diagnostic(activation, depth=30, width=64, init="he",
                        batch=128, lr=0.1, seed=6050):
    """Per-layer gradient norms and a float32 audit of the first layer."""
    net = build_mlp(activation, depth, width, init, seed)
    x = torch.randn(batch, width, dtype=torch.float64)
    net(x).mean().backward()  # the output is the mean: a scalar
    hidden = [m for m in net if isinstance(m, nn.Linear)][:-1]
    grad = hidden[0].weight.grad
    w32, g32 = hidden[0].weight.detach().float(), grad.float()
    return {
        "norms": [m.weight.grad.norm().item() for m in hidden],
        "first_max": grad.abs().max().item(),
        "first_nonzero": g32.count_nonzero().item(),
        "first_changed": (w32 - lr * g32 != w32).sum().item(),
        "first_size": g32.numel(),
    }


def gate_derivatives(z):
    """sigma'(z) and ReLU'(z) at the points z, as autograd computes them."""
    z = z.detach().double().requires_grad_(True)
    (s_grad,) = torch.autograd.grad(torch.sigmoid(z).sum(), z)
    (r_grad,) = torch.autograd.grad(torch.relu(z).sum(), z)
    return s_grad, r_grad
