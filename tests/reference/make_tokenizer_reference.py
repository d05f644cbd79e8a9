#!/usr/bin/python3
"""Write (or check) Chapter 4's encoding reference: tests/reference/data/text/ch04_tokenizer.txt.

    /usr/bin/python3 tests/reference/make_tokenizer_reference.py          # rewrite the file
    /usr/bin/python3 tests/reference/make_tokenizer_reference.py --check  # exit 1 if stale

An encoder written from the rule as chapter 4 states it, independently of the C++:

    Cut the text before every space and every newline (each chunk keeps its separator at
    its start). Each chunk starts as its bytes. While some adjacent pair of the chunk is a
    merge of the table, take the pair with the lowest rank r and replace every occurrence
    of it, scanning left to right without overlap, by token 256 + r.

It works on byte strings, not ids: a token is the bytes it stands for, and the merge of
rank r is keyed by the byte strings of its two parts, so nothing here shares the C++'s
linked list, heap or id arithmetic. Ids are only computed at the end (bytes -> id).
The inputs are hand fixtures plus random strings from a SplitMix64 generator written out
below, so the same seed gives the same cases on every Python version. The C++ test
tests/text/tokenizer_test.cpp reads the committed file and needs no Python.

Format: `#` comments, then the table and the cases:

    MERGE|rank=0|left=108|right=111
    CASE|bytes=6C6F77|ids=257
"""

import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from text_common import SplitMix64, script_main  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "text" / "ch04_tokenizer.txt"
SEED = 20261204
RANDOM_CASES = 200

# The chapter's hand table (low, lower, lowest) and four more merges: a run of one byte
# (a a, then aa aa) and the two bytes of é joined, then h + é.
MERGES = [(108, 111), (256, 119), (101, 114), (101, 115), (259, 116), (32, 257), (119, 101),
          (261, 258), (97, 97), (264, 264), (0xC3, 0xA9), (104, 266)]

FIXTURES = [b"", b"\x00", b"low", b" lower", b" lowest", b" newer", b"low lower lowest newer",
            b"abc", b"aaa", b"aaaa", b"aaaaaaa", "h\u00e9llo".encode(), "\u00e9\u00e9h\u00e9".encode(),
            b"lo\nw", b"\n\n  low", b"we", b"lowe", b"lower lowerlower"]

ALPHABET = [b"l", b"o", b"w", b"e", b"r", b"s", b"t", b"n", b"a", b"h", b" ", b"\n",
            "\u00e9".encode(), b"\xc3", b"\x00"]


def token_strings():
    """The bytes of every ordinary token, and the rank of each merge keyed by its parts."""
    strings = [bytes([b]) for b in range(256)]
    rank = {}
    for r, (left, right) in enumerate(MERGES):
        rank[(strings[left], strings[right])] = r
        strings.append(strings[left] + strings[right])
    return strings, rank


def chunks(text):
    """Cut before every space and newline: b'a b\\nc' -> [b'a', b' b', b'\\nc']."""
    out, start = [], 0
    for i in range(1, len(text)):
        if text[i] in b" \n":
            out.append(text[start:i])
            start = i
    if text:
        out.append(text[start:])
    return out


def encode_chunk(chunk, rank):
    parts = [chunk[i:i + 1] for i in range(len(chunk))]
    while True:
        present = [rank[pair] for pair in zip(parts, parts[1:]) if pair in rank]
        if not present:
            return parts
        best = min(present)
        target = next(pair for pair, r in rank.items() if r == best)
        merged, i = [], 0
        while i < len(parts):
            if i + 1 < len(parts) and (parts[i], parts[i + 1]) == target:
                merged.append(parts[i] + parts[i + 1])
                i += 2
            else:
                merged.append(parts[i])
                i += 1
        parts = merged


def encode(text, strings, rank):
    id_of = {s: i for i, s in enumerate(strings)}  # token strings are distinct here
    return [id_of[part] for chunk in chunks(text) for part in encode_chunk(chunk, rank)]


def render():
    strings, rank = token_strings()
    assert len(set(strings)) == len(strings), "the table must not make a string twice"
    rng = SplitMix64(SEED)
    inputs = list(FIXTURES)
    for _ in range(RANDOM_CASES):
        inputs.append(b"".join(ALPHABET[rng.below(len(ALPHABET))] for _ in range(rng.below(24))))
    lines = ["# script: tests/reference/make_tokenizer_reference.py",
             "# rule: chunks cut before space/newline; lowest-rank pair first, all occurrences",
             "# seed: %d (SplitMix64); %d fixtures, %d random" % (SEED, len(FIXTURES), RANDOM_CASES)]
    for r, (left, right) in enumerate(MERGES):
        lines.append("MERGE|rank=%d|left=%d|right=%d" % (r, left, right))
    for text in inputs:
        ids = encode(text, strings, rank)
        lines.append("CASE|bytes=%s|ids=%s" % (text.hex().upper(), ",".join(map(str, ids))))
    return "\n".join(lines) + "\n"


def main(argv):
    return script_main(argv, DATA, render, __file__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
