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

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_axes import LEFT, TOP, WIDTH, axes  # noqa: E402
WINDOW = 50


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    records = [json.loads(line) for line in open(argv[0], encoding="utf-8") if line.strip()]
    config = next(r for r in records if r["kind"] == "config")
    steps = [r for r in records if r["kind"] == "step"]
    evals = [(r["step"], r["val_loss"]) for r in records if r["kind"] == "eval"]
    if len(evals) < 2:
        print("plot-training-log: fewer than two eval records in %s" % argv[0], file=sys.stderr)
        return 1
    means = []
    for first in range(0, len(steps), WINDOW):
        chunk = steps[first:first + WINDOW]
        means.append((chunk[-1]["step"], sum(r["loss"] for r in chunk) / len(chunk)))
    best_step, best_loss = min(evals, key=lambda e: (e[1], e[0]))
    values = [v for _, v in evals] + [v for _, v in means]
    lo, hi = min(values) - 0.1, max(values) + 0.1
    last = max(config["steps"], evals[-1][0])
    title = ("Training and validation loss of the chapter 33 decoder (long run, %d of %d steps)"
             % (evals[-1][0], config["steps"]))
    out, X, Y = axes(title, [s for s, _ in evals], last, lo, hi, 0.5,
                     "AdamW steps (B = %d, T = %d bytes)" % (config["B"], config["T"]), 160)
    out.append('<polyline points="%s" fill="none" stroke="currentColor" stroke-width="1" stroke-dasharray="2 2"/>'
               % " ".join("%.1f,%.1f" % (X(s), Y(v)) for s, v in means))
    out.append('<polyline points="%s" fill="none" stroke="currentColor" stroke-width="2"/>'
               % " ".join("%.1f,%.1f" % (X(s), Y(v)) for s, v in evals))
    for s, v in evals:
        out.append('<circle cx="%.1f" cy="%.1f" r="3" fill="currentColor"><title>step %d: validation %.4f'
                   '</title></circle>' % (X(s), Y(v), s, v))
    out.append('<circle cx="%.1f" cy="%.1f" r="7" fill="none" stroke="currentColor"/>'
               '<text x="%.1f" y="%.1f" font-size="10" fill="currentColor">selected: step %d, %.3f</text>'
               % (X(best_step), Y(best_loss), X(best_step) + 10, Y(best_loss) - 10, best_step, best_loss))
    out.append('<text x="%d" y="%d" font-size="10" fill="currentColor">thick: validation loss; dotted: '
               'training loss, mean of %d steps (nats per byte)</text>' % (LEFT + 8, TOP + 12, WINDOW))
    out.append("</svg>\n")
    tmp = argv[1] + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("".join(out))
    os.replace(tmp, argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
