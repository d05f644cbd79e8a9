#!/usr/bin/python3
"""Write (or check) Chapter 20's SwiGLU reference: tests/reference/data/nn/ch20_swiglu.txt.

    /usr/bin/python3 tests/reference/make_swiglu_reference.py          # rewrite
    /usr/bin/python3 tests/reference/make_swiglu_reference.py --check  # exit 1 if stale

PyTorch float64: Y = (F.silu(X @ W1) * (X @ W3)) @ W2 with W1, W3 [d_model, d_ff] and
W2 [d_ff, d_model] (Shazeer 2020's FFN_SwiGLU without biases), gradients of sum(Y * G) by
torch.autograd. The cases: the chapter's hand fixture (G all ones) and two seeded random
cases drawn with SplitMix64, one of them at the width rule's d_ff for d_model = 4
(16). The C++ test tests/chapters/ch20_swiglu_feed_forward_test.cpp runs
nn::SwiGluFeedForward on the same inputs.

Format: `#` comment lines, then one case per line:

    CASE|name=...|x_shape=...|x=...|d_ff=N|w1=...|w3=...|w2=...|g=...|y=...|dx=...|dw1=...|dw3=...|dw2=...

Numbers have 17 significant digits, row-major.
"""

import math
import sys
from pathlib import Path

import numpy_dispatch  # noqa: F401  (before numpy: the same SIMD paths on every machine)
import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reference_common import drawn, shape_text, tensor_of, tensor_text  # noqa: E402
from text_common import SplitMix64, script_main  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "nn" / "ch20_swiglu.txt"


def case(name, x, w1, w3, w2, g):
    leaves = [t.clone().requires_grad_(True) for t in (x, w1, w3, w2)]
    x, w1, w3, w2 = leaves
    y = (F.silu(x @ w1) * (x @ w3)) @ w2
    (y * g).sum().backward()
    return "|".join(["CASE", "name=" + name, "x_shape=" + shape_text(x.shape), "x=" + tensor_text(x),
                     "d_ff=%d" % w1.shape[1], "w1=" + tensor_text(w1), "w3=" + tensor_text(w3),
                     "w2=" + tensor_text(w2), "g=" + tensor_text(g), "y=" + tensor_text(y),
                     "dx=" + tensor_text(x.grad), "dw1=" + tensor_text(w1.grad),
                     "dw3=" + tensor_text(w3.grad), "dw2=" + tensor_text(w2.grad)])


def render():
    lines = ["# Chapter 20 reference (tests/reference/make_swiglu_reference.py): torch %s, "
             "float64, F.silu and matmul, torch.autograd" % torch.__version__.split("+")[0]]
    ln3 = math.log(3.0)
    lines.append(case("fixture", tensor_of([1, 0, 0, 1], (2, 2)),
                      tensor_of([0, ln3, -ln3, ln3, 0, 0], (2, 3)),
                      tensor_of([1, 2, 4, 2, 1, 1], (2, 3)),
                      tensor_of([1, 0, 0, 1, 1, 1], (3, 2)), torch.ones(2, 2, dtype=torch.float64)))
    for seed, (batch, tokens, d_model, d_ff) in [(20, (2, 3, 4, 16)), (2001, (1, 5, 3, 8))]:
        rng = SplitMix64(seed)
        x = 2.0 * drawn(rng, (batch, tokens, d_model))  # SiLU arguments well past ±1
        w1 = drawn(rng, (d_model, d_ff))
        w3 = drawn(rng, (d_model, d_ff))
        w2 = drawn(rng, (d_ff, d_model))
        g = drawn(rng, (batch, tokens, d_model))
        lines.append(case("random_%d" % seed, x, w1, w3, w2, g))
    return "\n".join(lines) + "\n"


def main(argv):
    return script_main(argv, DATA, render, __file__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
