#!/usr/bin/python3
"""Chapter 42's independent reference: the teaching loop's sums, a fused multiply-add in the
same order, and the sum split in two halves, computed in plain Python floats (IEEE doubles,
round to nearest, no FMA) and exact rationals, on the chapter program's [97,257]·[257,65]
product drawn by SplitMix64 (seeds 7 and 8, values 2u − 1, row-major: evidence.cpp).

    /usr/bin/python3 tests/reference/make_matmul_order_reference.py           # write
    /usr/bin/python3 tests/reference/make_matmul_order_reference.py --check   # compare

Writes tests/reference/data/tensor/ch42_orders.txt:
    ORDERS|n=|k=|m=|outputs=|fma_differs=|split_differs=
    ROW|i=0|values=hex,hex,...    row 0 of the teaching product, float.hex (exact bits)
The fused multiply-add is round(a·b + s) with one rounding: the exact rational a·b + s
(fractions.Fraction) converted by float(), which rounds correctly. No torch: nothing
here depends on a BLAS.
"""
import sys
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from text_common import SplitMix64, script_main  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "tensor" / "ch42_orders.txt"
N, K, M = 97, 257, 65


def matrix(rows, cols, seed):
    rng = SplitMix64(seed)
    return [2.0 * ((rng.next() >> 11) * 2.0 ** -53) - 1.0 for _ in range(rows * cols)]


def reference():
    a, b = matrix(N, K, 7), matrix(K, M, 8)
    fma_differs = split_differs = 0
    row0 = []
    for i in range(N):
        for j in range(M):
            s, low, high, fused = 0.0, 0.0, 0.0, Fraction(0)
            for p in range(K):
                term = a[i * K + p] * b[p * M + j]
                s += term
                if p < K // 2:
                    low += term
                else:
                    high += term
                fused = Fraction(float(Fraction(a[i * K + p]) * Fraction(b[p * M + j]) + fused))
            fma_differs += float(fused) != s
            split_differs += (low + high) != s
            if i == 0:
                row0.append(s.hex())
    return (
        "# Chapter 42 reference (tests/reference/make_matmul_order_reference.py): Python floats and "
        "exact rationals, no torch\n"
        f"ORDERS|n={N}|k={K}|m={M}|outputs={N * M}|fma_differs={fma_differs}|"
        f"split_differs={split_differs}\n"
        f"ROW|i=0|values={','.join(row0)}\n")


if __name__ == "__main__":
    sys.exit(script_main(sys.argv[1:], DATA, reference, __file__))
