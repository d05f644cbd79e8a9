"""What the reference scripts share (standard library only, no NumPy or torch).

SplitMix64 (Steele, Lea and Flood 2014, as in Vigna's splitmix64.c) draws the scripts'
random cases, so a case is a function of its seed alone; uniform() turns its draws into
doubles; write_or_check writes a data file atomically or, with --check, fails when the
committed one differs; corpus_main is the command line of a script that reads the corpus.
"""

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


def uniform(rng, count, low=-1.0, high=1.0):
    """`count` doubles in [low, high): the top 53 bits of each draw as u in [0, 1), then
    low + (high - low) * u (exact for the power-of-two widths the scripts use)."""
    return [low + (high - low) * ((rng.next() >> 11) * 2.0 ** -53) for _ in range(count)]


def write_or_check(data: Path, text: str, check: bool, rerun: str) -> int:
    """With check: 0 when `data` holds exactly `text`, else 1 naming `rerun`, the command
    that rewrites it. Without: writes `text` to a temporary file beside `data` and renames
    it over `data`, so a failed run never leaves half a file. Returns the exit code."""
    if check:
        if not data.exists() or data.read_text(encoding="utf-8") != text:
            print("%s is stale: run %s and commit the result" % (data, rerun), file=sys.stderr)
            return 1
        print("%s is current" % data.name)
        return 0
    fd, temporary = tempfile.mkstemp(dir=data.parent, prefix=data.name + ".")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(temporary, data)
    print("wrote %s" % data)
    return 0


def corpus_main(argv, usage: str, reference, data: Path, script: str) -> int:
    """`script CORPUS [--check]`: writes (or checks) `data` with reference(CORPUS)."""
    if not argv or argv[0].startswith("-"):
        raise SystemExit(usage)
    return write_or_check(data, reference(Path(argv[0])), "--check" in argv[1:],
                          "/usr/bin/python3 %s %s" % (script, argv[0]))
