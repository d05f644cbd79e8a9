#!/usr/bin/python3
"""Write (or check) Chapter 26's Q/K/V reference: tests/reference/data/nn/ch26_qkv.txt.

    /usr/bin/python3 tests/reference/make_qkv_reference.py          # rewrite
    /usr/bin/python3 tests/reference/make_qkv_reference.py --check  # exit 1 if stale

PyTorch float64, two ways. Separate: F.linear(X, W.T) for each of the book's W_Q, W_K,
W_V ([in, out]; PyTorch's layout is [out, in]). Fused: a torch.nn.MultiheadAttention
(one head, no bias) whose in_proj_weight [3·d, d] is set to cat(W_Q.T, W_K.T, W_V.T)
(rows 0..d-1 are the query's), applied with F.linear(X, in_proj_weight) and cut into
three with chunk(3, -1), as PyTorch's own attention does. torch.autograd gives the
gradients of the scalar sum(Q*G_Q + K*G_K + V*G_V) with respect to X, each W (ours,
[in, out]) and in_proj_weight (PyTorch's [3·d, d]). The cases: the chapter's hand
fixture and two seeded random cases drawn with SplitMix64. The C++ test
tests/chapters/ch26_q_k_v_projections_test.cpp runs nn::QkvProjections in both layouts
on the same inputs.

Format: `#` comment lines, then one case per line:

    CASE|name=...|x_shape=...|d=...|x=...|w_q=...|w_k=...|w_v=...|g_q=...|g_k=...|g_v=...|
        q=...|k=...|v=...|dx=...|dw_q=...|dw_k=...|dw_v=...|in_proj_weight=...|
        d_in_proj_weight=...|max_separate_vs_fused=...

Numbers have 17 significant digits, row-major.
"""

import sys
from pathlib import Path

import numpy_dispatch  # noqa: F401  (before numpy: the same SIMD paths on every machine)
import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reference_common import drawn, tensor_of, tensor_text  # noqa: E402
from text_common import SplitMix64, script_main  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "nn" / "ch26_qkv.txt"


def case(name, x, ws, gs):
    """One CASE line: the separate and the fused projections and their gradients."""
    d = x.shape[-1]
    xs = x.clone().requires_grad_(True)
    wsep = [w.clone().requires_grad_(True) for w in ws]
    separate = [F.linear(xs, w.t()) for w in wsep]
    sum((p * g).sum() for p, g in zip(separate, gs)).backward()

    attention = torch.nn.MultiheadAttention(d, 1, bias=False).double()
    with torch.no_grad():
        attention.in_proj_weight.copy_(torch.cat([w.t() for w in ws], dim=0))
    xf = x.clone().requires_grad_(True)
    fused = F.linear(xf, attention.in_proj_weight).chunk(3, dim=-1)
    sum((p * g).sum() for p, g in zip(fused, gs)).backward()
    gap = max(float((a - b).abs().max()) for a, b in zip(separate, fused))
    return "|".join(
        ["CASE", "name=" + name, "x_shape=" + ",".join(str(s) for s in x.shape),
         "d=%d" % d, "x=" + tensor_text(x)]
        + ["%s=%s" % (k, tensor_text(w)) for k, w in zip(("w_q", "w_k", "w_v"), ws)]
        + ["%s=%s" % (k, tensor_text(g)) for k, g in zip(("g_q", "g_k", "g_v"), gs)]
        + ["%s=%s" % (k, tensor_text(p)) for k, p in zip(("q", "k", "v"), separate)]
        + ["dx=" + tensor_text(xs.grad)]
        + ["%s=%s" % (k, tensor_text(w.grad)) for k, w in zip(("dw_q", "dw_k", "dw_v"), wsep)]
        + ["in_proj_weight=" + tensor_text(attention.in_proj_weight),
           "d_in_proj_weight=" + tensor_text(attention.in_proj_weight.grad),
           "dx_fused=" + tensor_text(xf.grad),
           "max_separate_vs_fused=%.17g" % gap])


def render():
    lines = ["# Chapter 26 reference (tests/reference/make_qkv_reference.py): torch %s, "
             "float64, F.linear per projection and nn.MultiheadAttention.in_proj_weight, "
             "torch.autograd" % torch.__version__.split("+")[0]]
    square = (2, 2)
    lines.append(case("fixture", tensor_of([1, 2, 3, -1], square),
                      [tensor_of([1, 0, 2, -1], square), tensor_of([0, 3, 1, 1], square),
                       tensor_of([2, 1, 0, -2], square)],
                      [tensor_of([1, 0, 0, 1], square), tensor_of([0, 1, 1, 0], square),
                       tensor_of([1, 1, 0, -1], square)]))
    for seed, (batch, tokens, d) in [(26, (2, 3, 4)), (2601, (1, 5, 6))]:
        rng = SplitMix64(seed)
        x = drawn(rng, (batch, tokens, d))
        ws = [drawn(rng, (d, d)) for _ in range(3)]
        gs = [drawn(rng, (batch, tokens, d)) for _ in range(3)]
        lines.append(case("random_%d" % seed, x, ws, gs))
    return "\n".join(lines) + "\n"


def main(argv):
    return script_main(argv, DATA, render, __file__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
