#!/usr/bin/python3
"""Write (or check) Chapter 8's tensor-storage reference: tests/reference/data/tensor/ch08_tensor_storage.txt.

    /usr/bin/python3 tests/reference/make_tensor_storage_reference.py          # rewrite the file
    /usr/bin/python3 tests/reference/make_tensor_storage_reference.py --check  # exit 1 if stale

Written from NumPy's own C-order (row-major) layout, not from the C++: the strides of
np.empty(shape, dtype=np.float64) divided by the element size (8 bytes), the element
count np.empty(shape).size, the offset np.ravel_multi_index(index, shape), the element
np.arange(count, dtype=np.float64).reshape(shape)[index] (so its value is the position
NumPy stores it at), and np.unravel_index(offset, shape). Element counts of huge shapes
are exact Python integers compared with 2^64 (a shape that large cannot be allocated).
Random cases are drawn by SplitMix64 (tests/reference/text_common.py) from fixed seeds.
The C++ chapter test tests/chapters/ch08_tensor_storage_test.cpp reads the committed file.

Format: `#` comment lines, then one fact per line:

    SHAPE|case=k|shape=a,b,c|count=n|strides=s0,s1,s2   rank 1..5, axis lengths 1..6
    INDEX|case=k|index=i0,i1,i2|offset=o|value=v         a random index of case k
    UNRAVEL|case=k|offset=o|index=i0,i1,i2               a random offset of case k
    COUNT|shape=a,b|fits=0 or 1|count=n                  n only when it fits in 64 bits
"""

import sys
from pathlib import Path

import numpy_dispatch  # noqa: F401  (before numpy: the same SIMD paths on every machine)
import numpy as np

from text_common import SplitMix64, script_main

DATA = Path(__file__).resolve().parent / "data" / "tensor" / "ch08_tensor_storage.txt"
SEED = 0x08C0FFEE
CASES = 60
INDICES_PER_CASE = 3
LIMIT = 1 << 64  # std::size_t holds 0 .. 2^64 - 1


def joined(values):
    return ",".join(str(int(v)) for v in values)


def shape_lines(rng, case):
    rank = 1 + rng.below(5)
    shape = tuple(1 + rng.below(6) for _ in range(rank))
    array = np.empty(shape, dtype=np.float64)
    strides = [s // array.itemsize for s in array.strides]
    lines = ["SHAPE|case=%d|shape=%s|count=%d|strides=%s"
             % (case, joined(shape), array.size, joined(strides))]
    numbered = np.arange(array.size, dtype=np.float64).reshape(shape)
    for _ in range(INDICES_PER_CASE):
        index = tuple(rng.below(n) for n in shape)
        offset = np.ravel_multi_index(index, shape) if rank else 0
        value = numbered[index]
        lines.append("INDEX|case=%d|index=%s|offset=%d|value=%d"
                     % (case, joined(index), offset, value))
    offset = rng.below(array.size)
    index = np.unravel_index(offset, shape) if rank else ()
    lines.append("UNRAVEL|case=%d|offset=%d|index=%s" % (case, offset, joined(index)))
    return lines


def count_line(shape):
    count = 1
    for n in shape:
        count *= n  # exact: Python integers do not overflow
    fits = count < LIMIT
    return "COUNT|shape=%s|fits=%d|count=%s" % (joined(shape), fits, count if fits else "")


def render():
    lines = ["# Chapter 8 reference (tests/reference/make_tensor_storage_reference.py): NumPy %s"
             % np.__version__]
    rng = SplitMix64(SEED)
    for case in range(CASES):
        lines += shape_lines(rng, case)
    fixed = [(1 << 32, 1 << 32), ((1 << 32) - 1, 1 << 32), (1 << 21, 1 << 21, 1 << 22),
             (1 << 21, 1 << 21, (1 << 22) - 1), (2642245,) * 3, (2642246,) * 3,
             (LIMIT - 1,), (LIMIT - 1, 1), (LIMIT - 1, 2), (3, 5, 7, 11)]
    for shape in fixed:
        lines.append(count_line(shape))
    for _ in range(20):  # random ranks 2..4, lengths up to 2^24: some fit, some do not
        rank = 2 + rng.below(3)
        lines.append(count_line(tuple(1 + rng.below(1 << 24) for _ in range(rank))))
    return "\n".join(lines) + "\n"


def main(argv):
    return script_main(argv, DATA, render, __file__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
