#!/usr/bin/python3
"""Write (or check) Chapter 16's model-op reference: tests/reference/data/autograd/ch16_model_ops.txt.

    /usr/bin/python3 tests/reference/make_model_ops_reference.py          # rewrite
    /usr/bin/python3 tests/reference/make_model_ops_reference.py --check  # exit 1 if stale

PyTorch float64 (torch.nn.functional.embedding, silu, log_softmax, cross_entropy and
Tensor.mean, with torch.autograd for the gradients) on seeded random cases drawn with
SplitMix64, independent of the book's tape. The C++ test
tests/chapters/ch16_model_autodiff_ops_test.cpp reads the inputs from this file, runs the
book's ops on the Chapter-15 tape and compares values and gradients.

Format: `#` comment lines, then one case per line:

    CASE|name=embedding|op=embedding|shape=5,4|input=...|ids_shape=2,3|ids=...|
        weights_shape=2,3,4|weights=...|value=...|gradient=...

The scalar differentiated is sum(op(input) * weights) (weights random, so every output
element matters) for embedding, silu and log_softmax; cross_entropy and mean are already
scalar (no weights). `value` is the op's output, flattened row-major; `gradient` is the
gradient with respect to `input`. Numbers have 17 significant digits.
"""

import sys
from pathlib import Path

import numpy_dispatch  # noqa: F401  (before numpy: the same SIMD paths on every machine)
import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
from text_common import SplitMix64, uniform, write_or_check  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "autograd" / "ch16_model_ops.txt"


def number(value):
    return "%.17g" % float(value)


def joined(values):
    return ",".join(number(v) for v in values)


def shape_text(shape):
    return ",".join(str(d) for d in shape)


def flat(t):
    return t.detach().reshape(-1).tolist()


def line(name, op, x, value, gradient, ids=None, weights=None):
    fields = ["CASE", "name=" + name, "op=" + op, "shape=" + shape_text(x.shape),
              "input=" + joined(flat(x))]
    if ids is not None:
        fields += ["ids_shape=" + shape_text(ids.shape),
                   "ids=" + ",".join(str(int(i)) for i in ids.reshape(-1).tolist())]
    if weights is not None:
        fields += ["weights_shape=" + shape_text(weights.shape), "weights=" + joined(flat(weights))]
    fields += ["value=" + joined(flat(value)), "gradient=" + joined(flat(gradient))]
    return "|".join(fields)


def tensor(rng, shape, low=-2.0, high=2.0):
    count = 1
    for d in shape:
        count *= d
    return torch.tensor(uniform(rng, count, low, high), dtype=torch.float64).reshape(shape)


def ids_tensor(rng, shape, vocab):
    count = shape[0] * shape[1]
    return torch.tensor([rng.below(vocab) for _ in range(count)], dtype=torch.int64).reshape(shape)


def weighted(name, op, x, f, rng, ids=None):
    x = x.clone().requires_grad_(True)
    out = f(x)
    weights = tensor(rng, tuple(out.shape))
    (out * weights).sum().backward()
    return line(name, op, x, out, x.grad, ids=ids, weights=weights)


def scalar(name, op, x, f, ids=None):
    x = x.clone().requires_grad_(True)
    out = f(x)
    out.backward()
    return line(name, op, x, out, x.grad, ids=ids)


def render():
    lines = ["# Chapter 16 reference (tests/reference/make_model_ops_reference.py): torch %s, "
             "float64, torch.nn.functional and torch.autograd" % torch.__version__.split("+")[0]]
    for seed, (b, t, v, d) in [(16, (2, 3, 5, 4)), (1601, (3, 2, 7, 3))]:
        rng = SplitMix64(seed)
        table = tensor(rng, (v, d))
        ids = ids_tensor(rng, (b, t), v)
        ids[0, 1] = ids[0, 0]  # one row used twice: its gradient is the sum of both
        lines.append(weighted("embedding_%d" % seed, "embedding", table,
                              lambda w: F.embedding(ids, w), rng, ids=ids))
        x = tensor(rng, (b, t, d), -6.0, 6.0)
        lines.append(weighted("silu_%d" % seed, "silu", x, F.silu, rng))
        z = tensor(rng, (b, t, v), -4.0, 4.0)
        lines.append(weighted("log_softmax_%d" % seed, "log_softmax", z,
                              lambda a: F.log_softmax(a, dim=-1), rng))
        targets = ids_tensor(rng, (b, t), v)
        logits = tensor(rng, (b, t, v), -4.0, 4.0)
        lines.append(scalar("cross_entropy_%d" % seed, "cross_entropy", logits,
                            lambda a: F.cross_entropy(a.reshape(-1, v), targets.reshape(-1)),
                            ids=targets))
        m = tensor(rng, (b, t))
        lines.append(scalar("mean_%d" % seed, "mean", m, lambda a: a.mean()))
    # Logits of ±1e4: exp overflows at 710, so only a shifted log-sum-exp gets these right.
    extreme = torch.tensor([[[1e4, -1e4, 0.0], [-1e4, 1e4, 1e4]]], dtype=torch.float64)
    targets = torch.tensor([[1, 2]], dtype=torch.int64)
    lines.append(scalar("cross_entropy_extreme", "cross_entropy", extreme,
                        lambda a: F.cross_entropy(a.reshape(-1, 3), targets.reshape(-1)),
                        ids=targets))
    return "\n".join(lines) + "\n"


def main(argv):
    return write_or_check(DATA, render(), "--check" in argv,
                          "/usr/bin/python3 tests/reference/make_model_ops_reference.py")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
