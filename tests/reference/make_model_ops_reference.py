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
from reference_common import drawn, drawn_ids, shape_text, tensor_text  # noqa: E402
from text_common import SplitMix64, script_main  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "autograd" / "ch16_model_ops.txt"


def line(name, op, x, value, gradient, ids=None, weights=None):
    fields = ["CASE", "name=" + name, "op=" + op, "shape=" + shape_text(x.shape),
              "input=" + tensor_text(x)]
    if ids is not None:
        fields += ["ids_shape=" + shape_text(ids.shape),
                   "ids=" + ",".join(str(int(i)) for i in ids.reshape(-1).tolist())]
    if weights is not None:
        fields += ["weights_shape=" + shape_text(weights.shape), "weights=" + tensor_text(weights)]
    fields += ["value=" + tensor_text(value), "gradient=" + tensor_text(gradient)]
    return "|".join(fields)


def weighted(name, op, x, f, rng, ids=None):
    x = x.clone().requires_grad_(True)
    out = f(x)
    weights = drawn(rng, tuple(out.shape), -2.0, 2.0)
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
        table = drawn(rng, (v, d), -2.0, 2.0)
        ids = drawn_ids(rng, (b, t), v)
        ids[0, 1] = ids[0, 0]  # one row used twice: its gradient is the sum of both
        lines.append(weighted("embedding_%d" % seed, "embedding", table,
                              lambda w: F.embedding(ids, w), rng, ids=ids))
        x = drawn(rng, (b, t, d), -6.0, 6.0)
        lines.append(weighted("silu_%d" % seed, "silu", x, F.silu, rng))
        z = drawn(rng, (b, t, v), -4.0, 4.0)
        lines.append(weighted("log_softmax_%d" % seed, "log_softmax", z,
                              lambda a: F.log_softmax(a, dim=-1), rng))
        targets = drawn_ids(rng, (b, t), v)
        logits = drawn(rng, (b, t, v), -4.0, 4.0)
        lines.append(scalar("cross_entropy_%d" % seed, "cross_entropy", logits,
                            lambda a: F.cross_entropy(a.reshape(-1, v), targets.reshape(-1)),
                            ids=targets))
        m = drawn(rng, (b, t), -2.0, 2.0)
        lines.append(scalar("mean_%d" % seed, "mean", m, lambda a: a.mean()))
    # Logits of ±1e4: exp overflows at 710, so only a shifted log-sum-exp gets these right.
    extreme = torch.tensor([[[1e4, -1e4, 0.0], [-1e4, 1e4, 1e4]]], dtype=torch.float64)
    targets = torch.tensor([[1, 2]], dtype=torch.int64)
    lines.append(scalar("cross_entropy_extreme", "cross_entropy", extreme,
                        lambda a: F.cross_entropy(a.reshape(-1, 3), targets.reshape(-1)),
                        ids=targets))
    return "\n".join(lines) + "\n"


def main(argv):
    return script_main(argv, DATA, render, __file__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
