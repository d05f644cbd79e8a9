"""What the reference scripts share (standard library only, no NumPy or torch).

SplitMix64 (Steele, Lea and Flood 2014, as in Vigna's splitmix64.c) draws the scripts'
random cases, so a case is a function of its seed alone; unit(), uniform() and
standard_normal() turn its draws into doubles; number() and joined() print them as every
data file does (17 significant digits, enough to round-trip a double); write_or_check writes
a data file atomically or, with --check, fails when the committed one differs; script_main
and corpus_main are the command lines of a script without and with the corpus argument.
"""

import math
import os
import sys
import tempfile
from pathlib import Path

MASK = (1 << 64) - 1


class SplitMix64:
    """A 64-bit generator with a fixed output sequence for each seed."""

    def __init__(self, seed):
        self.state = seed & MASK

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def below(self, n):
        return self.next() % n


def unit(rng):
    """One double in [0, 1): the top 53 bits of a draw, times 2^-53."""
    return (rng.next() >> 11) * 2.0 ** -53


def uniform(rng, count, low=-1.0, high=1.0):
    """`count` doubles in [low, high): unit(rng) as u, then low + (high - low) * u (exact for
    the power-of-two widths the scripts use)."""
    return [low + (high - low) * unit(rng) for _ in range(count)]


def standard_normal(rng):
    """One N(0, 1) draw by Box–Muller, cosine branch: two unit() draws per normal (as
    llmfs::nn draws its normal initializers, chapter 17)."""
    u1, u2 = unit(rng), unit(rng)
    return math.sqrt(-2.0 * math.log(1.0 - u1)) * math.cos(2.0 * math.pi * u2)


def number(value):
    """A value with 17 significant digits: every double round-trips."""
    return "%.17g" % float(value)


def joined(values):
    """Values as number() prints them, comma-separated."""
    return ",".join(number(v) for v in values)


def write_or_check(data: Path, text: str, check: bool, rerun: str) -> int:
    """With check: 0 when `data` holds exactly `text`, else 1 naming `rerun`, the command
    that rewrites it. Without: writes `text` to a temporary file beside `data` (creating
    its folder) and renames it over `data`, so a failed run never leaves half a file; the
    file gets the permissions the umask gives a new file. Returns the exit code."""
    if check:
        if not data.exists() or data.read_text(encoding="utf-8") != text:
            print("%s is stale: run %s and commit the result" % (data, rerun), file=sys.stderr)
            return 1
        print("%s is current" % data.name)
        return 0
    data.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=data.parent, prefix=data.name + ".")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(temporary, 0o666 & ~umask)  # mkstemp made it private to its owner
    os.replace(temporary, data)
    print("wrote %s" % data)
    return 0


def script_main(argv, data: Path, render, script: str) -> int:
    """`script [--check]`: writes (or checks) `data` with render(); `script` is the
    caller's __file__, named in the rerun command."""
    return write_or_check(data, render(), "--check" in argv,
                          "/usr/bin/python3 tests/reference/%s" % Path(script).name)


def corpus_main(argv, usage: str, reference, data: Path, script: str) -> int:
    """`script CORPUS [--check]`: writes (or checks) `data` with reference(CORPUS)."""
    if not argv or argv[0].startswith("-"):
        raise SystemExit(usage)
    return write_or_check(data, reference(Path(argv[0])), "--check" in argv[1:],
                          "/usr/bin/python3 %s %s" % (script, argv[0]))
