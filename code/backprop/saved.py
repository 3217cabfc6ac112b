"""What autograd keeps for the backward pass, measured two ways.

One tensor can be saved by two operations (a ReLU's output is also the
next layer's input), so both counts add each storage once. Parameters
are left out: they are in memory anyway. checkpoint_sweep measures the
memory, with and without checkpointing, over several depths.
"""

import torch
from torch.utils.checkpoint import checkpoint_sequential

from backprop.cost import counted, loss_of, mlp


def saved_bytes(model, x, segments=None):
    """(bytes of the distinct storages saved for backward, the loss).

    A saved_tensors_hooks pair sees every tensor as autograd saves it.
    With segments, checkpoint_sequential keeps only each segment's input
    and recomputes the rest during the backward pass.
    """
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    kept = {}  # address -> storage; a second save of a storage adds nothing

    def pack(t):
        storage = t.untyped_storage()
        if storage.data_ptr() not in params:
            kept[storage.data_ptr()] = storage
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        if segments:
            out = checkpoint_sequential(model, segments, x,
                                        use_reentrant=False)
            loss = out.pow(2).mean()  # loss_of's loss, from the output
        else:
            loss = loss_of(model, x)
    return sum(s.nbytes() for s in kept.values()), loss


def saved_by_graph(loss, model):
    """(tensors saved, distinct storages among them, bytes of those
    storages), found by walking the graph back from loss.grad_fn. Once
    backward() has run through a node, its saved tensors are freed, and
    count for nothing."""
    params = {p.untyped_storage().data_ptr() for p in model.parameters()}
    saved, todo, seen = [], [loss.grad_fn], set()
    while todo:
        node = todo.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        for name in dir(node):  # e.g. ReluBackward0._saved_result
            try:
                value = getattr(node, name) if name.startswith(
                    "_saved_") else 0
            except RuntimeError:  # freed by a backward() that has run
                continue
            if (isinstance(value, torch.Tensor) and
                    value.untyped_storage().data_ptr() not in params):
                saved.append(value.untyped_storage())
        todo += [parent for parent, _ in node.next_functions]
    distinct = {s.data_ptr(): s.nbytes() for s in saved}
    return len(saved), len(distinct), sum(distinct.values())


def checkpoint_sweep(depths, width=64, batch=128, seed=6050):
    """For each depth: bytes kept and backward FLOPs, without and with
    about sqrt(depth) checkpoint segments, and the largest difference
    between the two gradients."""
    gen = torch.Generator().manual_seed(seed)  # torch's own is left alone
    rows = []
    for d in depths:
        model = mlp([width] * (d + 1) + [1], seed=seed)
        x = torch.randn(batch, width, generator=gen)
        row = {"depth": d, "segments": round(d ** 0.5)}
        grads = []
        for key, segments in [("plain", None), ("checkpointed",
                                                row["segments"])]:
            row[f"{key} bytes"], loss = saved_bytes(model, x, segments)
            row[f"{key} flops"], _ = counted(loss.backward)
            grads.append([p.grad.clone() for p in model.parameters()])
            model.zero_grad()
        row["gradient gap"] = max((a - b).abs().max().item()
                                  for a, b in zip(*grads))
        rows.append(row)
    return rows
