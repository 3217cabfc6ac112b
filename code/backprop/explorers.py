"""Data and page markup for the in-page explorers (HTML only).

Each explorer is a plain JavaScript module under explorers/ that reads
its numbers from a JSON block written here, when the book is rendered.
A chapter cell with `output: asis` prints the block, so the page loads
nothing from another site.
"""

import json

from backprop import depth

ACTIVATION_LABELS = {"sigmoid": "Sigmoid", "tanh": "tanh", "relu": "ReLU"}
INIT_LABELS = {"naive 0.05": "naive, std 0.05",
               "naive 0.12": "naive, std 0.12",
               "xavier": "Xavier", "he": "He"}


def shown(x):
    """x to the 3 significant digits that the explorer displays."""
    return float(f"{x:.3g}")


# Every depth up to 10, where the curves change fastest, then every fifth.
DEPTHS = [*range(1, 11), *range(15, 51, 5)]


def depth_data(depths=DEPTHS, width=64, lr=0.1):
    """Every setting of the depth explorer, from depth.depth_sweep."""
    runs = {}
    for activation in ACTIVATION_LABELS:
        for init in INIT_LABELS:
            sweep = depth.depth_sweep(activation, depths, width, init,
                                      lr=lr)
            runs[f"{activation}|{init}"] = {
                "norms": [[shown(v) for v in r["norms"]] for r in sweep],
                "changed": [r["first_changed"] for r in sweep],
                "nonzero": [r["first_nonzero"] for r in sweep],
            }
    return {
        "depths": list(depths), "size": width * width, "lr": lr,
        "labels": {"activation": ACTIVATION_LABELS, "init": INIT_LABELS},
        "start": {"activation": "sigmoid", "init": "he",
                  "depth": 30 if 30 in depths else max(depths)},
        "runs": runs,
    }


def chain_data():
    """Start values and slider range of the chain-rule explorer."""
    return {"x": 2.0, "y": 3.0,
            "range": {"min": -3.0, "max": 3.0, "step": 0.1}}


def raw_html(kind, data, module_src):
    """A labelled container with its data, and the module that fills it."""
    payload = json.dumps(data, separators=(",", ":"))
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
