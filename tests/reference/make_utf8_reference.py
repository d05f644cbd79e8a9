#!/usr/bin/python3
"""Write (or check) Chapter 1's UTF-8 reference data: tests/reference/data/text/ch01_utf8.txt.

    /usr/bin/python3 tests/reference/make_utf8_reference.py          # rewrite the file
    /usr/bin/python3 tests/reference/make_utf8_reference.py --check  # exit 1 if it is stale

The reference is Python's own UTF-8 codec (`str.encode('utf-8')`, `bytes.decode('utf-8')`),
written independently of the book's C++ decoder. The inputs are drawn from a SplitMix64
generator written out below (not Python's `random`), so the same seed gives the same cases
on every Python version. The C++ test tests/text/utf8_test.cpp reads the committed file and
needs no Python.

Format: `#` comment lines, then one case per line:

    ENCODE|code_points=48,E9|bytes=48C3A9
    DECODE|bytes=48C3A9|result=ok|code_points=48,E9
    DECODE|bytes=48E282|result=error|start=1|end=3|reason=unexpected end of data

Code points and bytes are upper-case hex (code points comma-separated, bytes two digits
each, no separator); `start` and `end` are Python's UnicodeDecodeError fields: the first
malformed sequence begins at byte `start`, and bytes start..end-1 are its maximal prefix.
"""

import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from text_common import SplitMix64, script_main  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "text" / "ch01_utf8.txt"
SEED = 20261201
ENCODE_CASES = 400
DECODE_CASES = 1200


# Code point ranges by encoded length, with their boundaries drawn more often.
RANGES = [(0x0000, 0x007F), (0x0080, 0x07FF), (0x0800, 0xD7FF), (0xE000, 0xFFFF),
          (0x10000, 0x10FFFF)]
BOUNDARIES = [0x00, 0x7F, 0x80, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFFFD, 0xFFFF, 0x10000,
              0x10FFFF]
# Bytes that matter to a decoder: every class boundary.
INTERESTING_BYTES = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2,
                     0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5,
                     0xF7, 0xF8, 0xFB, 0xFC, 0xFE, 0xFF]


def scalar(rng):
    if rng.below(5) == 0:
        return BOUNDARIES[rng.below(len(BOUNDARIES))]
    low, high = RANGES[rng.below(len(RANGES))]
    return low + rng.below(high - low + 1)


def code_points(rng):
    return [scalar(rng) for _ in range(rng.below(9))]


def mutate(rng, data):
    """A valid encoding with one random edit: replace, insert, delete or cut."""
    data = bytearray(data)
    kind = rng.below(4)
    position = rng.below(len(data) + 1)
    if kind == 0 and data:
        data[min(position, len(data) - 1)] = INTERESTING_BYTES[rng.below(len(INTERESTING_BYTES))]
    elif kind == 1:
        data.insert(position, INTERESTING_BYTES[rng.below(len(INTERESTING_BYTES))])
    elif kind == 2 and data:
        del data[min(position, len(data) - 1)]
    else:
        del data[position:]
    return bytes(data)


def random_bytes(rng):
    return bytes(INTERESTING_BYTES[rng.below(len(INTERESTING_BYTES))] if rng.below(2)
                 else rng.below(256) for _ in range(1 + rng.below(6)))


def hex_points(points):
    return ",".join("%X" % p for p in points)


def decode_line(data):
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return "DECODE|bytes=%s|result=error|start=%d|end=%d|reason=%s" % (
            data.hex().upper(), error.start, error.end, error.reason)
    return "DECODE|bytes=%s|result=ok|code_points=%s" % (
        data.hex().upper(), hex_points(ord(c) for c in text))


def render():
    rng = SplitMix64(SEED)
    lines = ["# script: tests/reference/make_utf8_reference.py",
             "# reference: Python's UTF-8 codec (str.encode, bytes.decode, errors='strict')",
             "# seed: %d (SplitMix64)" % SEED,
             "# cases: %d ENCODE, %d DECODE" % (ENCODE_CASES, DECODE_CASES)]
    encoded = []
    for _ in range(ENCODE_CASES):
        points = code_points(rng)
        data = "".join(chr(p) for p in points).encode("utf-8")
        encoded.append(data)
        lines.append("ENCODE|code_points=%s|bytes=%s" % (hex_points(points), data.hex().upper()))
    for index in range(DECODE_CASES):
        choice = index % 3
        if choice == 0:
            data = encoded[rng.below(len(encoded))]
        elif choice == 1:
            data = mutate(rng, encoded[rng.below(len(encoded))])
        else:
            data = random_bytes(rng)
        lines.append(decode_line(data))
    return "\n".join(lines) + "\n"


def main(argv):
    return script_main(argv, DATA, render, __file__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
