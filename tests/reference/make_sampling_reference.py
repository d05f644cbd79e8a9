#!/usr/bin/python3
"""Write (or check) Chapter 36's sampling reference: tests/reference/data/generation/ch36_sampling.txt.

    /usr/bin/python3 tests/reference/make_sampling_reference.py          # rewrite the file
    /usr/bin/python3 tests/reference/make_sampling_reference.py --check  # exit 1 if stale

Written from the formulas of chapters/36-temperature-and-top-k-sampling.md, not from the
C++, in PyTorch float64:

  tempered       torch.softmax(z / tau), cross-checked against NumPy's
                 exp((z - m) / tau) / sum (they must agree to 1e-15, else the script fails);
  kept           the first k indices of torch.sort(z, descending=True, stable=True): of equal
                 logits the lower id first (the chapter's tie rule); torch.topk(z, k) must
                 return the same k values (it may order tied ids differently, which is why
                 the stable sort, not topk's indices, decides); no k: every id;
  probabilities  tempered on the kept ids divided by their sum, 0 elsewhere;
  tokens         the inverse CDF of the given uniforms: torch.searchsorted(cumsum(p), u,
                 right=True), the smallest id whose cumulative probability exceeds u (if
                 rounding leaves the total at or below u, the last id of positive p).

The uniforms are SplitMix64(seed) draws as u = (next >> 11) * 2^-53, the generator of
src/llmfs/core/splitmix64.hpp, so the C++ test draws the same numbers from the same seed.

Cases: the chapter's fixture z = (ln 2, ln 4, 0, ln 2, -inf) under four settings, a row whose
top is tied, and 16 seeded random rows (V in [2, 12], logits multiples of 1/4 in [-4, 4) so
that ties are common, some masked with -inf, tau from 0.3 to 3, k none or 1..V+1).

Format: `#` comment lines, then one record per case, numbers with 17 significant digits:

    CASE|name=N|temperature=t|top_k=k or none|seed=s|logits=...|tempered=...|kept=i,j,...|
        probabilities=...|uniforms=...|tokens=...     (on one line)

tests/chapters/ch36_reference_test.cpp reads the committed file and needs no Python.
"""

import math
import sys
from pathlib import Path

import numpy_dispatch  # noqa: F401  (before numpy: the same SIMD paths on every machine)
import numpy as np
import torch

from text_common import SplitMix64, script_main

DATA = Path(__file__).resolve().parent / "data" / "generation" / "ch36_sampling.txt"
DRAWS = 16
FIXTURE = [math.log(2.0), math.log(4.0), 0.0, math.log(2.0), -math.inf]


def uniforms(seed, count):
    rng = SplitMix64(seed)
    return [(rng.next() >> 11) * 2.0 ** -53 for _ in range(count)]


def cases():
    out = [("fixture", FIXTURE, 0.5, 2, 36), ("fixture_uncut", FIXTURE, 1.0, None, 36),
           ("fixture_top3", FIXTURE, 1.0, 3, 37), ("fixture_hot", FIXTURE, 4.0, 4, 38),
           ("tied_top", [2.0, 1.0, 2.0, 2.0, -1.0], 0.7, 2, 39)]
    rng = SplitMix64(3600)
    for i in range(16):
        vocab = 2 + rng.below(11)
        z = [rng.below(32) / 4.0 - 4.0 for _ in range(vocab)]
        for j in range(1, vocab):
            if rng.below(6) == 0:
                z[j] = -math.inf
        tau = [0.3, 0.7, 1.0, 1.6, 3.0][rng.below(5)]
        pick = rng.below(vocab + 2)
        out.append(("random_%d" % i, z, tau, None if pick == 0 else pick, 3610 + i))
    return out


def stages(z, tau, k):
    t = torch.tensor(z, dtype=torch.float64)
    tempered = torch.softmax(t / tau, dim=-1)
    x = np.array(z, dtype=np.float64)
    e = np.exp((x - x.max()) / tau)
    if np.max(np.abs(e / e.sum() - tempered.numpy())) > 1e-15:
        raise SystemExit("ch36_sampling: NumPy and torch tempered softmax differ")
    vocab = len(z)
    if k is None:
        kept = list(range(vocab))
    else:
        kept = torch.sort(t, descending=True, stable=True).indices[:k].tolist()
        top = torch.topk(t, min(k, vocab)).values
        if not torch.equal(top, t[kept]):
            raise SystemExit("ch36_sampling: torch.topk keeps other values than the sort")
    mask = torch.zeros(vocab, dtype=torch.float64)
    mask[kept] = 1.0
    cut = tempered * mask
    return tempered, sorted(kept), cut / cut.sum()


def draw(p, us):
    cdf = torch.cumsum(p, dim=0)
    last = int(torch.nonzero(p > 0).max())
    ids = torch.searchsorted(cdf, torch.tensor(us, dtype=torch.float64), right=True)
    return [min(int(i), last) if int(i) < len(p) else last for i in ids]


def number(v):
    return "-inf" if v == -math.inf else "%.17g" % float(v)


def join(values):
    return ",".join(number(v) for v in values)


def render():
    lines = ["# Chapter 36 reference (tests/reference/make_sampling_reference.py): torch %s "
             "float64, NumPy %s" % (torch.__version__.split("a")[0], np.__version__)]
    for name, z, tau, k, seed in cases():
        tempered, kept, p = stages(z, tau, k)
        us = uniforms(seed, DRAWS)
        lines.append("CASE|name=%s|temperature=%s|top_k=%s|seed=%d|logits=%s|tempered=%s|"
                     "kept=%s|probabilities=%s|uniforms=%s|tokens=%s" % (
                         name, number(tau), "none" if k is None else k, seed, join(z),
                         join(tempered.tolist()), ",".join(str(i) for i in kept),
                         join(p.tolist()), join(us), ",".join(str(i) for i in draw(p, us))))
    return "\n".join(lines) + "\n"


def main(argv):
    return script_main(argv, DATA, render, __file__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
