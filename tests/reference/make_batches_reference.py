#!/usr/bin/python3
"""Write (or check) Chapter 21's mini-batch reference: tests/reference/data/training/ch21_batches.txt.

    /usr/bin/python3 tests/reference/make_batches_reference.py          # rewrite
    /usr/bin/python3 tests/reference/make_batches_reference.py --check  # exit 1 if stale

Written from the chapter's rules in plain Python, independent of the C++ library:
Lemire's bounded draw with Python's big integers, Fisher–Yates (Durstenfeld) and the
epoch seeds (draw epoch + 1 of SplitMix64(seed) seeds the epoch's shuffle). Then one random
batching case through PyTorch float64: random token sequences, windows T = 3, S = 2, an
epoch of B = 4 with its last, partial batch kept; a bigram model whose logits are rows of
a random table E [V, V] looked up by the inputs (torch.nn.functional.embedding), scored
with torch.nn.functional.cross_entropy (mean over each batch's positions), and the gradient
with respect to E from torch.autograd. tests/chapters/ch21_mini_batches_test.cpp rebuilds
every batch with the book's code and compares.

Records (lists comma-separated, row-major; numbers with 17 significant digits):

    BOUNDED|seed=s|n=n|draws=..                 the first 8 bounded(n) draws of SplitMix64(s)
    ORDER|count=N|seed=s|epoch=e|order=..        epoch_order(N, s, e)
    SEQUENCE|index=k|ids=..                      the case's token sequences
    TABLE|vocab=V|values=..                      E
    BATCH|epoch=e|index=k|rows=B'|examples=..|inputs=..|targets=..|loss=..|gradient=..
    EPOCH|epoch=e|batches=n|mean_of_batches=..|position_mean=..|all_positions=..
"""

import sys
from pathlib import Path

import numpy_dispatch  # noqa: F401  (before numpy: the same SIMD paths on every machine)
import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
from text_common import SplitMix64, number, script_main, uniform  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "training" / "ch21_batches.txt"
MASK = (1 << 64) - 1


def bounded(rng, n):
    """Lemire 2019: the high word of x·n; reject when the low word is below 2^64 mod n."""
    if n == 0:
        return 0
    product = rng.next() * n
    low = product & MASK
    if low < n:
        threshold = (1 << 64) % n
        while low < threshold:
            product = rng.next() * n
            low = product & MASK
    return product >> 64


def epoch_order(count, seed, epoch):
    seeds = SplitMix64(seed)
    epoch_seed = seeds.next()
    for _ in range(epoch):
        epoch_seed = seeds.next()
    rng = SplitMix64(epoch_seed)
    order = list(range(count))
    for i in range(count, 1, -1):
        j = bounded(rng, i)
        order[i - 1], order[j] = order[j], order[i - 1]
    return order


def examples_of(sequences, context, stride):
    return [(k, start) for k, seq in enumerate(sequences)
            for start in range(0, len(seq) - context, stride)]


def batching_case(lines):
    rng = SplitMix64(2121)
    vocab, context, stride, batch = 6, 3, 2, 4
    sequences = [[int(rng.below(vocab)) for _ in range(n)] for n in (9, 4, 7, 3, 8)]
    table = torch.tensor(uniform(rng, vocab * vocab, -2.0, 2.0), dtype=torch.float64).reshape(vocab, vocab)
    for k, seq in enumerate(sequences):
        lines.append("SEQUENCE|index=%d|ids=%s" % (k, ",".join(str(i) for i in seq)))
    lines.append("TABLE|vocab=%d|context=%d|stride=%d|batch=%d|seed=21|values=%s" % (
        vocab, context, stride, batch, ",".join(number(v) for v in table.reshape(-1).tolist())))
    examples = examples_of(sequences, context, stride)
    for epoch in (0, 1):
        order = epoch_order(len(examples), 21, epoch)
        losses, sizes, all_inputs, all_targets = [], [], [], []
        for index, first in enumerate(range(0, len(order), batch)):
            rows = order[first:first + batch]
            inputs = torch.tensor([sequences[examples[r][0]][examples[r][1]:examples[r][1] + context]
                                   for r in rows])
            targets = torch.tensor([sequences[examples[r][0]][examples[r][1] + 1:examples[r][1] + context + 1]
                                    for r in rows])
            e = table.clone().requires_grad_(True)
            logits = F.embedding(inputs, e)
            loss = F.cross_entropy(logits.reshape(-1, vocab), targets.reshape(-1))
            loss.backward()
            losses.append(loss.item())
            sizes.append(inputs.numel())
            all_inputs.append(inputs.reshape(-1))
            all_targets.append(targets.reshape(-1))
            lines.append("BATCH|epoch=%d|index=%d|rows=%d|examples=%s|inputs=%s|targets=%s|loss=%s|gradient=%s" % (
                epoch, index, len(rows), ",".join(str(r) for r in rows),
                ",".join(str(i) for i in inputs.reshape(-1).tolist()),
                ",".join(str(i) for i in targets.reshape(-1).tolist()), number(loss.item()),
                ",".join(number(g) for g in e.grad.reshape(-1).tolist())))
        every = F.cross_entropy(F.embedding(torch.cat(all_inputs), table), torch.cat(all_targets))
        lines.append("EPOCH|epoch=%d|batches=%d|mean_of_batches=%s|position_mean=%s|all_positions=%s" % (
            epoch, len(losses), number(sum(losses) / len(losses)),
            number(sum(l * n for l, n in zip(losses, sizes)) / sum(sizes)), number(every.item())))


def render():
    lines = ["# Chapter 21 reference (tests/reference/make_batches_reference.py): plain Python "
             "shuffles; torch %s float64 cross_entropy and autograd" % torch.__version__.split("+")[0]]
    for seed, n in [(21, 3), (21, 10), (7, 1), (7, 3 << 62), (2021, (1 << 63) + 1), (2021, MASK)]:
        rng = SplitMix64(seed)
        lines.append("BOUNDED|seed=%d|n=%d|draws=%s" % (
            seed, n, ",".join(str(bounded(rng, n)) for _ in range(8))))
    for count, seed, epoch in [(6, 21, 0), (6, 21, 1), (6, 22, 0), (10, 21, 0), (10, 21, 5),
                               (1, 3, 0), (0, 3, 0), (257, 2121, 2)]:
        lines.append("ORDER|count=%d|seed=%d|epoch=%d|order=%s" % (
            count, seed, epoch, ",".join(str(i) for i in epoch_order(count, seed, epoch))))
    batching_case(lines)
    return "\n".join(lines) + "\n"


def main(argv):
    return script_main(argv, DATA, render, __file__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
