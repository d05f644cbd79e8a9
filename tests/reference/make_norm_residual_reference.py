#!/usr/bin/python3
"""Write (or check) Chapters 24-25's reference: tests/reference/data/nn/ch24_ch25_nn.txt.

    /usr/bin/python3 tests/reference/make_norm_residual_reference.py          # rewrite
    /usr/bin/python3 tests/reference/make_norm_residual_reference.py --check  # exit 1 if stale

PyTorch float64 with torch.autograd, independent of the book's tape, on seeded random
cases drawn with SplitMix64:

  - rms_norm: LLaMA's formula x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * g
    (torch 1.13 has no F.rms_norm); loss sum(y * weights); value y and the gradients of
    x and g. One case has a zero row.
  - residual: a stack of `depth` blocks h <- h + silu(h @ W_i + b_i) (and the plain stack
    h <- silu(h @ W_i + b_i)); loss sum(top * weights); the top and the gradients of x
    and W_0.

Format: `#` comments, then one case per line, `CASE|name=...|kind=...|field=v,v,...`.
Numbers have 17 significant digits.
"""

import sys
from pathlib import Path

import numpy_dispatch  # noqa: F401  (before numpy: the same SIMD paths on every machine)
import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
from reference_common import drawn, tensor_text  # noqa: E402
from text_common import SplitMix64, script_main  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "nn" / "ch24_ch25_nn.txt"


def rms_case(name, seed, rows, width, eps, zero_row=False, scale=1.0):
    rng = SplitMix64(seed)
    x = drawn(rng, (rows, width), -2.0, 2.0) * scale
    if zero_row:
        x[1] = 0.0
    g = drawn(rng, (width,), -2.0, 2.0)
    w = drawn(rng, (rows, width), -2.0, 2.0)
    x.requires_grad_(True)
    g.requires_grad_(True)
    y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * g
    (y * w).sum().backward()
    return "|".join(["CASE", "name=" + name, "kind=rms_norm", "rows=%d" % rows,
                     "width=%d" % width, "epsilon=%.17g" % eps, "x=" + tensor_text(x),
                     "gain=" + tensor_text(g), "weights=" + tensor_text(w), "value=" + tensor_text(y),
                     "x_gradient=" + tensor_text(x.grad), "gain_gradient=" + tensor_text(g.grad)])


def residual_case(name, seed, rows, width, depth, identity):
    rng = SplitMix64(seed)
    x = drawn(rng, (rows, width), -1.0, 1.0).requires_grad_(True)
    ws = [drawn(rng, (width, width), -0.5, 0.5).requires_grad_(True) for _ in range(depth)]
    bs = [drawn(rng, (width,), -0.5, 0.5) for _ in range(depth)]
    weights = drawn(rng, (rows, width), -2.0, 2.0)
    h = x
    for w, b in zip(ws, bs):
        f = F.silu(h @ w + b)
        h = h + f if identity else f
    (h * weights).sum().backward()
    fields = ["CASE", "name=" + name, "kind=residual", "rows=%d" % rows, "width=%d" % width,
              "depth=%d" % depth, "identity=%d" % int(identity), "x=" + tensor_text(x)]
    fields += ["w%d=%s" % (i, tensor_text(w)) for i, w in enumerate(ws)]
    fields += ["b%d=%s" % (i, tensor_text(b)) for i, b in enumerate(bs)]
    fields += ["weights=" + tensor_text(weights), "value=" + tensor_text(h),
               "x_gradient=" + tensor_text(x.grad), "w0_gradient=" + tensor_text(ws[0].grad)]
    return "|".join(fields)


def render():
    lines = ["# Chapters 24-25 reference (tests/reference/make_norm_residual_reference.py): "
             "torch %s, float64, torch.autograd" % torch.__version__.split("+")[0]]
    lines.append(rms_case("rms_2501", 2501, 3, 8, 1e-6))
    lines.append(rms_case("rms_2502", 2502, 4, 5, 1e-5, zero_row=True))
    lines.append(rms_case("rms_2503_small", 2503, 2, 6, 1e-6, scale=1e-3))
    lines.append(rms_case("rms_2504", 2504, 5, 16, 1e-6))
    lines.append(residual_case("residual_2401", 2401, 3, 5, 4, True))
    lines.append(residual_case("plain_2401", 2401, 3, 5, 4, False))
    lines.append(residual_case("residual_2402", 2402, 2, 4, 6, True))
    return "\n".join(lines) + "\n"


def main(argv):
    return script_main(argv, DATA, render, __file__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
