"""Data and page markup for the in-page explorers (HTML only).

Each explorer is a plain JavaScript module under explorers/ that reads
its numbers from a JSON block written here, when the book is built. A
chapter cell labelled build-..., with `output: asis`, prints the block,
so the page loads nothing from another site; the student notebook leaves
that cell out. The numbers come from the chapter's own functions, which
the chapter passes in. The step-through explorer's are the Value
engine's: its values and each node's local derivatives, which its
push_grad gives, summed here in the engine's reverse topological order.
"""

import json
import re
from decimal import ROUND_HALF_UP, Decimal

ACTIVATION_LABELS = {"sigmoid": "Sigmoid", "tanh": "tanh", "relu": "ReLU"}
# The weight scales, as std c/sqrt(n) for the width n = 64 where they are
# multiples: Xavier's rule gives c = 1 there and He's c = sqrt(2). (The naive
# std 0.12 of chapter 3 would sit next to Xavier's 0.125 here.)
INIT_LABELS = {"naive 0.05": "std 0.05 (naive)",
               "xavier": "std 1/√n (Xavier)", "he": "std √2/√n (He)"}
MULTIPLES = [4, 8, 12, 16]  # large enough to keep a sigmoid gradient alive
SCALES = {**{init: {"init": init} for init in INIT_LABELS},
          **{f"scale {c}": {"scale": c} for c in MULTIPLES}}
SCALE_LABELS = {**INIT_LABELS,
                **{f"scale {c}": f"std {c}/√n" for c in MULTIPLES}}


def shown(x):
    """x to the 3 significant digits that the explorer displays."""
    return float(f"{x:.3g}")


# Closely spaced where the curves change fastest, up to the depth of the
# chapter's figure; few enough to keep the page within its budget.
DEPTHS = [1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30]


def depth_data(sweep, closed, depths=DEPTHS, width=64, lr=0.1):
    """Every setting of the depth explorer, from the chapter's sweep:
    explorers.depth_data(depth_sweep, CLOSED), with the
    depth_sweep(activation, depths, width, lr=..., init=... or scale=...)
    that the chapter shows, and the gate size below which it counts a
    gate as closed (for the explorer's label)."""
    runs = {}
    for activation in ACTIVATION_LABELS:
        for scale, options in SCALES.items():
            results = sweep(activation, depths, width, lr=lr, **options)
            runs[f"{activation}|{scale}"] = {
                "norms": [[shown(v) for v in r["norms"]] for r in results],
                "changed": [r["first_changed"] for r in results],
                "nonzero": [r["first_nonzero"] for r in results],
                "gate": [shown(r["gate_mean"]) for r in results],
                "closed": [round(r["gate_closed"], 3) for r in results],
            }
    return {
        "depths": list(depths), "size": width * width, "lr": lr,
        "closed": closed,
        "labels": {"activation": ACTIVATION_LABELS, "init": SCALE_LABELS},
        "start": {"activation": "sigmoid", "init": "he",
                  "depth": 30 if 30 in depths else max(depths)},
        "runs": runs,
    }


# A number in the JSON text (between [ , : and , ] }) with an exponent.
EXPONENT = re.compile(r"(?<=[\[,:])(-?\d+(?:\.\d+)?)e([+-])0*(\d+)"
                      r"(?=[,\]}])")


def compact(payload):
    """JSON text with shorter numbers: 1.5e-05 as 1.5e-5, 1e+52 as 1e52."""
    return EXPONENT.sub(lambda m: m[1] + "e" + m[2].replace("+", "") + m[3],
                        payload)


def raw_html(kind, data, module_src):
    """A labelled container with its data, and the module that fills it."""
    payload = compact(json.dumps(data, separators=(",", ":")))
    titles = {"depth": "Depth explorer", "step": "Backward pass, step by step"}
    without = {  # what the page says in place of the explorer, without it
        "depth": "The figure and text around it give the same results for "
                 "the default setting.",
        "step": "The walks printed above give the diamond's gradients, and "
                "chapter 1's worked example those of the neuron."}
    return "\n".join([
        f'<section class="explorer" id="{kind}-explorer-app" '
        f'data-explorer="{kind}" aria-label="{titles[kind]}">',
        f'<script type="application/json">{payload}</script>',
        f"<p>This interactive explorer needs JavaScript. {without[kind]}</p>",
        "</section>",
        f'<script type="module" src="{module_src}"></script>',
    ])


def html_block(kind, data, module_src):
    """raw_html as a pandoc raw block, for a cell with `output: asis`."""
    return f"```{{=html}}\n{raw_html(kind, data, module_src)}\n```"


# ---- the step-through explorer: a backward pass, one node at a time ----

def local_derivatives(node, named, topological_order):
    """{name: d node / d p} for each named Value p that node is computed
    from directly: node's own push_grad, and those of the unnamed Values
    between them (a formula's constants), run with node's gradient set
    to 1, in the engine's own order. The engine's rules, not new ones."""
    inner = set(named.values())
    order = topological_order(node)
    for n in order:
        n.grad = 0.0
    node.grad, reached, found = 1.0, {node}, set()
    for n in reversed(order):
        if n in reached:
            n.push_grad()
            for parent in n.parents:
                (found if parent in inner else reached).add(parent)
    return {name: v.grad for name, v in named.items() if v in found}


def printed(x, digits):
    return f"{x:.{digits}f}"


def adds_up(steps, digits):
    """Whether each step's sum of products, worked from the factors as
    printed and rounded as a reader rounds (a final 5 up), gives its
    gradient as printed."""
    unit = Decimal(1).scaleb(-digits)
    for step in steps:
        if not step["terms"]:
            continue
        worked = sum(Decimal(printed(t["local"], digits))
                     * Decimal(printed(t["upstream"], digits))
                     for t in step["terms"])
        if (worked.quantize(unit, rounding=ROUND_HALF_UP)
                != Decimal(printed(step["grad"], digits))):
            return False
    return True


def step_data(title, formula, named, places, rules, topological_order,
              digits=0):
    """One graph of the step-through explorer, from Values of the book's
    engine: its title and formula (text); named {name: Value}, the last
    one the output; places {name: (column, row)}; rules {(consumer,
    input): its local derivative as a formula}; the engine's
    topological_order. Each step completes one
    node's gradient, in reverse topological order, as the sum over its
    consumers of the consumer's gradient times the local derivative. The
    decimals shown are the fewest from `digits` up with which every
    step's arithmetic, from the numbers as printed, gives the gradient as
    printed (adds_up)."""
    names = {v: name for name, v in named.items()}
    local = {name: local_derivatives(v, named, topological_order)
             for name, v in named.items()}
    root = list(named)[-1]
    order = [names[v] for v in reversed(topological_order(named[root]))
             if v in names]
    grads, steps = {root: 1.0}, [{"node": root, "grad": 1.0, "terms": []}]
    for name in order[1:]:
        terms = [{"from": c, "local": local[c][name], "upstream": grads[c],
                  "rule": rules[(c, name)]}
                 for c in order if name in local[c] and c in grads]
        grads[name] = sum(t["local"] * t["upstream"] for t in terms)
        steps.append({"node": name, "grad": grads[name], "terms": terms})
    while not adds_up(steps, digits):
        digits += 1
    return {"title": title, "formula": formula, "digits": digits,
            "output": root,
            "nodes": [{"name": name, "value": v.data, "col": places[name][0],
                       "row": places[name][1]} for name, v in named.items()],
            "edges": [[parent, consumer] for consumer in local
                      for parent in local[consumer]],
            "steps": steps}
