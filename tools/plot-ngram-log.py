#!/usr/bin/python3
"""Redraw Chapter 23's long-run figure and table from its log.

    /usr/bin/python3 tools/plot-ngram-log.py docs/_static/ch23-train-ngram.jsonl docs/_static/ch23-train-ngram

The log is the JSON lines `make train-ngram` writes: one `config` record (with the bigram's
validation bits per byte), an `eval` record per scored step (step, train_loss,
validation_loss, validation_bpb), and a `final` record. Two files are written, each
atomically, from the second argument PREFIX:
  PREFIX.svg  validation bits per byte over the whole validation partition by step, against
              the bigram's line (currentColor only: it follows the book's light and dark themes);
  PREFIX.txt  the same numbers as a table inside a region the chapter shows, with the run's
              wall-clock time and tokens per second (never in a golden).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from long_run import read_records, write  # noqa: E402
from plot_axes import LEFT, WIDTH, axes  # noqa: E402


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    records = read_records(argv[0])
    config = next(r for r in records if r["kind"] == "config")
    points = [(r["step"], r["validation_bpb"]) for r in records if r["kind"] == "eval"]
    if len(points) < 2:
        print("plot-ngram-log: fewer than two eval records in %s" % argv[0], file=sys.stderr)
        return 1
    bigram = config["bigram_bpb"]
    values = [b for _, b in points] + [bigram]
    lo, hi = min(values) - 0.05, max(values) + 0.05
    last = points[-1][0]
    title = "Validation bits per byte of the neural n-gram model (long run) against the bigram"
    out, X, Y = axes(title, [s for s, _ in points], last, lo, hi, 0.2,
                     "AdamW steps (B = %d)" % config["batch"], 150)
    out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="currentColor" stroke-dasharray="6 3"/>'
               '<text x="%d" y="%.1f" font-size="10" fill="currentColor">bigram α = 0.01: %.3f</text>'
               % (LEFT, Y(bigram), LEFT + WIDTH, Y(bigram), LEFT + WIDTH + 6, Y(bigram) + 3, bigram))
    out.append('<polyline points="%s" fill="none" stroke="currentColor" stroke-width="2"/>'
               % " ".join("%.1f,%.1f" % (X(s), Y(b)) for s, b in points))
    for s, b in points:
        out.append('<circle cx="%.1f" cy="%.1f" r="3" fill="currentColor"><title>step %d: %.4f bits/byte'
                   '</title></circle>' % (X(s), Y(b), s, b))
    s, b = points[-1]
    out.append('<text x="%.1f" y="%.1f" font-size="10" text-anchor="end" fill="currentColor">%.3f bits/byte'
               '</text>' % (X(s) - 4, Y(b) - 8, b))
    out.append("</svg>\n")
    text = summary(argv[0], config, records)
    write(argv[1] + ".svg", "".join(out))
    write(argv[1] + ".txt", text)
    return 0


def summary(log, config, records):
    final = next((r for r in records if r["kind"] == "final"), None)
    if final is None:
        raise SystemExit("plot-ngram-log: %s has no final record (the run did not end)" % log)
    examples = config["batch"] * config["steps"]
    lines = [
        "# Chapter 23's long run: written by tools/plot-ngram-log.py from %s," % os.path.basename(log),
        "# shown by chapters/23-a-neural-n-gram-model.md, never typed by hand",
        "# region: long-run-results",
        "model: V = %d, n = %d, d = %d, h = %d; AdamW lr %g (%s), weight decay %g, seed %d"
        % (config["V"], config["n"], config["d"], config["h"], config["lr"],
           config.get("lr_schedule", "constant"), config["weight_decay"],
           config["seed"]),
        "data: %d steps of B = %d = %d examples, %.2f epochs of %d; scored on all %d"
        % (config["steps"], config["batch"], examples, examples / config["train_examples"],
           config["train_examples"], config["validation_examples"]),
        "      validation examples (%d bytes)" % config["validation_bytes"],
        "",
        "  step  train loss  validation loss  validation bits/byte",
    ]
    for r in records:
        if r["kind"] == "eval":
            train = "%10.6f" % r["train_loss"] if r["step"] else "%10s" % "-"
            lines.append("%6d  %s  %15.6f  %20.6f" % (r["step"], train, r["validation_loss"],
                                                      r["validation_bpb"]))
    lines += [
        "",
        "final: %.6f bits/byte; bigram (alpha = 0.01) %.6f; difference %+.6f"
        % (final["validation_bpb"], final["bigram_bpb"], final["validation_bpb"] - final["bigram_bpb"]),
        "wall clock: %.0f s in all, scoring included: %.0f training examples/s"
        % (final["seconds"], examples / final["seconds"]),
        "# endregion: long-run-results",
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
