#!/usr/bin/python3
"""Write (or check) Chapter 11's matrix-multiplication reference:
tests/reference/data/tensor/ch11_matmul.txt.

    /usr/bin/python3 tests/reference/make_matmul_reference.py          # rewrite the file
    /usr/bin/python3 tests/reference/make_matmul_reference.py --check  # exit 1 if stale

Written from chapters/11-matrix-multiplication.md, not from the C++: NumPy float64
`np.matmul`, which multiplies over the last two axes and broadcasts the leading (batch) axes
by the rule of chapter 10. The inputs are drawn by SplitMix64 (seed 11) as uniform doubles in
[-1, 1) and stored beside the outputs, so the C++ test (tests/chapters/ch11_reference_test.cpp)
needs no Python. NumPy hands the products to BLAS, which may add in another order and with
fused multiply-adds: the test compares to 1e-14 per term, not to the bit.

Format (tests/support/reference_data.hpp): `NAME|shape=[..]|values=v0,v1,...`, row-major,
17 significant digits.
"""

import sys
from pathlib import Path

import numpy_dispatch  # noqa: F401  (before numpy: the same SIMD paths on every machine)
import numpy as np

from tensor_common import tensor_line as line, uniform_array as uniform
from text_common import SplitMix64, script_main

DATA = Path(__file__).resolve().parent / "data" / "tensor" / "ch11_matmul.txt"
SEED = 11
CASES = {  # name: (left shape, right shape)
    "plain": ((9, 13), (13, 6)),
    "batched": ((2, 1, 5, 7), (3, 7, 4)),
    "linear": ((2, 4, 8), (8, 3)),
}


def render():
    rng = SplitMix64(SEED)
    lines = ["# script: tests/reference/make_matmul_reference.py",
             "# numpy: %s" % np.__version__, "# dtype: float64", "# seed: %d" % SEED]
    for name, (sa, sb) in CASES.items():
        a, b = uniform(rng, sa), uniform(rng, sb)
        lines += [line(name + "_a", a), line(name + "_b", b), line(name + "_c", np.matmul(a, b))]
    return "\n".join(lines) + "\n"


def main(argv):
    return script_main(argv, DATA, render, __file__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
