#!/usr/bin/python3
"""Write (or check) the bigram reference data of Chapters 6 and 7:
tests/reference/data/text/ch07_bigram.txt.

    /usr/bin/python3 tests/reference/make_bigram_reference.py [CORPUS]          # rewrite
    /usr/bin/python3 tests/reference/make_bigram_reference.py [CORPUS] --check  # exit 1 if stale

CORPUS is the extracted King James text (build/default/corpus/kjv.txt). With it, the script
also fits the bigram on the training partition of tools/corpus-partitions.tsv and scores the
validation partition, over bytes (V = 258) and over the course tokenizer
tools/kjv-4096.merges (V = 4,096), re-implementing the encoding from the merges file and
Chapter 4's rule (cut before every space and newline; in each chunk merge the lowest-rank
adjacent pair, leftmost first, until none is left). Without it, the corpus lines already in
the file are kept (and, with --check, not compared).

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
import os
import sys
from pathlib import Path

import numpy_dispatch  # noqa: F401  (before numpy: the same SIMD paths on every machine)
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from text_common import SplitMix64, script_main  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "reference" / "data" / "text" / "ch07_bigram.txt"
SEED = 20261207
ALPHAS = [1.0, 0.1, 0.01, 0.001]  # the pseudo-counts chapter 7 compares on the corpus


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


def read_documents(corpus_path):
    """(title, text) per `# title` heading, text = the lines under it, each with its '\n'."""
    docs = []
    for line in Path(corpus_path).read_bytes().split(b"\n")[:-1]:
        if line.startswith(b"# "):
            docs.append([line[2:].decode(), bytearray()])
        else:
            docs[-1][1] += line + b"\n"
    return [(title, bytes(text)) for title, text in docs]


def read_manifest(path):
    split = {}
    for line in Path(path).read_text().splitlines():
        if not line or line.startswith("#"):
            continue
        key, value = line.split("\t")
        if value in ("train", "validation", "test"):
            split[key] = value
    return split


def read_ranks(path):
    lines = Path(path).read_text().splitlines()
    assert lines[0].startswith("llmfs-bpe-merges version=1 "), lines[0]
    ranks = {}
    for rank, line in enumerate(lines[1:]):
        token, left, right = (int(x) for x in line.split())
        assert token == 256 + rank
        ranks[(left, right)] = rank
    return ranks


def encoder(ranks):
    cache = {}

    def encode_chunk(chunk):
        tokens = list(chunk)
        while len(tokens) > 1:
            best = min(range(len(tokens) - 1),
                       key=lambda i: ranks.get((tokens[i], tokens[i + 1]), len(ranks)))
            rank = ranks.get((tokens[best], tokens[best + 1]))
            if rank is None:
                break
            tokens[best:best + 2] = [256 + rank]
        return tokens

    def encode(text):
        out, start = [], 0
        for i in range(1, len(text) + 1):
            if i == len(text) or text[i] in (0x20, 0x0A):
                chunk = text[start:i]
                if chunk not in cache:
                    cache[chunk] = encode_chunk(chunk)
                out += cache[chunk]
                start = i
        return out

    return encode


def corpus_metrics(train, valid, v, text_bytes, alpha=1.0):
    """The bigram's validation metrics from sparse counts (np.unique over pair keys)."""
    bos, eos = v - 2, v - 1

    def keys(documents):
        prev = np.concatenate([np.array([bos] + d, dtype=np.int64) for d in documents])
        nxt = np.concatenate([np.array(d + [eos], dtype=np.int64) for d in documents])
        return prev, nxt

    prev, nxt = keys(train)
    pair_keys, pair_counts = np.unique(prev * v + nxt, return_counts=True)
    totals = np.bincount(prev, minlength=v).astype(np.float64)
    vp, vn = keys(valid)
    at = np.searchsorted(pair_keys, vp * v + vn)
    at = np.minimum(at, len(pair_keys) - 1)
    c = np.where(pair_keys[at] == vp * v + vn, pair_counts[at], 0).astype(np.float64)
    p = (c + alpha) / (totals[vp] + alpha * v)
    total = math.fsum((-np.log(p)).tolist())
    h = total / len(p)
    return {"total_nats": total, "tokens": len(p), "cross_entropy": h,
            "perplexity": math.exp(h), "bits_per_byte": total / (math.log(2) * text_bytes),
            "distinct_pairs": len(pair_keys), "pairs": len(prev)}


def corpus_lines(corpus_path):
    docs = read_documents(corpus_path)
    split = read_manifest(ROOT / "tools" / "corpus-partitions.tsv")
    train = [text for title, text in docs if split[title] == "train"]
    valid = [text for title, text in docs if split[title] == "validation"]
    valid_bytes = sum(len(t) for t in valid)
    ranks = read_ranks(ROOT / "tools" / "kjv-4096.merges")
    lines = []
    for name, encode, v in (("bytes", list, 258),
                            ("bpe4096", encoder(ranks), 258 + len(ranks))):
        encoded_train = [encode(t) for t in train]
        encoded_valid = [encode(t) for t in valid]
        m = corpus_metrics(encoded_train, encoded_valid, v, valid_bytes)
        lines.append(tensor_line(f"corpus_{name}.config", [v, v - 2, v - 1, 1.0, valid_bytes]))
        for key in ("pairs", "distinct_pairs", "total_nats", "tokens", "cross_entropy",
                    "perplexity", "bits_per_byte"):
            lines.append(tensor_line(f"corpus_{name}.{key}", m[key]))
        lines.append(tensor_line(f"corpus_{name}.uniform_cross_entropy", math.log(v)))
        sweep = [corpus_metrics(encoded_train, encoded_valid, v, valid_bytes, alpha)
                 for alpha in ALPHAS]
        lines.append(tensor_line(f"corpus_{name}.alphas", ALPHAS))
        lines.append(tensor_line(f"corpus_{name}.alpha_cross_entropy",
                                 [m["cross_entropy"] for m in sweep]))
        lines.append(tensor_line(f"corpus_{name}.alpha_bits_per_byte",
                                 [m["bits_per_byte"] for m in sweep]))
    return lines


def render(corpus_path=None):
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
    if corpus_path is not None:
        lines.append(f"# corpus: King James validation partition "
                     "(tools/corpus-partitions.tsv, tools/kjv-4096.merges)")
        lines += corpus_lines(corpus_path)
    elif DATA.exists():  # keep the corpus lines computed earlier
        lines += [l for l in DATA.read_text().splitlines()
                  if l.startswith(("corpus_", "# corpus:"))]
    return "\n".join(lines) + "\n"


def main(argv):
    paths = [a for a in argv if not a.startswith("--")]
    return script_main(argv, DATA, lambda: render(paths[0] if paths else None), __file__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
