#!/usr/bin/python3
"""Write (or check) Chapter 18's embedding reference: tests/reference/data/nn/ch18_embedding.txt.

    /usr/bin/python3 tests/reference/make_embedding_reference.py          # rewrite
    /usr/bin/python3 tests/reference/make_embedding_reference.py --check  # exit 1 if stale

PyTorch float64 (torch.nn.functional.embedding, torch.autograd) on tables drawn the way
Chapter 18's layer draws them: SplitMix64 (text_common.py), Box–Muller normals with
σ = 1/√d_model, written again here from the chapter's formulas. Some ids repeat, so a
row's gradient is the sum of several positions'. tests/chapters/ch18_reference_test.cpp
creates the same layer with nn::Embedding::create and compares the table, the output and
the gradient.

Format: `#` comment lines, then one record per case:

    CASE|seed=S|vocab=V|width=D|table=...|ids_shape=B,T|ids=...|weights=...|value=...|gradient=...

The differentiated scalar is sum(embedding(ids, table) * weights). Numbers have 17
significant digits.
"""

import math
import sys
from pathlib import Path

import numpy_dispatch  # noqa: F401  (before numpy: the same SIMD paths on every machine)
import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
from text_common import SplitMix64, joined, script_main, standard_normal, uniform  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "nn" / "ch18_embedding.txt"


def case(seed, vocab, width, batch, time):
    std = 1.0 / math.sqrt(width)
    rng = SplitMix64(seed)
    table = torch.tensor([std * standard_normal(rng) for _ in range(vocab * width)],
                         dtype=torch.float64).reshape(vocab, width).requires_grad_(True)
    other = SplitMix64(seed + 1000)
    ids = torch.tensor([other.below(vocab) for _ in range(batch * time)],
                       dtype=torch.int64).reshape(batch, time)
    ids[0, 1] = ids[0, 0]  # one row read twice
    weights = torch.tensor(uniform(other, batch * time * width, -2.0, 2.0),
                           dtype=torch.float64).reshape(batch, time, width)
    out = F.embedding(ids, table)
    (out * weights).sum().backward()
    flat = lambda t: t.detach().reshape(-1).tolist()  # noqa: E731
    return ("CASE|seed=%d|vocab=%d|width=%d|table=%s|ids_shape=%d,%d|ids=%s|weights=%s|"
            "value=%s|gradient=%s" % (seed, vocab, width, joined(flat(table)), batch, time,
                                      ",".join(str(i) for i in flat(ids)),
                                      joined(flat(weights)), joined(flat(out)),
                                      joined(flat(table.grad))))


def render():
    lines = ["# Chapter 18 reference (tests/reference/make_embedding_reference.py): torch %s, "
             "float64, torch.nn.functional.embedding and torch.autograd"
             % torch.__version__.split("+")[0]]
    lines.append(case(18, 11, 4, 2, 3))
    lines.append(case(1801, 7, 6, 3, 4))
    return "\n".join(lines) + "\n"


def main(argv):
    return script_main(argv, DATA, render, __file__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
