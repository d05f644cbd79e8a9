#!/usr/bin/python3
"""Write (or check) Chapter 9's tensor-views reference: tests/reference/data/tensor/ch09_tensor_views.txt.

    /usr/bin/python3 tests/reference/make_tensor_views_reference.py          # rewrite the file
    /usr/bin/python3 tests/reference/make_tensor_views_reference.py --check  # exit 1 if stale

Written from NumPy's own views, not from the C++: a = np.arange(N, dtype=np.float64)
reshaped to a seeded random shape; for a random pair of axes, v = a.swapaxes(i, j) is a view
(NumPy permutes the strides and moves nothing): its shape, its strides in elements,
v.flags['C_CONTIGUOUS'], whether np.ravel(v) still shares memory with a (no copy was
needed), and np.ascontiguousarray(v).ravel(), the materialised values (each is the storage
offset it was read from, since a holds 0..N-1). For a random reshape of a to another shape
of the same count: its strides, and whether it shares memory with a (a reshape of a
contiguous array never copies). Random cases are drawn by SplitMix64
(tests/reference/text_common.py) from a fixed seed. The C++ chapter test
tests/chapters/ch09_tensor_views_test.cpp reads the committed file.

Format: `#` comment lines, then one fact per line:

    TRANSPOSE|case=k|shape=..|axes=i,j|view_shape=..|view_strides=..|contiguous=0/1|flat_shares=0/1|values=..
    RESHAPE|case=k|shape=..|to=..|strides=..|shares=0/1
"""

import sys
from pathlib import Path

import numpy_dispatch  # noqa: F401  (before numpy: the same SIMD paths on every machine)
import numpy as np

from text_common import SplitMix64, script_main

DATA = Path(__file__).resolve().parent / "data" / "tensor" / "ch09_tensor_views.txt"
SEED = 0x09C0FFEE
CASES = 50


def joined(values):
    return ",".join(str(int(v)) for v in values)


def random_shape(rng):
    """Rank 2..4, lengths 1..4."""
    return tuple(1 + rng.below(4) for _ in range(2 + rng.below(3)))


def factors(n):
    out, p = [], 2
    while n > 1:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1
    return out


def random_reshape(rng, count):
    rank = 1 + rng.below(4)
    dims = [1] * rank
    for p in factors(count):
        dims[rng.below(rank)] *= p
    return tuple(dims)


def render():
    lines = ["# Chapter 9 reference (tests/reference/make_tensor_views_reference.py): NumPy %s"
             % np.__version__]
    rng = SplitMix64(SEED)
    for case in range(CASES):
        shape = random_shape(rng)
        count = int(np.prod(shape))
        a = np.arange(count, dtype=np.float64).reshape(shape)
        i = rng.below(len(shape))  # j differs from i whenever the rank allows
        j = (i + 1 + rng.below(len(shape) - 1)) % len(shape) if len(shape) > 1 else i
        v = a.swapaxes(i, j)
        flat = np.ravel(v)
        lines.append("TRANSPOSE|case=%d|shape=%s|axes=%d,%d|view_shape=%s|view_strides=%s|"
                     "contiguous=%d|flat_shares=%d|values=%s"
                     % (case, joined(shape), i, j, joined(v.shape),
                        joined(s // v.itemsize for s in v.strides), v.flags["C_CONTIGUOUS"],
                        np.shares_memory(flat, a), joined(np.ascontiguousarray(v).ravel())))
        to = random_reshape(rng, count)
        r = a.reshape(to)
        lines.append("RESHAPE|case=%d|shape=%s|to=%s|strides=%s|shares=%d"
                     % (case, joined(shape), joined(to), joined(s // r.itemsize for s in r.strides),
                        np.shares_memory(r, a)))
    return "\n".join(lines) + "\n"


def main(argv):
    return script_main(argv, DATA, render, __file__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
