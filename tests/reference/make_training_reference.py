#!/usr/bin/python3
"""Write (or check) Chapter 33's training reference: data/training/ch33_training.txt.

    /usr/bin/python3 tests/reference/make_training_reference.py          # rewrite
    /usr/bin/python3 tests/reference/make_training_reference.py --check  # exit 1 if stale

A 50-step run of the book's decoder (decoder_reference.py, PyTorch float64) with
everything the C++ trainer does, written here from the chapters' rules: the sequences
and the initial weights drawn with SplitMix64 (text_common.py); windows of T tokens every
S (Chapter 5); batch s = batch (s - 1) mod n of epoch floor((s - 1)/n), n = floor(N/B),
in Chapter 21's epoch order (make_batches_reference.epoch_order); eta(s) by the warmup +
cosine rule of Chapter 33; torch.nn.utils.clip_grad_norm_; torch.optim.AdamW
(foreach=False) with one group per parameter, weight decay on the matrices only;
validation over every validation example in order, in batches of B, weighted by
positions, at step 0, every 10 steps and at step 50. The C++ test
(tests/chapters/ch33_reference_test.cpp) runs training::train() on the same data and
compares the loss at every step and every parameter at the end within 1e-9 relative.

Records (numbers with 17 significant digits, lists comma-separated, row-major):

    CONFIG|V=..|d=..|h=..|N=..|d_ff=..|T_max=..|rope_base=..|eps=..|T=..|stride=..|B=..
    RUN|peak=..|floor=..|warmup=..|steps=..|clip=..|beta1=..|beta2=..|adam_eps=..|decay=..|every=..|seed=..
    SEQUENCE|split=train|ids=..                   framed sequences, BOS = 0, EOS = 1
    INIT|name=..|shape=..|values=..               one per parameter, in the model's order
    STEP|step=s|lr=..|loss=..|norm=..             norm: the global norm before clipping
    EVAL|step=s|loss=..
    BEST|name=..|step=..|values=..                every parameter at the step of the lowest
                                                  validation loss (the earlier on a tie)
    FINAL|name=..|values=..                       every parameter after step 50
"""

import math
import sys
from pathlib import Path

import numpy_dispatch  # noqa: F401  (before numpy: the same SIMD paths on every machine)
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from decoder_reference import DecoderConfig, loss, parameter_specs  # noqa: E402
from make_batches_reference import epoch_order  # noqa: E402
from text_common import SplitMix64, joined, number, script_main, uniform  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "training" / "ch33_training.txt"
CONFIG = DecoderConfig(vocab_size=12, model_width=8, heads=2, layers=1, hidden_width=16,
                       context_length=8, rope_base=100.0, epsilon=1e-6)
T, STRIDE, B = 6, 3, 4
PEAK, FLOOR, WARMUP, STEPS, CLIP = 1e-2, 1e-3, 5, 50, 1.0
BETAS, ADAM_EPS, DECAY, EVERY, SEED = (0.9, 0.999), 1e-8, 0.1, 10, 3301


def draw_sequences(rng, count):
    out = []
    for _ in range(count):
        length = 14 + rng.below(12)
        out.append([0] + [2 + rng.below(CONFIG.vocab_size - 2) for _ in range(length)] + [1])
    return out


def examples_of(sequences):
    return [(k, start) for k, s in enumerate(sequences)
            for start in range(0, len(s) - T, STRIDE)]


def grid(sequences, examples, rows, shift):
    return torch.tensor([sequences[examples[r][0]][examples[r][1] + shift:
                                                   examples[r][1] + shift + T] for r in rows],
                        dtype=torch.long)


def learning_rate(step):
    if step <= WARMUP:
        return PEAK * step / WARMUP
    progress = (step - WARMUP) / (STEPS - WARMUP)
    return FLOOR + 0.5 * (PEAK - FLOOR) * (1.0 + math.cos(math.pi * progress))


def validation(params, sequences, examples):
    total, positions = 0.0, 0
    with torch.no_grad():
        for first in range(0, len(examples), B):
            rows = list(range(first, min(first + B, len(examples))))
            _, value = loss(CONFIG, params, grid(sequences, examples, rows, 0),
                            grid(sequences, examples, rows, 1))
            total += value.item() * len(rows) * T
            positions += len(rows) * T
    return total / positions


