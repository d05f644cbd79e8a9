#!/usr/bin/python3
"""Write (or check) Chapter 10's broadcasting and reduction reference:
tests/reference/data/tensor/ch10_broadcast.txt.

    /usr/bin/python3 tests/reference/make_broadcast_reference.py          # rewrite the file
    /usr/bin/python3 tests/reference/make_broadcast_reference.py --check  # exit 1 if stale

Written from the rules of chapters/10-broadcasting-and-reductions.md, not from the C++:
NumPy float64 broadcasting (np.add, np.multiply), np.sum / np.mean / np.max with
keepdims=True, and sum_to as "sum over the leading axes broadcasting added, then over every
axis where the target has length 1". The inputs are drawn by SplitMix64 (seed 10) as
uniform doubles in [-1, 1) and stored beside the outputs, so the C++ test
(tests/chapters/ch10_reference_test.cpp) reads both and needs no Python or generator.

Format (tests/support/reference_data.hpp): `NAME|shape=[..]|values=v0,v1,...`, row-major,
17 significant digits. NumPy sums pairwise, the C++ in index order: they agree to a few
ulps, not to the bit, and the test says so.
"""

import sys
from pathlib import Path

import numpy_dispatch  # noqa: F401  (before numpy: the same SIMD paths on every machine)
import numpy as np

from tensor_common import tensor_line as line, uniform_array as uniform
from text_common import SplitMix64, script_main

DATA = Path(__file__).resolve().parent / "data" / "tensor" / "ch10_broadcast.txt"
SEED = 10
A_SHAPE = (4, 1, 5)
B_SHAPE = (3, 1)
BIG_SHAPE = (7, 6, 9)  # the reductions of a larger tensor


def sum_to(x, target):
    """The adjoint of broadcasting target -> x.shape, from the chapter's rule."""
    lead = x.ndim - len(target)
    out = x.sum(axis=tuple(range(lead))) if lead else x
    axes = tuple(i for i, n in enumerate(target) if n == 1 and out.shape[i] != 1)
    return out.sum(axis=axes, keepdims=True) if axes else out


def render():
    rng = SplitMix64(SEED)
    a, b, big = uniform(rng, A_SHAPE), uniform(rng, B_SHAPE), uniform(rng, BIG_SHAPE)
    product = a * b
    lines = ["# script: tests/reference/make_broadcast_reference.py",
             "# numpy: %s" % np.__version__, "# dtype: float64", "# seed: %d" % SEED,
             line("a", a), line("b", b), line("big", big),
             line("add", a + b), line("subtract", a - b), line("multiply", product)]
    for axis in range(big.ndim):
        lines.append(line("sum_axis%d" % axis, big.sum(axis=axis, keepdims=True)))
        lines.append(line("mean_axis%d" % axis, big.mean(axis=axis, keepdims=True)))
        lines.append(line("max_axis%d" % axis, big.max(axis=axis, keepdims=True)))
    lines.append(line("sum_to_b", sum_to(product, B_SHAPE)))
    lines.append(line("sum_to_a", sum_to(product, A_SHAPE)))
    lines.append(line("sum_to_last", sum_to(product, (5,))))
    lines.append(line("sum_all", product.sum()))
    return "\n".join(lines) + "\n"


def main(argv):
    return script_main(argv, DATA, render, __file__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
