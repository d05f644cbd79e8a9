#!/usr/bin/python3
"""Write (or check) Chapter 34's reference: tests/reference/data/text/ch34_final.txt.

    /usr/bin/python3 tests/reference/make_final_eval_reference.py CORPUS          # rewrite
    /usr/bin/python3 tests/reference/make_final_eval_reference.py CORPUS --check  # exit 1 if stale

CORPUS is the extracted King James text (build/default/corpus/kjv.txt). Written from the
chapters' rules in Python and NumPy float64, not from the C++: the partitions of
tools/corpus-partitions.tsv (Chapter 2), documents as bytes framed by BOS = 256 and
EOS = 257 (V = 258), windows of T = 32 every 32 (Chapter 5), the first 2 training
documents, the first 64 windows of the first validation document and the first 128
windows of the first 2 test documents (Chapters 33-34's demo settings). The add-alpha
bigram (Chapter 6) is fitted on the training documents; its alpha is the one of
{1, 0.1, 0.01} with the lowest validation loss (Chapter 33's rule); then the test windows
are scored (Chapter 7's metrics, every predicted position once, EOS spelling no byte) for
the uniform model and the bigram. The C++ test (tests/chapters/ch34_final_evaluation_test.cpp)
compares the chapter's final table with these numbers within 1e-12 relative. The table's
fourth row, Chapter 23's neural n-gram, is not reproduced here: it would mean replaying
Chapter 23's 80 seeded AdamW steps; the C++ test recomputes that row token by token, and
Chapter 23's own reference checks the model's arithmetic against PyTorch.

Records (numbers with 17 significant digits):

    ALPHA|alpha=..|validation=..              one per candidate
    TEST|positions=..|bytes=..
    FINAL|name=uniform|cross_entropy=..|perplexity=..|bits_per_byte=..   and name=bigram
"""

import math
import sys
from pathlib import Path

import numpy_dispatch  # noqa: F401  (before numpy: the same SIMD paths on every machine)
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_bigram_reference import read_documents, read_manifest  # noqa: E402
from text_common import corpus_main, number  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parent / "data" / "text" / "ch34_final.txt"
V, BOS, EOS, T = 258, 256, 257, 32
ALPHAS = (1.0, 0.1, 0.01)


def windows(sequences, limit):
    out = []
    for s in sequences:
        out += [(s, start) for start in range(0, len(s) - T, T)]
    return out[:limit]


def nats_of(prob, examples):
    terms = [-math.log(prob[s[start + t], s[start + t + 1]])
             for s, start in examples for t in range(T)]
    return math.fsum(terms), len(terms)


def reference(corpus):
    split = read_manifest(ROOT / "tools" / "corpus-partitions.tsv")
    parts = {"train": [], "validation": [], "test": []}
    for title, text in read_documents(corpus):
        parts[split[title]].append([BOS] + list(text) + [EOS])
    train, valid, test = parts["train"][:2], parts["validation"][:1], parts["test"][:2]
    counts = np.zeros((V, V), dtype=np.float64)
    for s in train:
        for a, b in zip(s[:-1], s[1:]):
            counts[a, b] += 1
    valid_examples, test_examples = windows(valid, 64), windows(test, 128)
    lines = ["# Chapter 34 reference (tests/reference/make_final_eval_reference.py): NumPy "
             "float64, add-alpha bigram on bytes, alpha chosen on validation"]
    best = None
    for alpha in ALPHAS:
        prob = (counts + alpha) / (counts.sum(axis=1, keepdims=True) + alpha * V)
        total, n = nats_of(prob, valid_examples)
        lines.append("ALPHA|alpha=%s|validation=%s" % (number(alpha), number(total / n)))
        if best is None or total / n < best[1]:
            best = (alpha, total / n, prob)
    total, n = nats_of(best[2], test_examples)
    size = sum(1 for s, start in test_examples for t in range(T) if s[start + t + 1] < 256)
    lines.append("TEST|positions=%d|bytes=%d" % (n, size))
    for name, nats in (("uniform", n * math.log(V)), ("bigram", total)):
        h = nats / n
        lines.append("FINAL|name=%s|cross_entropy=%s|perplexity=%s|bits_per_byte=%s" % (
            name, number(h), number(math.exp(h)), number(nats / (math.log(2.0) * size))))
    return "\n".join(lines) + "\n"


def main(argv):
    return corpus_main(argv, __doc__.strip().splitlines()[2].strip(), reference, DATA,
                       "tests/reference/make_final_eval_reference.py")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
