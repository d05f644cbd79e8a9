"""Chapter 13 diagram: the error of the central difference of exp at x = 1 against the
step, on log axes, with the two terms of the error model and the model's optimum.

Records (snippets/ch13-gradient-checking/trace.txt):
  STEP|step=δ|error=|numeric − e||truncation=h²·e/6|rounding=ε·e/(2h)   one per step
  BEST|step=δ|error=...                                                  the smallest error
  OPTIMUM|step=(3ε/2)^(1/3)|bound=...                                    the model's best step
Everything drawn is read from the records; nothing is recomputed (log10 only places a
value on the axis).
"""

import math

from trace_records import TraceFormatError

from diagrams.common import esc, need, of_kind, single

TITLE = "Central-difference error of exp at 1 against the step: truncation falls, rounding rises"

# Plot area in SVG units, and the decades shown on each axis.
LEFT, TOP, WIDTH, HEIGHT = 58.0, 12.0, 440.0, 250.0
X_DECADES = (-13, -1)
Y_DECADES = (-16, -1)


def _x(value):
    low, high = X_DECADES
    return LEFT + (math.log10(value) - low) / (high - low) * WIDTH


def _y(value):
    low, high = Y_DECADES
    return TOP + (high - math.log10(value)) / (high - low) * HEIGHT


def _number(record, key):
    (text,) = need(record, key)
    try:
        value = float(text)
    except ValueError:
        raise TraceFormatError("trace.txt", record.line, f"{key}={text!r} is not a number")
    if not value > 0.0:
        raise TraceFormatError("trace.txt", record.line, f"{key}={text} must be positive for a log axis")
    return value


def _axes():
    parts = [f'<rect x="{LEFT}" y="{TOP}" width="{WIDTH}" height="{HEIGHT}" fill="none" '
             f'stroke="currentColor" stroke-width="0.6" opacity="0.6"/>']
    for decade in range(X_DECADES[0], X_DECADES[1] + 1, 2):
        x = _x(10.0 ** decade)
        parts.append(f'<line x1="{x:.2f}" y1="{TOP + HEIGHT}" x2="{x:.2f}" y2="{TOP + HEIGHT + 4}" '
                     f'stroke="currentColor" stroke-width="0.6"/>'
                     f'<text x="{x:.2f}" y="{TOP + HEIGHT + 15}" font-size="9" text-anchor="middle" '
                     f'fill="currentColor">1e{decade}</text>')
    for decade in range(Y_DECADES[0], Y_DECADES[1] + 1, 3):
        y = _y(10.0 ** decade)
        parts.append(f'<line x1="{LEFT - 4}" y1="{y:.2f}" x2="{LEFT}" y2="{y:.2f}" '
                     f'stroke="currentColor" stroke-width="0.6"/>'
                     f'<text x="{LEFT - 6}" y="{y + 3:.2f}" font-size="9" text-anchor="end" '
                     f'fill="currentColor">1e{decade}</text>')
    parts.append(f'<text x="{LEFT + WIDTH / 2}" y="{TOP + HEIGHT + 30}" font-size="10" '
                 f'text-anchor="middle" fill="currentColor">step δ = h (log scale)</text>'
                 f'<text x="12" y="{TOP + HEIGHT / 2}" font-size="10" text-anchor="middle" '
                 f'fill="currentColor" transform="rotate(-90 12 {TOP + HEIGHT / 2})">'
                 f'|numeric − e| (log scale)</text>')
    return "".join(parts)


def _polyline(points, dash, width):
    coords = " ".join(f"{_x(s):.2f},{_y(v):.2f}" for s, v in points)
    dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
    return (f'<polyline points="{coords}" fill="none" stroke="currentColor" '
            f'stroke-width="{width}"{dash_attr} clip-path="url(#ch13-plot)"/>')


