#!/usr/bin/python3
"""Write (or check) the bigram reference data of Chapters 6 and 7:
tests/reference/data/text/ch07_bigram.txt.

    /usr/bin/python3 tests/reference/make_bigram_reference.py          # rewrite the file
    /usr/bin/python3 tests/reference/make_bigram_reference.py --check  # exit 1 if it is stale

An independent reference, written from the chapters' formulas with NumPy in float64, not
from the C++: a dense count table C[V,V] over documents framed as BOS + tokens + EOS,
add-alpha probabilities P = (C + alpha) / (C.sum(1) + alpha V), and on the validation
documents the total negative log-likelihood (math.fsum), cross-entropy = total / N,
perplexity = exp(cross-entropy) and bits per byte = total / (ln 2 * bytes). The random
case's documents are drawn from a SplitMix64 generator written out below (not NumPy's),
so the same seed gives the same case everywhere, and they are stored with the results, so
the C++ test (tests/eval/bigram_reference_test.cpp) needs no Python.

Format (tests/support/reference_data.hpp): one tensor per line,
`NAME|shape=[a,b]|values=v0,v1,...` in row-major order with 17 significant digits; a
scalar has `shape=[]`; token lists are stored as values too, with their lengths.
"""

import math
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "reference" / "data" / "text" / "ch07_bigram.txt"
SEED = 20261207
MASK = (1 << 64) - 1


class SplitMix64:
    """SplitMix64 (Steele, Lea and Flood 2014), as in Vigna's splitmix64.c."""

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


def counts(documents, v, bos, eos):
    """C[prev, next] over every document framed as BOS + tokens + EOS."""
    table = np.zeros((v, v), dtype=np.float64)
    for doc in documents:
        framed = [bos] + list(doc) + [eos]
        for prev, nxt in zip(framed[:-1], framed[1:]):
            table[prev, nxt] += 1.0
    return table


def probabilities(table, alpha):
    v = table.shape[0]
    return (table + alpha) / (table.sum(axis=1, keepdims=True) + alpha * v)


def metrics(prob, documents, bos, eos, text_bytes):
    """Total nats, N, cross-entropy, perplexity and bits per byte on `documents`."""
    surprisals = []
    for doc in documents:
        framed = [bos] + list(doc) + [eos]
        surprisals += [-math.log(prob[p, n]) for p, n in zip(framed[:-1], framed[1:])]
    total = math.fsum(surprisals)
    n = len(surprisals)
    h = total / n
    return {"total_nats": total, "tokens": n, "cross_entropy": h,
            "perplexity": math.exp(h), "bits_per_byte": total / (math.log(2) * text_bytes)}


def tensor_line(name, array):
    array = np.asarray(array, dtype=np.float64)
    shape = ",".join(str(d) for d in array.shape)
    values = ",".join(repr(float(x)) if math.isfinite(x) else str(x) for x in array.ravel())
    return f"{name}|shape=[{shape}]|values={values}"


def case_lines(prefix, train, valid, v, bos, eos, alpha, text_bytes):
    table = counts(train, v, bos, eos)
    prob = probabilities(table, alpha)
    m = metrics(prob, valid, bos, eos, text_bytes)
    lines = [tensor_line(f"{prefix}.config", [v, bos, eos, alpha, text_bytes]),
             tensor_line(f"{prefix}.train_lengths", [len(d) for d in train]),
             tensor_line(f"{prefix}.train_tokens", [t for d in train for t in d]),
             tensor_line(f"{prefix}.valid_lengths", [len(d) for d in valid]),
             tensor_line(f"{prefix}.valid_tokens", [t for d in valid for t in d]),
             tensor_line(f"{prefix}.counts", table),
             tensor_line(f"{prefix}.probabilities", prob)]
    for key in ("total_nats", "tokens", "cross_entropy", "perplexity", "bits_per_byte"):
        lines.append(tensor_line(f"{prefix}.{key}", m[key]))
    lines.append(tensor_line(f"{prefix}.uniform_cross_entropy", math.log(v)))
    return lines


def letters(text):
    return ["abn".index(c) for c in text]


def merged(text):
    out, i = [], 0
    while i < len(text):
        if text[i:i + 2] == "an":
            out.append(3)
            i += 2
        else:
            out.append("abn".index(text[i]))
            i += 1
    return out


def random_case(rng):
    v = 6 + rng.below(20)
    bos, eos = v - 2, v - 1
    alpha = 0.25 + rng.below(8) / 4.0
    def docs(count):
        return [[rng.below(v - 2) for _ in range(rng.below(15))] for _ in range(count)]
    train, valid = docs(8), docs(4)
    text_bytes = sum(len(d) for d in valid) * 2 + 1  # as if 2 bytes per token, plus one
    return train, valid, v, bos, eos, alpha, text_bytes


def render():
    train, valid = ["banana", "nab"], ["ban"]
    lines = ["# script: tests/reference/make_bigram_reference.py",
             f"# numpy: {np.__version__}",
             f"# seed: {SEED} (SplitMix64)",
             "# cases: fixture_letters (V=5), fixture_merged (V=6, 'an' merged), random_1..3"]
    lines += case_lines("fixture_letters", [letters(t) for t in train],
                        [letters(t) for t in valid], 5, 3, 4, 1.0, 3)
    lines += case_lines("fixture_merged", [merged(t) for t in train],
                        [merged(t) for t in valid], 6, 4, 5, 1.0, 3)
    rng = SplitMix64(SEED)
    for index in range(1, 4):
        lines += case_lines(f"random_{index}", *random_case(rng))
    return "\n".join(lines) + "\n"


def main(argv):
    text = render()
    if "--check" in argv:
        if not DATA.exists() or DATA.read_text() != text:
            print(f"{DATA.relative_to(ROOT)} is stale: run {Path(__file__).name}")
            return 1
        print(f"{DATA.relative_to(ROOT)} is current")
        return 0
    DATA.parent.mkdir(parents=True, exist_ok=True)
    tmp = DATA.with_suffix(".tmp")
    tmp.write_text(text)
    tmp.replace(DATA)
    print(f"wrote {DATA.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
