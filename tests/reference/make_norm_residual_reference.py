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
from text_common import SplitMix64, uniform, write_or_check  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "nn" / "ch24_ch25_nn.txt"


def joined(t):
    return ",".join("%.17g" % float(v) for v in t.detach().reshape(-1).tolist())


def draw(rng, shape, low=-2.0, high=2.0):
    count = 1
    for d in shape:
        count *= d
    return torch.tensor(uniform(rng, count, low, high), dtype=torch.float64).reshape(shape)


def rms_case(name, seed, rows, width, eps, zero_row=False, scale=1.0):
    rng = SplitMix64(seed)
    x = draw(rng, (rows, width)) * scale
    if zero_row:
        x[1] = 0.0
    g = draw(rng, (width,))
    w = draw(rng, (rows, width))
    x.requires_grad_(True)
    g.requires_grad_(True)
    y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * g
    (y * w).sum().backward()
    return "|".join(["CASE", "name=" + name, "kind=rms_norm", "rows=%d" % rows,
                     "width=%d" % width, "epsilon=%.17g" % eps, "x=" + joined(x),
                     "gain=" + joined(g), "weights=" + joined(w), "value=" + joined(y),
                     "x_gradient=" + joined(x.grad), "gain_gradient=" + joined(g.grad)])


def residual_case(name, seed, rows, width, depth, identity):
    rng = SplitMix64(seed)
    x = draw(rng, (rows, width), -1.0, 1.0).requires_grad_(True)
    ws = [draw(rng, (width, width), -0.5, 0.5).requires_grad_(True) for _ in range(depth)]
    bs = [draw(rng, (width,), -0.5, 0.5) for _ in range(depth)]
    weights = draw(rng, (rows, width))
    h = x
    for w, b in zip(ws, bs):
        f = F.silu(h @ w + b)
        h = h + f if identity else f
    (h * weights).sum().backward()
    fields = ["CASE", "name=" + name, "kind=residual", "rows=%d" % rows, "width=%d" % width,
              "depth=%d" % depth, "identity=%d" % int(identity), "x=" + joined(x)]
    fields += ["w%d=%s" % (i, joined(w)) for i, w in enumerate(ws)]
    fields += ["b%d=%s" % (i, joined(b)) for i, b in enumerate(bs)]
    fields += ["weights=" + joined(weights), "value=" + joined(h),
               "x_gradient=" + joined(x.grad), "w0_gradient=" + joined(ws[0].grad)]
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
    return write_or_check(DATA, render(), "--check" in argv,
                          "/usr/bin/python3 tests/reference/make_norm_residual_reference.py")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
