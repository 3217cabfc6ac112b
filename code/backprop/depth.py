"""How much gradient reaches each layer of a deep MLP, and does it matter?

The norms are in float64, which cannot underflow; the audit asks whether
one float32 step would change the first layer's stored weights at all.
"""

import torch

ACTIVATIONS = {"sigmoid": torch.sigmoid, "tanh": torch.tanh,
               "relu": torch.relu}
INIT_STD = {  # weight std as a function of fan-in and fan-out
    "naive 0.05": lambda n_in, n_out: 0.05,
    "naive 0.12": lambda n_in, n_out: 0.12,
    "xavier": lambda n_in, n_out: (2 / (n_in + n_out)) ** 0.5,
    "he": lambda n_in, n_out: (2 / n_in) ** 0.5,
}
CLOSED = 0.01  # a gate below this passes under 1% of the blame


def build_mlp(depth, width=64, init="he", batch=128, seed=6050,
              scale=None):
    """An input batch, depth hidden weight matrices and an output row.

    With a scale c, every weight matrix has std c / sqrt(fan-in) instead
    of init's rule (He's rule is c = sqrt(2)). The biases are all zero,
    so they are left out. The output row is drawn first and the hidden
    layers last: the network of depth d is then the first d layers of any
    deeper one, under the same output layer.
    """
    std = INIT_STD[init] if scale is None else (
        lambda n_in, n_out: scale / n_in ** 0.5)
    gen = torch.Generator().manual_seed(seed)  # torch's own is left alone

    def draw(*shape):
        return torch.randn(*shape, dtype=torch.float64, generator=gen)

    head = draw(1, width) * std(width, 1)
    x = draw(batch, width)
    hidden = [(draw(width, width) * std(width, width)).requires_grad_()
              for _ in range(depth)]
    return x, hidden, head


def forward(activation, x, hidden):
    """The pre-activations z and the activations of each hidden layer."""
    zs, acts, h = [], [], x
    for W in hidden:
        zs.append(h @ W.T)
        h = ACTIVATIONS[activation](zs[-1])
        acts.append(h)
    return zs, acts


def hidden_activations(activation, x, hidden):
    """The activations after each hidden layer."""
    return forward(activation, x, hidden)[1]


def gate_values(activation, zs):
    """phi'(z) at every pre-activation of the layers, by autograd."""
    z = torch.cat([z.detach().flatten() for z in zs]).requires_grad_()
    (gate,) = torch.autograd.grad(ACTIVATIONS[activation](z).sum(), z)
    return gate


def audit(hidden, grads, lr=0.1):
    """Per-layer gradient norms and a float32 look at the first layer."""
    w32, g32 = hidden[0].detach().float(), grads[0].float()
    return {
        "norms": [g.norm().item() for g in grads],
        "first_max": grads[0].abs().max().item(),
        "first_nonzero": g32.count_nonzero().item(),
        "first_changed": (w32 - lr * g32 != w32).sum().item(),
        "first_size": g32.numel(),
    }


def gate_summary(gate):
    """The mean gate, the share of gates below CLOSED, and how many gates
    there are and how many of them are below CLOSED."""
    closed = gate < CLOSED
    return {"gate_mean": gate.mean().item(),
            "gate_closed": closed.double().mean().item(),
            "gates": gate.numel(), "gates_closed": int(closed.sum())}


def gradient_diagnostic(activation, depth=30, width=64, init="he",
                        batch=128, lr=0.1, seed=6050, scale=None):
    """Build, run forward, take the mean output as the loss, audit."""
    x, hidden, head = build_mlp(depth, width, init, batch, seed, scale)
    zs, acts = forward(activation, x, hidden)
    out = (acts[-1] @ head.T).mean()
    result = audit(hidden, torch.autograd.grad(out, hidden), lr)
    return result | gate_summary(gate_values(activation, zs))


def depth_sweep(activation, depths=range(1, 51), width=64, init="he",
                batch=128, lr=0.1, seed=6050, scale=None):
    """gradient_diagnostic for each of the depths, in one pass.

    One forward pass serves all depths, because the network of depth d
    is a prefix of the deepest one (see build_mlp).
    """
    x, hidden, head = build_mlp(max(depths), width, init, batch, seed,
                                scale)
    zs, acts = forward(activation, x, hidden)
    results = []
    for d in depths:
        out = (acts[d - 1] @ head.T).mean()
        grads = torch.autograd.grad(out, hidden[:d], retain_graph=True)
        results.append(audit(hidden[:d], grads, lr) | gate_summary(
            gate_values(activation, zs[:d])))
    return results
