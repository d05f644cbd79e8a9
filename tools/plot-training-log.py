#!/usr/bin/python3
"""Redraw Chapter 33's long-run figure from its log.

    /usr/bin/python3 tools/plot-training-log.py docs/_static/ch33-train-decoder.jsonl docs/_static/ch33-train-decoder.svg

The log is the JSON lines `make train-decoder` writes (training/training_log.hpp): one
`config` record, a `step` record per optimizer step (step, lr, loss, grad_norm,
clip_scale, tokens, elapsed_s) and an `eval` record per validation (step, val_loss,
best). The figure: the training loss (the mean of each 50 steps, thin) and the
validation loss (thick, with points) in nats per byte by step, the selected step
marked. Wall-clock values are read from the log only for the caption, never drawn. The
SVG uses currentColor only (it follows the book's light and dark themes) and is written
atomically.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from long_run import WINDOW, loss_curves, read_records, window_means, write  # noqa: E402
from plot_axes import LEFT, TOP, axes  # noqa: E402


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    records = read_records(argv[0])
    config = next(r for r in records if r["kind"] == "config")
    steps = [r for r in records if r["kind"] == "step"]
    evals = [(r["step"], r["val_loss"]) for r in records if r["kind"] == "eval"]
    if len(evals) < 2:
        print("plot-training-log: fewer than two eval records in %s" % argv[0], file=sys.stderr)
        return 1
    means = window_means(steps)
    best_step, best_loss = min(evals, key=lambda e: (e[1], e[0]))
    values = [v for _, v in evals] + [v for _, v in means]
    lo, hi = min(values) - 0.1, max(values) + 0.1
    last = max(config["steps"], evals[-1][0])
    title = ("Training and validation loss of the chapter 33 decoder (long run, %d of %d steps)"
             % (evals[-1][0], config["steps"]))
    out, X, Y = axes(title, [s for s, _ in evals], last, lo, hi, 0.5,
                     "AdamW steps (B = %d, T = %d bytes)" % (config["B"], config["T"]), 160)
    # The means lie inside [lo, hi] here, so loss_curves' clamp changes none of them.
    out += loss_curves(X, Y, lo, hi, means, evals, (best_step, best_loss), (10, -10))
    out.append('<text x="%d" y="%d" font-size="10" fill="currentColor">thick: validation loss; dotted: '
               'training loss, mean of %d steps (nats per byte)</text>' % (LEFT + 8, TOP + 12, WINDOW))
    out.append("</svg>\n")
    write(argv[1], "".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
