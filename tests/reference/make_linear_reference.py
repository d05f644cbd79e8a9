#!/usr/bin/python3
"""Write (or check) Chapter 19's linear-layer reference: tests/reference/data/nn/ch19_linear.txt.

    /usr/bin/python3 tests/reference/make_linear_reference.py          # rewrite
    /usr/bin/python3 tests/reference/make_linear_reference.py --check  # exit 1 if stale

PyTorch float64 `torch.nn.functional.linear`, which takes its weight in PyTorch's own
layout [out, in] and computes x @ weight.T + bias: the book's weight W [in, out] goes in
as W.T, and torch.autograd gives the gradients with respect to X, W (so [in, out]) and b
of the scalar sum(Y * G). The cases: the chapter's hand fixture, two seeded random cases
drawn with SplitMix64 (one with a bias, one without), and the square-matrix trap, where
`torch.nn.Linear`'s own weight parameter is set to PyTorch's [out, in] layout. The C++
test tests/chapters/ch19_linear_layers_test.cpp runs nn::Linear on the same inputs.

Format: `#` comment lines, then one case per line:

    CASE|name=...|x_shape=B,T,in|x=...|w_shape=in,out|w=...|b=...|g=...|y=...|dx=...|dw=...|db=...

`b` and `db` are empty without a bias. Numbers have 17 significant digits, row-major.
"""

import sys
from pathlib import Path

import numpy_dispatch  # noqa: F401  (before numpy: the same SIMD paths on every machine)
import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reference_common import drawn, shape_text, tensor_of, tensor_text  # noqa: E402
from text_common import SplitMix64, script_main  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "nn" / "ch19_linear.txt"


def case(name, x, w, b, g):
    """One CASE line: Y = F.linear(X, Wᵀ, b) and the gradients of sum(Y ⊙ G)."""
    x, w = x.clone().requires_grad_(True), w.clone().requires_grad_(True)
    b = None if b is None else b.clone().requires_grad_(True)
    y = F.linear(x, w.t(), b)  # PyTorch's layout is [out, in]: ours transposed
    (y * g).sum().backward()
    empty = torch.zeros(0, dtype=torch.float64)
    return "|".join([
        "CASE", "name=" + name, "x_shape=" + shape_text(x.shape), "x=" + tensor_text(x),
        "w_shape=" + shape_text(w.shape), "w=" + tensor_text(w),
        "b=" + tensor_text(empty if b is None else b), "g=" + tensor_text(g), "y=" + tensor_text(y),
        "dx=" + tensor_text(x.grad), "dw=" + tensor_text(w.grad),
        "db=" + tensor_text(empty if b is None else b.grad)])


def trap():
    """torch.nn.Linear with its weight set to [[1,3],[2,4]] (its [out, in] layout) is the
    book's W = [[1,2],[3,4]] stored [in, out]: both give X·W."""
    layer = torch.nn.Linear(2, 2, bias=False).double()
    with torch.no_grad():
        layer.weight.copy_(tensor_of([1, 3, 2, 4], (2, 2)))
    x = tensor_of([1, 2, 0, 1], (2, 2))
    return "|".join(["CASE", "name=square_trap", "x_shape=2,2", "x=" + tensor_text(x),
                     "torch_weight=" + tensor_text(layer.weight), "y=" + tensor_text(layer(x))])


def render():
    lines = ["# Chapter 19 reference (tests/reference/make_linear_reference.py): torch %s, "
             "float64, torch.nn.functional.linear with weight W.T, torch.autograd"
             % torch.__version__.split("+")[0]]
    lines.append(case("fixture", tensor_of([1, 2, 0, 0, 1, -1], (2, 3)),
                      tensor_of([1, -1, 2, 0, 0, 3], (3, 2)), tensor_of([0.5, -0.5], (2,)),
                      tensor_of([1, 0, 2, -1], (2, 2))))
    for seed, (batch, tokens, d_in, d_out, bias) in [(19, (2, 3, 5, 4, True)),
                                                      (1901, (1, 4, 3, 6, False))]:
        rng = SplitMix64(seed)
        x = drawn(rng, (batch, tokens, d_in))
        w = drawn(rng, (d_in, d_out))
        b = drawn(rng, (d_out,)) if bias else None
        g = drawn(rng, (batch, tokens, d_out))
        lines.append(case("random_%d" % seed, x, w, b, g))
    lines.append(trap())
    return "\n".join(lines) + "\n"


def main(argv):
    return script_main(argv, DATA, render, __file__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
