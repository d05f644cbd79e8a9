"""Chapter 23 diagram: the demo's loss curve, drawn from the trace. The mean training loss
since the previous point and the validation loss on the scored subset, in nats per token,
by step, against the counted bigram of Chapter 6 (α = 0.01) and the uniform model on the
same subset.

Records (snippets/ch23-a-neural-n-gram-model/trace.txt):
  LOSS|step=s|train=L|validation=L|bpb=B        one per point (train = 0 at step 0: no step yet)
  BASELINE|bigram_loss=L|bigram_bpb=B|uniform_loss=L|uniform_bpb=B    one
Everything drawn is read from the records; nothing is recomputed.
"""

from trace_records import TraceFormatError

from diagrams.common import esc, need, of_kind, single

TITLE = "The neural n-gram model's loss falls below the counted bigram's within the demo's steps"

LEFT, TOP, WIDTH, HEIGHT = 56, 14, 460, 220


def _scale(lo, hi, size, flip):
    def f(v):
        t = (v - lo) / (hi - lo) if hi > lo else 0.5
        return (1 - t) * size if flip else t * size
    return f


def render(records):
    points = of_kind(records, "LOSS")
    if len(points) < 2:
        raise TraceFormatError("trace.txt", records[-1].line if records else 1,
                               "expected at least two LOSS records")
    base = single(records, "BASELINE")
    bigram, bigram_bpb, uniform, uniform_bpb = (
        float(v) for v in need(base, "bigram_loss", "bigram_bpb", "uniform_loss", "uniform_bpb"))
    rows = []
    for r in points:
        s, t, v, b = need(r, "step", "train", "validation", "bpb")
        rows.append((int(s), float(t), float(v), float(b)))
    last = rows[-1][0]
    values = [v for _, t, v, _ in rows] + [t for s, t, _, _ in rows if s > 0] + [bigram, uniform]
    lo, hi = min(values) - 0.2, max(values) + 0.2
    x = _scale(0, last, WIDTH, False)
    y = _scale(lo, hi, HEIGHT, True)
    X = lambda s: LEFT + x(s)  # noqa: E731
    Y = lambda v: TOP + y(v)  # noqa: E731
    parts = [f'<svg viewBox="0 0 {LEFT + WIDTH + 150} {TOP + HEIGHT + 40}" role="img" '
             f'style="max-width: 100%; height: auto" aria-label="{esc(TITLE)}">',
             f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{TOP + HEIGHT}" stroke="currentColor"/>'
             f'<line x1="{LEFT}" y1="{TOP + HEIGHT}" x2="{LEFT + WIDTH}" y2="{TOP + HEIGHT}" '
             f'stroke="currentColor"/>']
    for s, _, _, _ in rows:
        parts.append(f'<text x="{X(s):.1f}" y="{TOP + HEIGHT + 14}" font-size="9" '
                     f'text-anchor="middle" fill="currentColor">{s}</text>')
    tick = int(lo) + 1
    while tick < hi:
        parts.append(f'<line x1="{LEFT - 4}" y1="{Y(tick):.1f}" x2="{LEFT}" y2="{Y(tick):.1f}" '
                     f'stroke="currentColor"/><text x="{LEFT - 6}" y="{Y(tick) + 3:.1f}" '
                     f'font-size="9" text-anchor="end" fill="currentColor">{tick}</text>')
        tick += 1
    parts.append(f'<text x="{LEFT + WIDTH / 2}" y="{TOP + HEIGHT + 30}" font-size="10" '
                 f'text-anchor="middle" fill="currentColor">AdamW steps</text>'
                 f'<text x="14" y="{TOP + HEIGHT / 2}" font-size="10" text-anchor="middle" '
                 f'fill="currentColor" transform="rotate(-90 14 {TOP + HEIGHT / 2})">nats per token</text>')
    for value, dash, label in ((uniform, "2 3", f"uniform {uniform:.3f}"),
                               (bigram, "6 3", f"bigram α = 0.01: {bigram:.3f}")):
        parts.append(f'<line x1="{LEFT}" y1="{Y(value):.1f}" x2="{LEFT + WIDTH}" y2="{Y(value):.1f}" '
                     f'stroke="currentColor" stroke-dasharray="{dash}"/>'
                     f'<text x="{LEFT + WIDTH + 6}" y="{Y(value) + 3:.1f}" font-size="9" '
                     f'fill="currentColor">{esc(label)}</text>')
    valid = " ".join(f"{X(s):.1f},{Y(v):.1f}" for s, _, v, _ in rows)
    train = " ".join(f"{X(s):.1f},{Y(t):.1f}" for s, t, _, _ in rows if s > 0)
    parts.append(f'<polyline points="{valid}" fill="none" stroke="currentColor" stroke-width="2"/>'
                 f'<polyline points="{train}" fill="none" stroke="currentColor" stroke-width="1" '
                 f'stroke-dasharray="1 2"/>')
    for s, t, v, b in rows:
        parts.append(f'<circle cx="{X(s):.1f}" cy="{Y(v):.1f}" r="3" fill="currentColor">'
                     f'<title>step {s}: validation {v:.4f} nats, {b:.4f} bits/byte</title></circle>')
        if s > 0:
            parts.append(f'<rect x="{X(s) - 2.5:.1f}" y="{Y(t) - 2.5:.1f}" width="5" height="5" '
                         f'fill="none" stroke="currentColor"><title>steps to {s}: training {t:.4f} '
                         f'nats</title></rect>')
    s, _, v, b = rows[-1]
    parts.append(f'<text x="{X(s) - 4:.1f}" y="{Y(v) - 8:.1f}" font-size="9" text-anchor="end" '
                 f'fill="currentColor">validation {v:.3f} ({b:.3f} bits/byte)</text>'
                 f'<text x="{LEFT + 8}" y="{TOP + HEIGHT - 22}" font-size="9" fill="currentColor">'
                 f'● validation (thick line) · □ training, mean since last point (dotted)</text>')
    parts.append("</svg>")
    text = ["Loss in nats per token by AdamW step (validation: the scored subset; training: the "
            "mean batch loss since the previous point):"]
    for s, t, v, b in rows:
        train_text = f"training {t:.6f}, " if s > 0 else ""
        text.append(f"- step {s}: {train_text}validation {v:.6f} ({b:.6f} bits per byte)")
    text.append(f"Baselines on the same subset: bigram α = 0.01 {bigram:.6f} nats per token "
                f"({bigram_bpb:.6f} bits per byte); uniform {uniform:.6f} ({uniform_bpb:.6f}).")
    return "".join(parts), "\n".join(text)
