#!/usr/bin/python3
"""Write (or check) Chapter 12's softmax reference: tests/reference/data/tensor/ch12_softmax.txt.

    /usr/bin/python3 tests/reference/make_softmax_reference.py          # rewrite the file
    /usr/bin/python3 tests/reference/make_softmax_reference.py --check  # exit 1 if stale

Written from the formulas of chapters/12-stable-softmax.md, not from the C++: NumPy float64,
m = max_j x_j, softmax_j = exp(x_j - m) / sum_k exp(x_k - m), log_softmax_j = (x_j - m) -
log sum_k exp(x_k - m), logsumexp = m + log sum_k exp(x_k - m); and PyTorch's own
torch.softmax, torch.log_softmax and torch.logsumexp (float64) on the same logits, which
must agree with NumPy to 1e-15 relative (the script fails otherwise). The C++ test
tests/chapters/ch12_stable_softmax_test.cpp reads the committed file and needs no Python.

The case: 6 rows of 9 logits drawn with SplitMix64 (seed 12, text_common.py), uniform
multiples of 2^-24 in [-4, 4), so no row is one-hot; row 3 is shifted by +1000 (the naive formula overflows),
row 4 has entries 1, 4 and 7 masked with -inf, row 5 is multiplied by 150 (spread 1200, so
some probabilities underflow to 0 while their log-softmax stays finite).

Format: `#` comment lines, then `KIND|row=r|values=v0,v1,...`, numbers with 17
significant digits (enough to round-trip a double), -inf as `-inf`:

    LOGITS|row=r|values=...       the input
    SOFTMAX|row=r|values=...      NumPy, from the formula
    LOG_SOFTMAX|row=r|values=...
    LOGSUMEXP|row=r|value=...
"""

import sys
from pathlib import Path

import numpy_dispatch  # noqa: F401  (before numpy: the same SIMD paths on every machine)
import numpy as np
import torch

from text_common import SplitMix64, script_main

DATA = Path(__file__).resolve().parent / "data" / "tensor" / "ch12_softmax.txt"
ROWS, WIDTH, SEED = 6, 9, 12


def draw():
    rng = SplitMix64(SEED)
    grid = 1 << 24
    x = np.array([[rng.below(8 * grid) / grid - 4.0 for _ in range(WIDTH)]
                  for _ in range(ROWS)], dtype=np.float64)
    x[3] += 1000.0
    x[4, [1, 4, 7]] = -np.inf
    x[5] *= 150.0
    return x


def stable(x):
    m = x.max(axis=-1, keepdims=True)
    e = np.exp(x - m)
    total = e.sum(axis=-1, keepdims=True)
    return e / total, (x - m) - np.log(total), (m + np.log(total))[:, 0]


def agree(ours, theirs, what):
    finite = np.isfinite(ours)
    if not np.array_equal(finite, np.isfinite(theirs)) or \
            not np.array_equal(ours[~finite], theirs[~finite]):
        raise SystemExit("ch12_softmax: %s: NumPy and torch differ in the non-finite entries" % what)
    scale = np.maximum(np.abs(ours[finite]), 1.0)
    worst = np.max(np.abs(ours[finite] - theirs[finite]) / scale)
    if worst > 1e-15:
        raise SystemExit("ch12_softmax: %s: NumPy and torch differ by %g relative" % (what, worst))


def number(v):
    return "-inf" if v == -np.inf else "%.17g" % float(v)


def render():
    x = draw()
    p, logp, lse = stable(x)
    t = torch.tensor(x, dtype=torch.float64)
    agree(p, torch.softmax(t, dim=-1).numpy(), "softmax")
    agree(logp, torch.log_softmax(t, dim=-1).numpy(), "log_softmax")
    agree(lse, torch.logsumexp(t, dim=-1).numpy(), "logsumexp")
    lines = ["# Chapter 12 reference (tests/reference/make_softmax_reference.py): NumPy %s "
             "float64, checked against torch %s" % (np.__version__, torch.__version__.split("a")[0])]
    for r in range(ROWS):
        lines.append("LOGITS|row=%d|values=%s" % (r, ",".join(number(v) for v in x[r])))
        lines.append("SOFTMAX|row=%d|values=%s" % (r, ",".join(number(v) for v in p[r])))
        lines.append("LOG_SOFTMAX|row=%d|values=%s" % (r, ",".join(number(v) for v in logp[r])))
        lines.append("LOGSUMEXP|row=%d|value=%s" % (r, number(lse[r])))
    return "\n".join(lines) + "\n"


def main(argv):
    return script_main(argv, DATA, render, __file__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
