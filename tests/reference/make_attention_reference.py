#!/usr/bin/python3
"""Write (or check) Chapter 41's reference: tests/reference/data/attention/ch41_streaming.txt.

    /usr/bin/python3 tests/reference/make_attention_reference.py          # rewrite the file
    /usr/bin/python3 tests/reference/make_attention_reference.py --check  # exit 1 if stale

Written from the formulas of chapters/41-attention-that-never-stores-its-weights.md, not from
the C++: PyTorch float64 causal attention computed the ordinary way (the whole [T, T] table of
scores, masked with -inf, torch.softmax, weights @ V), its row log-sum-exp by
torch.logsumexp over the masked scores, and the gradients of sum(O * U) by torch.autograd. The
C++ test (tests/chapters/ch41_attention_that_never_stores_its_weights_test.cpp) runs the
streaming kernel on the stored inputs with every block size and compares.

Cases (records `NAME|shape=[..]|values=..`, 17 significant digits; `case.` prefixes):
  predict.*   the chapter's Predict head: Q = 1 [1,1,5,1], K = the scores [1,3,2,5,0], V [1,1,5,2]
  random.*    Q, K, V, U [2,3,9,4] uniform in [-1, 1) from SplitMix64(seed 41) times 2 for Q
              and K (so the rows are not flat); T = 9 is a multiple of no block size but 1, 3, 9
Each case: q, k, v (inputs), output, log_sum_exp; random also u (upstream), grad_q, grad_k, grad_v.
"""

import math
import sys
from pathlib import Path

import numpy_dispatch  # noqa: F401  (before numpy: the same SIMD paths on every machine)
import torch

from tensor_common import tensor_line, uniform_array
from text_common import SplitMix64, script_main

DATA = Path(__file__).resolve().parent / "data" / "attention" / "ch41_streaming.txt"


def causal(q, k, v):
    tokens, width = q.shape[-2], q.shape[-1]
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(width)
    mask = torch.triu(torch.ones(tokens, tokens, dtype=torch.bool), diagonal=1)
    masked = scores.masked_fill(mask, float("-inf"))
    return torch.softmax(masked, dim=-1) @ v, torch.logsumexp(masked, dim=-1)


def render():
    lines = ["# Chapter 41 reference (tests/reference/make_attention_reference.py): torch %s "
             "float64, ordinary causal attention with the whole table" % torch.__version__.split("a")[0]]
    q = torch.ones(1, 1, 5, 1, dtype=torch.float64)
    k = torch.tensor([1.0, 3, 2, 5, 0], dtype=torch.float64).reshape(1, 1, 5, 1)
    v = torch.tensor([1.0, 0, 0, 1, 1, 1, 2, 0, 0, 2], dtype=torch.float64).reshape(1, 1, 5, 2)
    out, lse = causal(q, k, v)
    for name, t in (("q", q), ("k", k), ("v", v), ("output", out), ("log_sum_exp", lse)):
        lines.append(tensor_line("predict." + name, t.numpy()))
    rng = SplitMix64(41)
    shape = (2, 3, 9, 4)
    arrays = [uniform_array(rng, shape) * s for s in (2.0, 2.0, 1.0, 1.0)]
    q, k, v = (torch.tensor(a, requires_grad=True) for a in arrays[:3])
    u = torch.tensor(arrays[3])
    out, lse = causal(q, k, v)
    (out * u).sum().backward()
    for name, t in (("q", q), ("k", k), ("v", v), ("u", u), ("output", out), ("log_sum_exp", lse),
                    ("grad_q", q.grad), ("grad_k", k.grad), ("grad_v", v.grad)):
        lines.append(tensor_line("random." + name, t.detach().numpy()))
    return "\n".join(lines) + "\n"


def main(argv):
    return script_main(argv, DATA, render, __file__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
