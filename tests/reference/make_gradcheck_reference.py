#!/usr/bin/python3
"""Write (or check) Chapter 13's gradient-checking reference: tests/reference/data/autograd/ch13_gradcheck.txt.

    /usr/bin/python3 tests/reference/make_gradcheck_reference.py          # rewrite the file
    /usr/bin/python3 tests/reference/make_gradcheck_reference.py --check  # exit 1 if stale

Written from the formulas of chapters/13-gradient-checking.md, not from the C++: NumPy
float64 scalars, the step h = delta * max(1, |x|), the probes x - h and x + h rounded to
doubles, and the central difference (f(x+h) - f(x-h)) / ((x+h) - (x-h)), divided by the
step actually taken. The C++ chapter test tests/chapters/ch13_gradient_checking_test.cpp
reads the committed file and needs no Python.

Format: `#` comment lines, then one fact per line, `KIND|key=value|...`, numbers with 17
significant digits (enough to round-trip a double):

    TABLE|step=1e-05|numeric=...|error=...   exp at 1, one line per step of the table
    FIXTURE|input=0|numeric=...              f(a, b) = a^2 b at (3, 2), delta = 1e-6
    SHIFTED|a=3.1|numeric=...                df/da of the same f at (3.1, 2), delta = 1e-6
    LARGE|fixed=...|scaled=...               f(x) = x at 1e8: fixed h = 1e-6 over 2h; scaled
    EXP30|numeric=...|exact=...              exp at 30, delta = 1e-6
    KINK|x=...|numeric=...                   ReLU at 0 and at 1e-7, delta = 1e-6
    FORWARD|step=...|error=...               (exp(1+h) - e) / h, its error
    CUBIC|numeric=...                        x^3 at 1, delta = 0.1
"""

import sys
from pathlib import Path

import numpy_dispatch  # noqa: F401  (before numpy: the same SIMD paths on every machine)
import numpy as np

from text_common import number, script_main

DATA = Path(__file__).resolve().parent / "data" / "autograd" / "ch13_gradcheck.txt"
DEFAULT_STEP = np.float64(1e-6)
STEPS = [np.float64(10.0) ** -k for k in range(1, 14)]


def probes(x, delta):
    """x - h and x + h as doubles, h = delta * max(1, |x|)."""
    h = delta * max(np.float64(1.0), abs(x))
    return x - h, x + h


def central(f, x, delta):
    below, above = probes(x, delta)
    return (f(above) - f(below)) / (above - below)


def render():
    lines = ["# Chapter 13 reference (tests/reference/make_gradcheck_reference.py): NumPy %s float64"
             % np.__version__]
    one = np.float64(1.0)
    e = np.exp(one)
    for delta in STEPS:
        numeric = central(np.exp, one, delta)
        lines.append("TABLE|step=%.0e|numeric=%s|error=%s" % (delta, number(numeric),
                                                            number(abs(numeric - e))))
    a, b = np.float64(3.0), np.float64(2.0)
    lines.append("FIXTURE|input=0|numeric=%s" % number(central(lambda v: v * v * b, a, DEFAULT_STEP)))
    lines.append("FIXTURE|input=1|numeric=%s" % number(central(lambda v: a * a * v, b, DEFAULT_STEP)))
    shifted = np.float64(3.1)
    lines.append("SHIFTED|a=%s|numeric=%s" % (number(shifted),
                                              number(central(lambda v: v * v * b, shifted, DEFAULT_STEP))))
    large = np.float64(1e8)
    fixed = ((large + DEFAULT_STEP) - (large - DEFAULT_STEP)) / (2 * DEFAULT_STEP)
    lines.append("LARGE|fixed=%s|scaled=%s" % (number(fixed),
                                               number(central(lambda v: v, large, DEFAULT_STEP))))
    thirty = np.float64(30.0)
    lines.append("EXP30|numeric=%s|exact=%s" % (number(central(np.exp, thirty, DEFAULT_STEP)),
                                                number(np.exp(thirty))))
    relu = lambda v: max(np.float64(0.0), v)  # noqa: E731
    for x in (np.float64(0.0), np.float64(1e-7)):
        lines.append("KINK|x=%s|numeric=%s" % (number(x), number(central(relu, x, DEFAULT_STEP))))
    for h in (np.float64(1e-5), np.float64(1e-8)):
        forward = (np.exp(one + h) - e) / ((one + h) - one)
        lines.append("FORWARD|step=%.0e|error=%s" % (h, number(abs(forward - e))))
    lines.append("CUBIC|numeric=%s" % number(central(lambda v: v * v * v, one, np.float64(0.1))))
    return "\n".join(lines) + "\n"


def main(argv):
    return script_main(argv, DATA, render, __file__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
