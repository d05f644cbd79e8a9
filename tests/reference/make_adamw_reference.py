#!/usr/bin/python3
"""Write (or check) Chapter 22's AdamW reference: tests/reference/data/training/ch22_adamw.txt.

    /usr/bin/python3 tests/reference/make_adamw_reference.py          # rewrite
    /usr/bin/python3 tests/reference/make_adamw_reference.py --check  # exit 1 if stale

PyTorch float64 torch.optim.AdamW (foreach=False: the `_single_tensor_adamw` loop of
torch/optim/adamw.py) on a random problem of four parameters in two groups (weight decay
0.1 for the matrices, 0 for the vectors) over 100 steps. The gradients are data, drawn here
with SplitMix64 (text_common.py) as u·2^k with u uniform in [-1, 1) and k in -4..2 per
parameter and step, so the C++ test feeds the book's AdamW exactly the same numbers
(tests/chapters/ch22_adamw_test.cpp). Then the one-parameter example of the chapter's
variants: loss (θ − 2)²/2 (gradient θ − 2), θ₀ = 1, η = 0.1, λ = 0.1, ε = 0, three steps, through
torch.optim.AdamW, torch.optim.Adam with weight_decay (L2 added to the gradient) and
torch.optim.Adam without decay.

Records (numbers with 17 significant digits, lists comma-separated, row-major):

    CONFIG|lr=..|beta1=..|beta2=..|eps=..|steps=100
    PARAM|name=..|group=decay|weight_decay=0.1|shape=5,3|initial=..
    GRAD|step=t|name=..|values=..                 one per parameter and step
    AFTER|step=t|name=..|values=..                θ after steps 1, 2, 10, 50, 100
    MOMENTS|step=100|name=..|m=..|v=..            the optimizer state after step 100
    VARIANT|name=adamw|steps=θ1,θ2,θ3             and adam_l2, adam
"""

import math
import sys
from pathlib import Path

import numpy_dispatch  # noqa: F401  (before numpy: the same SIMD paths on every machine)
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from text_common import SplitMix64, joined, number, script_main, uniform  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "training" / "ch22_adamw.txt"
STEPS = 100
KEPT = (1, 2, 10, 50, 100)
HYPER = dict(lr=0.01, betas=(0.9, 0.999), eps=1e-8)
PARAMS = [("embedding.weight", (5, 3), "decay", 0.1), ("block.ffn.weight", (3, 4), "decay", 0.1),
          ("block.norm.gain", (3,), "no_decay", 0.0), ("final.norm.gain", (4,), "no_decay", 0.0)]


def random_problem(lines):
    rng = SplitMix64(22)
    values = [torch.tensor(uniform(rng, math.prod(s)), dtype=torch.float64).reshape(s)
              for _, s, _, _ in PARAMS]
    lines.append("CONFIG|lr=%s|beta1=%s|beta2=%s|eps=%s|steps=%d" % (
        number(HYPER["lr"]), number(HYPER["betas"][0]), number(HYPER["betas"][1]),
        number(HYPER["eps"]), STEPS))
    for (name, shape, group, decay), v in zip(PARAMS, values):
        lines.append("PARAM|name=%s|group=%s|weight_decay=%s|shape=%s|initial=%s" % (
            name, group, number(decay), ",".join(str(d) for d in shape),
            joined(v.reshape(-1).tolist())))
    params = [v.clone().requires_grad_(True) for v in values]
    groups = [{"params": [p for p, spec in zip(params, PARAMS) if spec[2] == g],
               "weight_decay": wd} for g, wd in (("decay", 0.1), ("no_decay", 0.0))]
    optimizer = torch.optim.AdamW(groups, foreach=False, **HYPER)
    for step in range(1, STEPS + 1):
        for p, (name, shape, _, _) in zip(params, PARAMS):
            scale = 2.0 ** (int(rng.below(7)) - 4)
            g = [u * scale for u in uniform(rng, math.prod(shape))]
            p.grad = torch.tensor(g, dtype=torch.float64).reshape(shape)
            lines.append("GRAD|step=%d|name=%s|values=%s" % (step, name, joined(g)))
        optimizer.step()
        if step in KEPT:
            for p, (name, _, _, _) in zip(params, PARAMS):
                lines.append("AFTER|step=%d|name=%s|values=%s" % (
                    step, name, joined(p.detach().reshape(-1).tolist())))
    for p, (name, _, _, _) in zip(params, PARAMS):
        state = optimizer.state[p]
        lines.append("MOMENTS|step=%d|name=%s|m=%s|v=%s" % (
            STEPS, name, joined(state["exp_avg"].reshape(-1).tolist()),
            joined(state["exp_avg_sq"].reshape(-1).tolist())))


def variants(lines):
    makers = {
        "adamw": lambda p: torch.optim.AdamW([p], lr=0.1, eps=0.0, weight_decay=0.1, foreach=False),
        "adam_l2": lambda p: torch.optim.Adam([p], lr=0.1, eps=0.0, weight_decay=0.1, foreach=False),
        "adam": lambda p: torch.optim.Adam([p], lr=0.1, eps=0.0, weight_decay=0.0, foreach=False),
    }
    for name, make in makers.items():
        theta = torch.tensor([1.0], dtype=torch.float64, requires_grad=True)
        optimizer = make(theta)
        trajectory = []
        for _ in range(3):
            theta.grad = theta.detach() - 2.0  # loss (θ − 2)²/2
            optimizer.step()
            trajectory.append(theta.item())
        lines.append("VARIANT|name=%s|steps=%s" % (name, joined(trajectory)))


def render():
    lines = ["# Chapter 22 reference (tests/reference/make_adamw_reference.py): torch %s, "
             "float64, torch.optim.AdamW and torch.optim.Adam, foreach=False"
             % torch.__version__.split("+")[0]]
    random_problem(lines)
    variants(lines)
    return "\n".join(lines) + "\n"


def main(argv):
    return script_main(argv, DATA, render, __file__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