def render():
    rng = SplitMix64(SEED)
    train, valid = draw_sequences(rng, 4), draw_sequences(rng, 2)
    specs = parameter_specs(CONFIG)
    params = {}
    for name, shape in specs:
        count = math.prod(shape)
        if len(shape) == 1:
            values = [1.0 + 0.25 * u for u in uniform(rng, count)]
        else:
            values = [u / math.sqrt(shape[0]) for u in uniform(rng, count)]
        params[name] = torch.tensor(values, dtype=torch.float64).reshape(shape)
    lines = ["# Chapter 33 reference (tests/reference/make_training_reference.py): torch %s, "
             "float64, decoder_reference.py, clip_grad_norm_, torch.optim.AdamW foreach=False"
             % torch.__version__.split("+")[0],
             "CONFIG|V=%d|d=%d|h=%d|N=%d|d_ff=%d|T_max=%d|rope_base=%s|eps=%s|T=%d|stride=%d|B=%d"
             % (CONFIG.vocab_size, CONFIG.model_width, CONFIG.heads, CONFIG.layers,
                CONFIG.hidden_width, CONFIG.context_length, number(CONFIG.rope_base),
                number(CONFIG.epsilon), T, STRIDE, B),
             "RUN|peak=%s|floor=%s|warmup=%d|steps=%d|clip=%s|beta1=%s|beta2=%s|adam_eps=%s|"
             "decay=%s|every=%d|seed=%d" % (number(PEAK), number(FLOOR), WARMUP, STEPS,
                                            number(CLIP), number(BETAS[0]), number(BETAS[1]),
                                            number(ADAM_EPS), number(DECAY), EVERY, SEED)]
    for split, sequences in (("train", train), ("validation", valid)):
        for s in sequences:
            lines.append("SEQUENCE|split=%s|ids=%s" % (split, ",".join(str(i) for i in s)))
    for name, shape in specs:
        lines.append("INIT|name=%s|shape=%s|values=%s" % (
            name, ",".join(str(n) for n in shape), joined(params[name].reshape(-1).tolist())))
    for p in params.values():
        p.requires_grad_(True)
    groups = [{"params": [params[name]], "weight_decay": DECAY if len(shape) >= 2 else 0.0}
              for name, shape in specs]
    optimizer = torch.optim.AdamW(groups, lr=PEAK, betas=BETAS, eps=ADAM_EPS, foreach=False)
    train_examples, valid_examples = examples_of(train), examples_of(valid)
    per_epoch = len(train_examples) // B
    order = []
    best_loss = validation(params, valid, valid_examples)
    best = (0, {name: p.detach().clone() for name, p in params.items()})
    lines.append("EVAL|step=0|loss=%s" % number(best_loss))
    for step in range(1, STEPS + 1):
        index = (step - 1) % per_epoch
        if index == 0:
            order = epoch_order(len(train_examples), SEED, (step - 1) // per_epoch)
        rows = order[index * B:(index + 1) * B]
        eta = learning_rate(step)
        for group in optimizer.param_groups:
            group["lr"] = eta
        optimizer.zero_grad()
        _, value = loss(CONFIG, params, grid(train, train_examples, rows, 0),
                        grid(train, train_examples, rows, 1))
        value.backward()
        norm = torch.nn.utils.clip_grad_norm_(list(params.values()), CLIP)
        optimizer.step()
        lines.append("STEP|step=%d|lr=%s|loss=%s|norm=%s" % (step, number(eta),
                                                           number(value.item()),
                                                           number(norm.item())))
        if step % EVERY == 0 or step == STEPS:
            value = validation(params, valid, valid_examples)
            lines.append("EVAL|step=%d|loss=%s" % (step, number(value)))
            if value < best_loss:
                best_loss = value
                best = (step, {name: p.detach().clone() for name, p in params.items()})
    for name, _ in specs:
        lines.append("BEST|name=%s|step=%d|values=%s" % (
            name, best[0], joined(best[1][name].reshape(-1).tolist())))
    for name, _ in specs:
        lines.append("FINAL|name=%s|values=%s" % (
            name, joined(params[name].detach().reshape(-1).tolist())))
    return "\n".join(lines) + "\n"


def main(argv):
    return script_main(argv, DATA, render, __file__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
