#!/usr/bin/python3
"""Write (or check) Chapter 14's scalar autodiff reference: tests/reference/data/autograd/ch14_scalar_autodiff.txt.

    /usr/bin/python3 tests/reference/make_scalar_autodiff_reference.py          # rewrite
    /usr/bin/python3 tests/reference/make_scalar_autodiff_reference.py --check  # exit 1 if stale

PyTorch's own reverse mode (torch.autograd, float64) on the five expressions of
chapters/14-scalar-autodiff.md, written from the chapter's formulas, independent of the
book's tape. The C++ chapter test tests/chapters/ch14_scalar_autodiff_test.cpp builds the
same expressions on llmfs::autograd::ScalarTape and compares. No randomness.

Format: `#` comment lines, then one expression per line:

    EXPR|name=square|inputs=3|value=9|gradient=6

with `inputs` and `gradient` comma-separated in the order of the expression's inputs,
numbers with 17 significant digits.
"""

import sys
from pathlib import Path

import numpy_dispatch  # noqa: F401  (before numpy: the same SIMD paths on every machine)
import torch

from text_common import number, script_main

DATA = Path(__file__).resolve().parent / "data" / "autograd" / "ch14_scalar_autodiff.txt"


def square(x):
    return x * x


def fixture(a, b):
    return a * b + a


def neuron(x1, w1, x2, w2, bias):
    return torch.tanh(x1 * w1 + x2 * w2 + bias)


def sigmoid(x):
    e = torch.exp(x)
    return e / (1.0 + e)


def mixed(x, y):
    return torch.log(x) * y / (x - y) + torch.tanh(x * y)


CASES = [
    ("square", square, [3.0]),
    ("fixture", fixture, [2.0, -3.0]),
    ("neuron", neuron, [1.0, 0.5, -2.0, 0.25, 0.1]),
    ("sigmoid", sigmoid, [0.5]),
    ("mixed", mixed, [2.0, 0.5]),
]


def render():
    lines = ["# Chapter 14 reference (tests/reference/make_scalar_autodiff_reference.py): "
             "torch %s, float64, torch.autograd" % torch.__version__.split("+")[0]]
    for name, f, point in CASES:
        inputs = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in point]
        out = f(*inputs)
        out.backward()
        lines.append("EXPR|name=%s|inputs=%s|value=%s|gradient=%s" % (
            name, ",".join(number(v) for v in point), number(out.item()),
            ",".join(number(t.grad.item()) for t in inputs)))
    return "\n".join(lines) + "\n"


def main(argv):
    return script_main(argv, DATA, render, __file__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
