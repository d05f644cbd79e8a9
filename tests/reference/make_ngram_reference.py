#!/usr/bin/python3
"""Write (or check) Chapter 23's neural n-gram reference: tests/reference/data/models/ch23_ngram.txt.

    /usr/bin/python3 tests/reference/make_ngram_reference.py          # rewrite
    /usr/bin/python3 tests/reference/make_ngram_reference.py --check  # exit 1 if stale

The model of Bengio et al. (2003) as Chapter 23 builds it, written again in PyTorch float64:
logits = tanh(concat(E[w_1], ..., E[w_n]) @ W1 + b1) @ W2 + b2, loss the mean of
torch.nn.functional.cross_entropy over a batch. A random case (V = 11, n = 3, d = 4, h = 5,
7 examples) with values and token ids drawn by SplitMix64 (text_common.py); its loss, every
parameter's gradient from autograd, and the values after three torch.optim.AdamW steps
(float64, foreach=False) on the same batch, matrices decayed by 0.1, biases not
(tests/chapters/ch23_reference_test.cpp and the chapter's program compare them).

Records (numbers with 17 significant digits, lists comma-separated, row-major):

    CONFIG|V=..|n=..|d=..|h=..
    VALUE|name=..|shape=..|values=..          in the order embedding.weight, hidden.weight,
                                               hidden.bias, output.weight, output.bias
    BATCH|contexts=..|targets=..              contexts [B, n], targets [B]
    LOSS|value=..
    GRAD|name=..|values=..
    HYPER|lr=..|beta1=..|beta2=..|eps=..|weight_decay=..
    STEP|t=..|name=..|values=..               values after AdamW step t
"""

import math
import sys
from pathlib import Path

import numpy_dispatch  # noqa: F401  (before numpy: the same SIMD paths on every machine)
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from text_common import SplitMix64, joined, number, script_main, uniform  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "models" / "ch23_ngram.txt"
V, N, D, H, B = 11, 3, 4, 5, 7
NAMES = ["embedding.weight", "hidden.weight", "hidden.bias", "output.weight", "output.bias"]
SHAPES = [(V, D), (N * D, H), (H,), (H, V), (V,)]
HYPER = dict(lr=0.01, betas=(0.9, 0.999), eps=1e-8)
DECAY = 0.1
STEPS = 3


def loss_of(params, contexts, targets):
    e, w1, b1, w2, b2 = params
    x = e[contexts].reshape(contexts.shape[0], N * D)
    logits = torch.tanh(x @ w1 + b1) @ w2 + b2
    return torch.nn.functional.cross_entropy(logits, targets)


def render():
    rng = SplitMix64(23)
    values = [torch.tensor(uniform(rng, math.prod(s)), dtype=torch.float64).reshape(s) for s in SHAPES]
    contexts = torch.tensor([int(rng.below(V)) for _ in range(B * N)]).reshape(B, N)
    targets = torch.tensor([int(rng.below(V)) for _ in range(B)])
    lines = ["# Chapter 23 reference (tests/reference/make_ngram_reference.py): torch %s, float64"
             % torch.__version__.split("+")[0],
             "CONFIG|V=%d|n=%d|d=%d|h=%d" % (V, N, D, H)]
    for name, shape, v in zip(NAMES, SHAPES, values):
        lines.append("VALUE|name=%s|shape=%s|values=%s" % (
            name, ",".join(str(d) for d in shape), joined(v.reshape(-1).tolist())))
    lines.append("BATCH|contexts=%s|targets=%s" % (
        ",".join(str(int(t)) for t in contexts.reshape(-1)),
        ",".join(str(int(t)) for t in targets)))
    params = [v.clone().requires_grad_(True) for v in values]
    loss = loss_of(params, contexts, targets)
    loss.backward()
    lines.append("LOSS|value=%s" % number(loss.item()))
    for name, p in zip(NAMES, params):
        lines.append("GRAD|name=%s|values=%s" % (name, joined(p.grad.reshape(-1).tolist())))
    lines.append("HYPER|lr=%s|beta1=%s|beta2=%s|eps=%s|weight_decay=%s" % (
        number(HYPER["lr"]), number(HYPER["betas"][0]), number(HYPER["betas"][1]),
        number(HYPER["eps"]), number(DECAY)))
    params = [v.clone().requires_grad_(True) for v in values]
    groups = [{"params": [p for p in params if p.dim() >= 2], "weight_decay": DECAY},
              {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0}]
    optimizer = torch.optim.AdamW(groups, foreach=False, **HYPER)
    for t in range(1, STEPS + 1):
        optimizer.zero_grad()
        loss_of(params, contexts, targets).backward()
        optimizer.step()
        for name, p in zip(NAMES, params):
            lines.append("STEP|t=%d|name=%s|values=%s" % (
                t, name, joined(p.detach().reshape(-1).tolist())))
    return "\n".join(lines) + "\n"


def main(argv):
    return script_main(argv, DATA, render, __file__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
