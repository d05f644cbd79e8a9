#!/usr/bin/python3
"""Redraw Chapter 23's long-run figure from its log.

    /usr/bin/python3 tools/plot-ngram-log.py docs/_static/ch23-train-ngram.jsonl docs/_static/ch23-train-ngram.svg

The log is the JSON lines `make train-ngram` writes: one `config` record (with the bigram's
validation bits per byte), an `eval` record per scored step (step, train_loss,
validation_loss, validation_bpb), and a `final` record. The figure: validation bits per byte
over the whole validation partition by step, against the bigram's line. The SVG uses
currentColor only (it follows the book's light and dark themes) and is written atomically.
"""

import json
import os
import sys

LEFT, TOP, WIDTH, HEIGHT = 60, 16, 480, 240


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    records = [json.loads(line) for line in open(argv[0], encoding="utf-8") if line.strip()]
    config = next(r for r in records if r["kind"] == "config")
    points = [(r["step"], r["validation_bpb"]) for r in records if r["kind"] == "eval"]
    if len(points) < 2:
        print("plot-ngram-log: fewer than two eval records in %s" % argv[0], file=sys.stderr)
        return 1
    bigram = config["bigram_bpb"]
    values = [b for _, b in points] + [bigram]
    lo, hi = min(values) - 0.05, max(values) + 0.05
    last = points[-1][0]
    X = lambda s: LEFT + WIDTH * s / last  # noqa: E731
    Y = lambda v: TOP + HEIGHT * (hi - v) / (hi - lo)  # noqa: E731
    title = "Validation bits per byte of the neural n-gram model (long run) against the bigram"
    out = ['<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" role="img" aria-label="%s" '
           'font-family="sans-serif">' % (LEFT + WIDTH + 150, TOP + HEIGHT + 44, title),
           '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="currentColor"/>' % (LEFT, TOP, LEFT, TOP + HEIGHT),
           '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="currentColor"/>'
           % (LEFT, TOP + HEIGHT, LEFT + WIDTH, TOP + HEIGHT)]
    for s, _ in points:
        out.append('<text x="%.1f" y="%d" font-size="10" text-anchor="middle" fill="currentColor">%d</text>'
                   % (X(s), TOP + HEIGHT + 14, s))
    tick = round(lo, 1)
    while tick <= hi:
        if tick >= lo:
            out.append('<text x="%d" y="%.1f" font-size="10" text-anchor="end" fill="currentColor">%.1f</text>'
                       % (LEFT - 6, Y(tick) + 3, tick))
        tick = round(tick + 0.2, 1)
    out.append('<text x="%.1f" y="%d" font-size="11" text-anchor="middle" fill="currentColor">AdamW steps '
               '(B = %d)</text>' % (LEFT + WIDTH / 2, TOP + HEIGHT + 32, config["batch"]))
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
    tmp = argv[1] + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("".join(out))
    os.replace(tmp, argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
