#!/usr/bin/python3
"""Write (or check) Chapter 17's initialization reference: tests/reference/data/nn/ch17_init.txt.

    /usr/bin/python3 tests/reference/make_init_reference.py          # rewrite
    /usr/bin/python3 tests/reference/make_init_reference.py --check  # exit 1 if stale

Independent of the book's C++: SplitMix64 written again in Python (text_common.py) and
checked against the five outputs Vigna's splitmix64.c prints for seed 1234567; LeCun and
Xavier draws, uniform and Box–Muller normal, computed with Python's math module from the
chapter's formulas; the variance of activations through a stack of random layers computed
with PyTorch float64 (torch.matmul, torch.var). tests/chapters/ch17_reference_test.cpp
draws the same tensors with src/llmfs/nn/init.hpp and compares.

Format: `#` comment lines, then records `KIND|key=value|...`:

    SPLITMIX|seed=S|outputs=o1,o2,...
    DRAW|name=N|seed=S|rule=lecun|xavier|distribution=uniform|normal|fan_in=I|fan_out=O|
        shape=a,b|std=σ|values=...
    STACK|input_seed=S|weight_seed=S|rows=R|width=W|depth=D|gain=G|variances=v0,...,vD

Numbers have 17 significant digits.
"""

import math
import sys
from pathlib import Path

import numpy_dispatch  # noqa: F401  (before numpy: the same SIMD paths on every machine)
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from text_common import SplitMix64, joined, script_main, standard_normal, unit  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "nn" / "ch17_init.txt"

# Vigna, splitmix64.c (prng.di.unimi.it): the first outputs for seed 1234567.
PUBLISHED = [6457827717110365317, 3203168211198807973, 9817491932198370423,
             4593380528125082431, 16408922859458223821]


def std_of(rule, fan_in, fan_out):
    if rule == "lecun":
        return math.sqrt(1.0 / fan_in)
    return math.sqrt(2.0 / (float(fan_in) + float(fan_out)))


def draw(rng, count, distribution, std):
    if distribution == "uniform":
        bound = math.sqrt(3.0) * std
        return [bound * (2.0 * unit(rng) - 1.0) for _ in range(count)]
    return [std * standard_normal(rng) for _ in range(count)]


def stack_variances(rows, width, depth, gain):
    x = torch.tensor(draw(SplitMix64(17), rows * width, "normal", 1.0),
                     dtype=torch.float64).reshape(rows, width)
    rng = SplitMix64(1717)
    std = gain * std_of("lecun", width, width)
    variances = [torch.var(x, unbiased=False).item()]
    for _ in range(depth):
        w = torch.tensor(draw(rng, width * width, "normal", std),
                         dtype=torch.float64).reshape(width, width)
        x = torch.matmul(x, w)
        variances.append(torch.var(x, unbiased=False).item())
    return variances


def render():
    rng = SplitMix64(1234567)
    outputs = [rng.next() for _ in PUBLISHED]
    if outputs != PUBLISHED:
        raise SystemExit("SplitMix64 in Python disagrees with splitmix64.c's published outputs")
    lines = ["# Chapter 17 reference (tests/reference/make_init_reference.py): Python math "
             "and torch %s float64" % torch.__version__.split("+")[0],
             "SPLITMIX|seed=1234567|outputs=" + ",".join(str(o) for o in outputs)]
    cases = [("lecun_uniform", 1234567, "lecun", "uniform", 3, 2, (3, 2)),
             ("lecun_normal", 1234567, "lecun", "normal", 3, 2, (3, 2)),
             ("xavier_uniform", 1701, "xavier", "uniform", 4, 5, (4, 5)),
             ("xavier_normal", 1702, "xavier", "normal", 5, 3, (5, 3)),
             ("lecun_normal_wide", 1703, "lecun", "normal", 64, 32, (64, 32))]
    for name, seed, rule, distribution, fan_in, fan_out, shape in cases:
        std = std_of(rule, fan_in, fan_out)
        values = draw(SplitMix64(seed), shape[0] * shape[1], distribution, std)
        lines.append("DRAW|name=%s|seed=%d|rule=%s|distribution=%s|fan_in=%d|fan_out=%d|"
                     "shape=%d,%d|std=%.17g|values=%s" % (name, seed, rule, distribution, fan_in,
                                                          fan_out, shape[0], shape[1], std,
                                                          joined(values)))
    for gain in (1.0, 2.0, 0.5):
        lines.append("STACK|input_seed=17|weight_seed=1717|rows=32|width=16|depth=4|gain=%.17g|"
                     "variances=%s" % (gain, joined(stack_variances(32, 16, 4, gain))))
    return "\n".join(lines) + "\n"


def main(argv):
    return script_main(argv, DATA, render, __file__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
