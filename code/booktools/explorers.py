"""Data and page markup for the in-page explorers (HTML only).

Each explorer is a plain JavaScript module under explorers/ that reads
its numbers from a JSON block written here, when the book is built. A
chapter cell labelled build-..., with `output: asis`, prints the block,
so the page loads nothing from another site; the student notebook leaves
that cell out. The numbers come from the chapter's own functions, which
the chapter passes in: this module computes nothing of its own.
"""

import json
import re

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
DEPTHS = [1, 2, 3, 4, 5, 6, 8, 10, 15, 20, 25, 30]


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


def chain_data():
    """Start values and slider range of the chain-rule explorer."""
    return {"x": 2.0, "y": 3.0,
            "range": {"min": -3.0, "max": 3.0, "step": 0.1}}


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
    titles = {"depth": "Depth explorer", "chain": "Chain-rule explorer"}
    return "\n".join([
        f'<section class="explorer" id="{kind}-explorer-app" '
        f'data-explorer="{kind}" aria-label="{titles[kind]}">',
        f'<script type="application/json">{payload}</script>',
        "<p>This interactive explorer needs JavaScript. The figure and "
        "text around it give the same results for the default setting.</p>",
        "</section>",
        f'<script type="module" src="{module_src}"></script>',
    ])


def html_block(kind, data, module_src):
    """raw_html as a pandoc raw block, for a cell with `output: asis`."""
    return f"```{{=html}}\n{raw_html(kind, data, module_src)}\n```"
