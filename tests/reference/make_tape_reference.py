#!/usr/bin/python3
"""Write (or check) Chapter 15's tensor-tape reference: tests/reference/data/autograd/ch15_tape.txt.

    /usr/bin/python3 tests/reference/make_tape_reference.py          # rewrite
    /usr/bin/python3 tests/reference/make_tape_reference.py --check  # exit 1 if stale

PyTorch's own reverse mode (torch.autograd, float64), written from the formulas of
chapters/15-tensor-autodiff.md and independent of the book's tape: the chapter's fixture
loss = sum((X @ W + b) ** 2), and for every tensor op of the chapter one random case with
loss = sum(op(inputs) * C). Inputs and C are drawn from SplitMix64 (text_common.py) as
(next() >> 11) * 2**-53 * 2 - 1, seed 1500 + 10 * case + input, C with + 9 -- the seeds
of snippets/ch15-tensor-autodiff/evidence.cpp -- and are stored in the file, so the C++
test tests/chapters/ch15_tensor_autodiff_test.cpp rebuilds each loss on the tape from the
stored numbers and compares its gradients.

Format: `#` comment lines, then one case per line:

    CASE|op=add|shapes=2x3;3|inputs=v,v,...;v,...|weights=v,...|loss=v|gradients=g,...;g,...

shapes and inputs and gradients `;`-separated per input (row-major values, comma-
separated; a rank-0 shape is written `scalar`), numbers with 17 significant digits.
"""

import math
import sys
from pathlib import Path

import numpy_dispatch  # noqa: F401  (before numpy: the same SIMD paths on every machine)
import torch

from reference_common import tensor_text
from text_common import SplitMix64, number, script_main, uniform

DATA = Path(__file__).resolve().parent / "data" / "autograd" / "ch15_tape.txt"

# name, input shapes, the op: the chapter's table (Build, "every op").
OPS = [
    ("add", [(2, 3), (3,)], lambda a, b: a + b),
    ("subtract", [(2, 1, 3), (2, 1)], lambda a, b: a - b),
    ("multiply", [(2, 3), (2, 1)], lambda a, b: a * b),
    ("scale", [(2, 3)], lambda a: -1.5 * a),
    ("matmul", [(2, 2, 3), (3, 2)], lambda a, b: torch.matmul(a, b)),
    ("reshape", [(2, 3)], lambda a: a.reshape(3, 2)),
    ("transpose", [(2, 3, 2)], lambda a: a.transpose(0, 2)),
    ("slice_last_axis", [(2, 4)], lambda a: a[..., 1:3]),
    ("sum", [(2, 3)], lambda a: a.sum()),
]


def seeded(seed, count):
    """`count` doubles in [-1, 1) from a fresh SplitMix64(seed)."""
    return uniform(SplitMix64(seed), count)


def shape_text(shape):
    return "x".join(str(d) for d in shape) or "scalar"


def line(name, shapes, inputs, weights, loss):
    loss.backward()
    return "CASE|op=%s|shapes=%s|inputs=%s|weights=%s|loss=%s|gradients=%s" % (
        name, ";".join(shape_text(s) for s in shapes), ";".join(tensor_text(t) for t in inputs),
        weights, number(loss.item()), ";".join(tensor_text(t.grad) for t in inputs))


def leaf(shape, data):
    return torch.tensor(data, dtype=torch.float64).reshape(shape).requires_grad_(True)


def render():
    lines = ["# Chapter 15 reference (tests/reference/make_tape_reference.py): torch %s, "
             "float64, torch.autograd" % torch.__version__.split("+")[0]]
    x = leaf((2, 2), [1.0, 2.0, 3.0, -1.0])
    w = leaf((2, 2), [1.0, 0.0, -1.0, 1.0])
    b = leaf((2,), [1.0, 0.0])
    loss = ((x @ w + b) ** 2).sum()
    lines.append(line("fixture", [(2, 2), (2, 2), (2,)], [x, w, b], "", loss))
    for k, (name, shapes, op) in enumerate(OPS):
        base = 1500 + 10 * k
        inputs = [leaf(s, seeded(base + i, math.prod(s))) for i, s in enumerate(shapes)]
        y = op(*inputs)
        c = torch.tensor(seeded(base + 9, y.numel()), dtype=torch.float64).reshape(y.shape)
        lines.append(line(name, shapes, inputs, tensor_text(c), (y * c).sum()))
    return "\n".join(lines) + "\n"


def main(argv):
    return script_main(argv, DATA, render, __file__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
