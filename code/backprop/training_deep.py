"""Chapter 3's training run: does a poor start matter once the networks
of the depth experiment are trained? Each network of build_mlp
(depth.py), which the chapter passes in, fits the same target by the
mean squared error; the run keeps the loss
and every layer's gradient norm at every step, and draws them.
"""

import matplotlib.pyplot as plt
import numpy as np
import torch

from backprop import style


def target(x, seed=6051):
    """t = tanh(x v / sqrt(n)) for a seeded random v: a smooth function
    of the input, different for every example, which the best constant
    cannot fit (its mean squared error is the variance of t)."""
    gen = torch.Generator().manual_seed(seed)
    v = torch.randn(x.shape[1], 1, dtype=x.dtype, generator=gen)
    return torch.tanh(x @ v / x.shape[1] ** 0.5)


def train_depth(activation, network, optimizer="sgd", steps=300,
                **options):
    """Train network, the (x, hidden, head) of build_mlp, in float64, full
    batch, with the activation function between its hidden layers and
    plain SGD or Adam, given their options (lr, and Adam's eps).
    Returns the loss before each step,
    each layer's gradient norm at each step (the hidden layers, then the
    output row), how far each layer's weights moved in all (the norm of
    the change) and the best constant's loss."""
    x, hidden, head = network
    params = [p.detach().clone().requires_grad_()
              for p in hidden + [head]]
    hidden = params[:-1]
    start = [p.detach().clone() for p in params]
    step = {"sgd": torch.optim.SGD, "adam": torch.optim.Adam}[optimizer](
        params, **options)
    t = target(x)
    losses, norms = [], []
    for _ in range(steps):
        h = x
        for W in hidden:
            h = activation(h @ W.T)
        loss = ((h @ params[-1].T - t) ** 2).mean()
        step.zero_grad()
        loss.backward()
        if not losses:  # at the start, each layer's largest gradient entry
            largest = [p.grad.abs().max().item() for p in params]
        losses.append(loss.item())
        norms.append([p.grad.norm().item() for p in params])
        step.step()
    return {"losses": losses, "norms": np.array(norms), "largest": largest,
            "moved": [(p.detach() - p0).norm().item()
                      for p, p0 in zip(params, start)],
            "constant": t.var(correction=0).item()}


def figure(runs):
    """The loss, and the first and last hidden layers' gradient norms,
    against the step: one line per run, a panel each, log scales."""
    fig, axes = plt.subplots(1, 3, figsize=(style.WIDTH, 2.6),
                             layout="constrained")
    depth = next(iter(runs.values()))["norms"].shape[1] - 1
    # titles in symbols, short enough for three panels side by side
    panels = [("loss", lambda r: r["losses"]),
              (r"$\|\partial L/\partial\mathbf{W}^{(1)}\|$",
               lambda r: r["norms"][:, 0]),
              (rf"$\|\partial L/\partial\mathbf{{W}}^{{({depth})}}\|$",
               lambda r: r["norms"][:, -2])]
    for ax, (title, series) in zip(axes, panels):
        for look, (name, run) in zip(style.SERIES, runs.items()):
            values = series(run)
            ax.semilogy(np.arange(len(values)), values, label=name,
                        markevery=max(1, len(values) // 6), ms=4, **look)
        ax.set_title(title, fontsize="medium")
        ax.set_xlabel("step")
    # two columns keep the figure within the printed text block, so
    # that its labels print at full size
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower "
               "center", ncols=2)
    best = next(iter(runs.values()))["constant"]
    # a wide pale band behind the runs: one run ends on it, and it must
    # stay apart from every run's line in grey print too
    axes[0].axhline(best, color=style.GREY, alpha=0.45, lw=5, zorder=0.5)
    # clear of the spikes of the first steps, which its white box hid,
    # and of the grid's lines along: midway (on the log scale) between
    # the first two above the band, with a line down to it where only
    # the run that stays on it runs
    fig.draw_without_rendering()  # the grid's lines, as laid out
    above = [y for y in axes[0].get_yticks() if y > best][:2]
    axes[0].annotate("best constant", xy=(0.8, best),
                     xytext=(0.45, (above[0] * above[1]) ** 0.5),
                     xycoords=("axes fraction", "data"), va="center",
                     ha="center", zorder=6, bbox={"fc": "white", "ec":
                                                  "none", "pad": 1},
                     arrowprops={"arrowstyle": "-", "lw": 0.8,
                                 "color": "black", "shrinkA": 0,
                                 "shrinkB": 2})
    return fig


PLATEAU = 0.99  # a loss above this share of the constant's is on it


def plateau_end(run):
    """The first step whose loss is below PLATEAU times the best
    constant's, or None if the run stays on the constant's plateau."""
    return next((i for i, v in enumerate(run["losses"])
                 if v < PLATEAU * run["constant"]), None)


def output_step_limit(top):
    """The largest stable step of gradient descent on the output row
    alone, given the last hidden layer's activations: 2 over the largest
    eigenvalue of the mean squared error's Hessian in that row, 2 top^T
    top / batch."""
    curvature = 2 * top.T @ top / len(top)
    return 2 / torch.linalg.eigvalsh(curvature).max().item()
