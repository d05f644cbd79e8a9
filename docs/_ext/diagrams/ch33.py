"""Chapter 33 diagram: the demo run's curves, drawn from the trace. The training loss of
every step (thin), the validation loss at every validation (thick, with points), the
learning rate of every step on its own strip below, and the selected step circled.

Records (snippets/ch33-training-and-model-selection/trace.txt):
  STEP|step=s|lr=η|loss=L|norm=‖g‖|scale=s     one per optimizer step
  EVAL|step=s|validation=L|best=true|false      one per validation (step 0 included)
  SELECTED|step=s|validation=L                  one
Everything drawn is read from the records; nothing is recomputed.
"""

from trace_records import TraceFormatError

from diagrams.common import esc, need, of_kind, single

TITLE = "Training loss, validation loss and the learning rate of the chapter's demo run"

LEFT, TOP, WIDTH, HEIGHT, STRIP = 56, 14, 460, 200, 60


def render(records):
    steps = [tuple(float(v) for v in need(r, "step", "lr", "loss", "norm", "scale"))
             for r in of_kind(records, "STEP")]
    evals = [(int(need(r, "step")[0]), float(need(r, "validation")[0]), need(r, "best")[0])
             for r in of_kind(records, "EVAL")]
    if len(evals) < 2 or not steps:
        raise TraceFormatError("trace.txt", records[-1].line if records else 1,
                               "expected STEP records and at least two EVAL records")
    chosen = single(records, "SELECTED")
    chosen_step, chosen_loss = int(need(chosen, "step")[0]), float(need(chosen, "validation")[0])
    last = max(int(s[0]) for s in steps)
    values = [s[2] for s in steps] + [v for _, v, _ in evals]
    lo, hi = min(values) - 0.2, max(values) + 0.2
    peak = max(s[1] for s in steps)
    X = lambda s: LEFT + WIDTH * s / last  # noqa: E731
    Y = lambda v: TOP + HEIGHT * (hi - v) / (hi - lo)  # noqa: E731
    R = lambda lr: TOP + HEIGHT + 24 + STRIP * (1 - lr / peak)  # noqa: E731
    bottom = TOP + HEIGHT + 24 + STRIP
    parts = [f'<svg viewBox="0 0 {LEFT + WIDTH + 150} {bottom + 34}" role="img" '
             f'style="max-width: 100%; height: auto" aria-label="{esc(TITLE)}">',
             f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{TOP + HEIGHT}" stroke="currentColor"/>'
             f'<line x1="{LEFT}" y1="{TOP + HEIGHT}" x2="{LEFT + WIDTH}" y2="{TOP + HEIGHT}" '
             f'stroke="currentColor"/>']
    tick = int(lo) + 1
    while tick < hi:
        parts.append(f'<text x="{LEFT - 6}" y="{Y(tick) + 3:.1f}" font-size="9" text-anchor="end" '
                     f'fill="currentColor">{tick}</text>')
        tick += 1
    for s, _, _ in evals:
        parts.append(f'<text x="{X(s):.1f}" y="{TOP + HEIGHT + 12}" font-size="9" '
                     f'text-anchor="middle" fill="currentColor">{s}</text>')
    parts.append(f'<text x="14" y="{TOP + HEIGHT / 2}" font-size="10" text-anchor="middle" '
                 f'fill="currentColor" transform="rotate(-90 14 {TOP + HEIGHT / 2})">nats per byte</text>')
    train = " ".join(f"{X(s[0]):.1f},{Y(s[2]):.1f}" for s in steps)
    valid = " ".join(f"{X(s):.1f},{Y(v):.1f}" for s, v, _ in evals)
    parts.append(f'<polyline points="{train}" fill="none" stroke="currentColor" stroke-width="1" '
                 f'stroke-dasharray="2 2"/><polyline points="{valid}" fill="none" '
                 f'stroke="currentColor" stroke-width="2"/>')
    for s, v, best in evals:
        parts.append(f'<circle cx="{X(s):.1f}" cy="{Y(v):.1f}" r="3" fill="currentColor">'
                     f'<title>step {s}: validation {v:.4f}{" (best so far)" if best == "true" else ""}'
                     f'</title></circle>')
    parts.append(f'<circle cx="{X(chosen_step):.1f}" cy="{Y(chosen_loss):.1f}" r="8" fill="none" '
                 f'stroke="currentColor"/><text x="{X(chosen_step) - 10:.1f}" '
                 f'y="{Y(chosen_loss) - 12:.1f}" font-size="9" text-anchor="end" fill="currentColor">'
                 f'selected: step {chosen_step}, {chosen_loss:.3f}</text>')
    rate = " ".join(f"{X(s[0]):.1f},{R(s[1]):.1f}" for s in steps)
    parts.append(f'<line x1="{LEFT}" y1="{bottom}" x2="{LEFT + WIDTH}" y2="{bottom}" '
                 f'stroke="currentColor"/><polyline points="{rate}" fill="none" '
                 f'stroke="currentColor" stroke-width="1.5"/>'
                 f'<text x="{LEFT + WIDTH + 6}" y="{R(peak) + 3:.1f}" font-size="9" '
                 f'fill="currentColor">η max {peak:.4f}</text>'
                 f'<text x="{LEFT + WIDTH / 2}" y="{bottom + 24}" font-size="10" text-anchor="middle" '
                 f'fill="currentColor">AdamW steps (lower strip: the learning rate η)</text>'
                 f'<text x="{LEFT + 8}" y="{TOP + 12}" font-size="9" fill="currentColor">thick: '
                 f'validation · dotted: training batch loss</text>')
    parts.append("</svg>")
    text = ["Loss in nats per byte by AdamW step. Validation (fixed examples):"]
    for s, v, best in evals:
        text.append(f"- step {s}: {v:.6f}{' (best so far)' if best == 'true' else ''}")
    text.append(f"Selected: step {chosen_step}, validation {chosen_loss:.6f}.")
    text.append("Training batch loss and learning rate, every step:")
    for s in steps:
        text.append(f"- step {int(s[0])}: loss {s[2]:.6f}, η {s[1]:.6f}, "
                    f"‖g‖ {s[3]:.6f}, clip scale {s[4]:.6f}")
    return "".join(parts), "\n".join(text)
