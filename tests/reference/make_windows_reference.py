#!/usr/bin/python3
"""Write (or check) Chapter 5's window counts: tests/reference/data/text/ch05_windows.txt.

    /usr/bin/python3 tests/reference/make_windows_reference.py CORPUS          # rewrite the file
    /usr/bin/python3 tests/reference/make_windows_reference.py CORPUS --check  # exit 1 if stale

CORPUS is the extracted King James text (build/default/corpus/kjv.txt). Written
independently of the book's C++: documents are found with a regular expression, the
fixture's partition is the Chapter 2 rule recomputed with hashlib, the King James
partition is read from the committed manifest tools/corpus-partitions.tsv. Every document's
text (not its heading) becomes ids twice: byte by byte (a tokenizer of zero merges), and with
the course tokenizer tools/kjv-4096.merges applied here from the file's own statement
(chunks cut before each space and newline; within a chunk the adjacent pair of lowest rank,
leftmost first, is merged until no pair of the table is left). Each sequence is
BOS + ids + EOS, and a window start s of a sequence of n ids is counted when s is a
multiple of S and s + T < n (Python's range(0, n - T, S)), never from the closed formula. The stream columns treat a
split as one concatenated sequence and count the windows whose first and last id belong
to different documents (NumPy).

Format: `#` comments, then one line per corpus, split and configuration:

    fixture.train.T4_S3=documents:4 tokens:94 examples:28 too_short:0 eos_targets:2 stream_windows:30 crossing:4
    kjv_bpe.train.T64_S32=...

(`fixture` and `kjv_bytes` byte by byte, `kjv_bpe` with the course tokenizer.)
"""

import hashlib
import re
import os
import sys
from pathlib import Path

import numpy_dispatch  # noqa: F401  (before numpy: the same SIMD paths on every machine)
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from text_common import corpus_main  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data" / "text" / "ch05_windows.txt"
FIXTURE = ROOT / "snippets" / "ch02-corpus-partitions" / "fixture_corpus.txt"
MANIFEST = ROOT / "tools" / "corpus-partitions.tsv"
MERGES = ROOT / "tools" / "kjv-4096.merges"
SPLITS = ("train", "validation", "test")
FIXTURE_CONFIGS = ((1, 1), (4, 3), (8, 4))
CORPUS_CONFIGS = ((1, 1), (64, 32), (256, 257))


def byte_ids(text):
    return list(text)


def course_encoder(path):
    """The encoder of a merges file: `llmfs-bpe-merges ...` header, then `id left right`."""
    lines = path.read_text(encoding="ascii").splitlines()
    rank = {}
    for r, line in enumerate(lines[1:]):
        new, left, right = map(int, line.split())
        if new != 256 + r:
            raise SystemExit("%s line %d: id %d is not 256 + %d" % (path, r + 2, new, r))
        rank[(left, right)] = r
    cache = {}

    def encode_chunk(chunk):
        ids = list(chunk)
        while len(ids) > 1:
            ranked = [(rank[p], i) for i, p in enumerate(zip(ids, ids[1:])) if p in rank]
            if not ranked:
                break
            r, i = min(ranked)
            ids[i:i + 2] = [256 + r]
        return ids

    def encode(text):
        ids = []
        for chunk in re.findall(rb"[ \n]?[^ \n]*", text):
            if chunk and chunk not in cache:
                cache[chunk] = encode_chunk(chunk)
            ids += cache.get(chunk, [])
        return ids

    return encode, len(rank)


def documents(path):
    data = path.read_bytes()
    return [(m.group(1).decode("utf-8"), m.group(2))
            for m in re.finditer(rb"^# ([^\n]*)\n((?:(?!# )[^\n]*\n)*)", data, re.M)]


def rule_split(title):
    bucket = int.from_bytes(hashlib.sha256(title.encode("utf-8")).digest()[:8], "big") % 100
    return "train" if bucket < 90 else "validation" if bucket < 95 else "test"


def manifest_splits(path):
    splits = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#") or line.startswith("corpus_sha256\t") \
                or line.startswith("rule\t"):
            continue
        title, split = line.rsplit("\t", 1)
        splits[title] = split
    return splits


def count(lengths, t, s):
    examples = sum(len(range(0, n - t, s)) for n in lengths)
    eos = sum(1 for n in lengths if n - 1 - t >= 0 and (n - 1 - t) in range(0, n - t, s))
    owner = np.repeat(np.arange(len(lengths)), lengths)
    starts = np.arange(0, max(len(owner) - t, 0), s)
    crossing = int(np.sum(owner[starts] != owner[starts + t])) if len(starts) else 0
    return ("documents:%d tokens:%d examples:%d too_short:%d eos_targets:%d stream_windows:%d "
            "crossing:%d" % (len(lengths), sum(lengths), examples,
                             sum(1 for n in lengths if n < t + 1), eos, len(starts), crossing))


def lines_for(name, docs, split_of, configs, encode=byte_ids):
    lines = []
    for split in SPLITS:
        lengths = [len(encode(text)) + 2 for title, text in docs if split_of(title) == split]
        for t, s in configs:
            lines.append("%s.%s.T%d_S%d=%s" % (name, split, t, s, count(lengths, t, s)))
    return lines


def reference(corpus):
    manifest = manifest_splits(MANIFEST)
    lines = ["# script: tests/reference/make_windows_reference.py",
             "# reference: Python range() enumeration and NumPy over byte-level sequences"]
    lines += lines_for("fixture", documents(FIXTURE), rule_split, FIXTURE_CONFIGS)
    kjv = documents(corpus)
    lines += lines_for("kjv_bytes", kjv, manifest.__getitem__, CORPUS_CONFIGS)
    encode, merges = course_encoder(MERGES)
    lines.append("# kjv_bpe: %s, %d merges" % (MERGES.name, merges))
    lines += lines_for("kjv_bpe", kjv, manifest.__getitem__, CORPUS_CONFIGS, encode)
    return "\n".join(lines) + "\n"


def main(argv):
    return corpus_main(argv, __doc__, reference, DATA, __file__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