def _legend():
    # Bottom left of the plot: no curve reaches it (the truncation term is below 1e-16 for
    # steps under 1e-8, the errors and the rounding bound are above 1e-10 there).
    entries = [("", 1.8, "measured error (circles)"), ("5 3", 1.0, "truncation h²·e/6"),
               ("1.5 2.5", 1.0, "rounding ε·e/(2h)"), ("8 3 2 3", 0.8, "model optimum")]
    parts = []
    for row, (dash, width, label) in enumerate(entries):
        y = TOP + HEIGHT - 50 + 13 * row
        x = LEFT + 8
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        parts.append(f'<line x1="{x}" y1="{y}" x2="{x + 24}" y2="{y}" stroke="currentColor" '
                     f'stroke-width="{width}"{dash_attr}/>'
                     f'<text x="{x + 30}" y="{y + 3}" font-size="9" fill="currentColor">{esc(label)}</text>')
    return "".join(parts)


def render(records):
    steps = of_kind(records, "STEP")
    if len(steps) < 2:
        raise TraceFormatError("trace.txt", records[-1].line if records else 1,
                               "expected at least two STEP records")
    rows = []
    for r in steps:
        rows.append((_number(r, "step"), _number(r, "error"), _number(r, "truncation"),
                     _number(r, "rounding"), r))
    best = single(records, "BEST")
    optimum = single(records, "OPTIMUM")
    best_step, best_error = _number(best, "step"), _number(best, "error")
    optimum_step, optimum_bound = _number(optimum, "step"), _number(optimum, "bound")

    parts = [f'<svg viewBox="0 0 {LEFT + WIDTH + 12} {TOP + HEIGHT + 40}" role="img" '
             f'style="max-width: 100%; height: auto" aria-label="{esc(TITLE)}">',
             f'<defs><clipPath id="ch13-plot"><rect x="{LEFT}" y="{TOP}" width="{WIDTH}" '
             f'height="{HEIGHT}"/></clipPath></defs>', _axes()]
    parts.append(_polyline([(s, t) for s, _, t, _, _ in rows], "5 3", 1.0))
    parts.append(_polyline([(s, q) for s, _, _, q, _ in rows], "1.5 2.5", 1.0))
    parts.append(_polyline([(s, e) for s, e, _, _, _ in rows], "", 1.8))
    for s, e, _, _, _ in rows:
        parts.append(f'<circle cx="{_x(s):.2f}" cy="{_y(e):.2f}" r="3" fill="currentColor">'
                     f'<title>step {s:.0e}: error {e:.2e}</title></circle>')
    bx, by = _x(best_step), _y(best_error)
    parts.append(f'<rect x="{bx - 6:.2f}" y="{by - 6:.2f}" width="12" height="12" fill="none" '
                 f'stroke="currentColor" stroke-width="1.4"/>'
                 f'<text x="{bx + 10:.2f}" y="{by + 20:.2f}" font-size="9" text-anchor="end" '
                 f'fill="currentColor">smallest: {best_error:.1e} at {best_step:.0e}</text>')
    ox = _x(optimum_step)
    parts.append(f'<line x1="{ox:.2f}" y1="{TOP}" x2="{ox:.2f}" y2="{TOP + HEIGHT}" '
                 f'stroke="currentColor" stroke-width="0.8" stroke-dasharray="8 3 2 3"/>'
                 f'<text x="{ox + 4:.2f}" y="{TOP + 12}" font-size="9" '
                 f'fill="currentColor">(3ε/2)^(1/3) = {optimum_step:.2e}</text>')
    parts.append(_legend())
    parts.append("</svg>")

    text = ["Error of the central difference of exp at x = 1, by step (h = δ since |x| ≤ 1):"]
    for s, e, t, q, _ in rows:
        dominant = "truncation" if t > q else "rounding"
        text.append(f"- step {s:.0e}: measured error {e:.3e}; model terms: truncation "
                    f"{t:.3e}, rounding bound {q:.3e} ({dominant} dominates)")
    text.append(f"Smallest measured error: {best_error:.3e} at step {best_step:.0e}.")
    text.append(f"The model's optimum step (3ε/2)^(1/3) = {optimum_step:.3e}, where its bound is "
                f"{optimum_bound:.3e}.")
    text.append("Drawn on log axes: the measured errors as circles joined by a solid line, the "
                "truncation term dashed, the rounding bound dotted, the optimum as a dash-dot "
                "vertical line, and the smallest measured error inside a square.")
    return "".join(parts), "\n".join(text)
