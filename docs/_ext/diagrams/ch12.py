"""Chapter 12 diagram: each fixture row through the stable softmax, a bar per entry of
height p_j, beside what the naive formula exp(x_j) / Σ exp(x_k) gives on the same row.

Records (snippets/ch12-stable-softmax/trace.txt):
  ENTRY|row=NAME|j=J|logit=x|shifted=x − m|exp=exp(x − m)|softmax=p|naive=naive p
  ROW|row=NAME|sum=Σ p|naive_sum=Σ naive p                 one after each row's entries
Everything drawn is read from the records; nothing is recomputed (labels under the bars
round the recorded values to four decimals; the text alternative gives them as recorded). A naive value that is
not a number (nan) is drawn as a hatched box marked ✕ and the word NaN, never by colour.
"""

import math

from trace_records import TraceFormatError

from diagrams.common import esc, need, number

TITLE = "Stable softmax against the naive formula on the chapter's five rows"

BAR_W, BAR_H, GAP = 44.0, 70.0, 10.0
ROW_H = BAR_H + 64.0
LEFT = 96.0


def _rows(records):
    """[(name, [entry records], row record)] in file order."""
    rows, pending = [], []
    for r in records:
        if r.kind == "ENTRY":
            pending.append(r)
        elif r.kind == "ROW":
            (name,) = need(r, "row")
            if not pending or any(need(e, "row")[0] != name for e in pending):
                raise TraceFormatError("trace.txt", r.line, f"ROW {name} without its ENTRY records")
            rows.append((name, pending, r))
            pending = []
    if pending:
        raise TraceFormatError("trace.txt", pending[-1].line, "ENTRY records without a ROW")
    if not rows:
        raise TraceFormatError("trace.txt", 1, "expected ENTRY and ROW records")
    return rows


def _bar(x, top, value, label, hatched):
    """A bar of height value·BAR_H (value in [0, 1]) in an outline; hatched with ✕ if NaN."""
    parts = [f'<rect x="{x:.1f}" y="{top:.1f}" width="{BAR_W}" height="{BAR_H}" fill="none" '
             f'stroke="currentColor" stroke-width="0.6" opacity="0.6"/>']
    if hatched:
        parts.append(f'<rect x="{x:.1f}" y="{top:.1f}" width="{BAR_W}" height="{BAR_H}" '
                     f'fill="url(#ch12-hatch)"/>'
                     f'<text x="{x + BAR_W / 2:.1f}" y="{top + BAR_H / 2 + 4:.1f}" font-size="12" '
                     f'text-anchor="middle" fill="currentColor">✕</text>')
    else:
        h = BAR_H * min(max(value, 0.0), 1.0)
        parts.append(f'<rect x="{x:.1f}" y="{top + BAR_H - h:.1f}" width="{BAR_W}" '
                     f'height="{h:.2f}" fill="currentColor"><title>{esc(label)}</title></rect>')
    return "".join(parts)


def render(records):
    rows = _rows(records)
    widest = max(len(entries) for _, entries, _ in rows)
    panel = widest * (BAR_W + GAP)
    width = LEFT + 2 * panel + 40
    parts = [f'<svg viewBox="0 0 {width:.0f} {ROW_H * len(rows) + 24:.0f}" role="img" '
             f'style="max-width: 100%; height: auto" aria-label="{esc(TITLE)}">',
             '<defs><pattern id="ch12-hatch" width="6" height="6" patternUnits="userSpaceOnUse" '
             'patternTransform="rotate(45)"><line x1="0" y1="0" x2="0" y2="6" '
             'stroke="currentColor" stroke-width="1" opacity="0.5"/></pattern></defs>',
             f'<text x="{LEFT + panel / 2:.1f}" y="12" font-size="10" text-anchor="middle" '
             f'fill="currentColor">stable: exp(x − m) / Σ</text>',
             f'<text x="{LEFT + panel + 20 + panel / 2:.1f}" y="12" font-size="10" '
             f'text-anchor="middle" fill="currentColor">naive: exp(x) / Σ</text>']
    text = ["Each row of logits through the stable softmax (subtract the row maximum m) and "
            "through the naive formula:"]
    for i, (name, entries, row) in enumerate(rows):
        top = 24 + i * ROW_H
        parts.append(f'<text x="4" y="{top + BAR_H / 2:.1f}" font-size="11" '
                     f'fill="currentColor">{esc(name)}</text>')
        for j, e in enumerate(entries):
            logit, shifted, expv, p = (need(e, k)[0] for k in ("logit", "shifted", "exp", "softmax"))
            (naive,) = need(e, "naive")
            pv, nv = number(e, "softmax"), number(e, "naive")
            x = LEFT + j * (BAR_W + GAP)
            parts.append(_bar(x, top, pv, f"{name} entry {j}: p = {p}", False))
            parts.append(f'<text x="{x + BAR_W / 2:.1f}" y="{top + BAR_H + 12:.1f}" font-size="8" '
                         f'text-anchor="middle" fill="currentColor">{pv:.4f}</text>'
                         f'<text x="{x + BAR_W / 2:.1f}" y="{top + BAR_H + 24:.1f}" font-size="8" '
                         f'text-anchor="middle" fill="currentColor">x = {number(e, "logit"):g}</text>')
            xn = LEFT + panel + 20 + j * (BAR_W + GAP)
            bad = math.isnan(nv)
            parts.append(_bar(xn, top, nv, f"{name} entry {j}: naive p = {naive}", bad))
            parts.append(f'<text x="{xn + BAR_W / 2:.1f}" y="{top + BAR_H + 12:.1f}" font-size="8" '
                         f'text-anchor="middle" fill="currentColor">'
                         f'{"NaN" if bad else f"{nv:.4f}"}</text>')
            text.append(f"- {name}, entry {j}: logit {logit}, x − m = {shifted}, exp(x − m) = {expv}, "
                        f"stable p = {p}; naive p = {'NaN (not a number)' if bad else naive}")
        s, ns = need(row, "sum", "naive_sum")
        parts.append(f'<text x="{LEFT:.1f}" y="{top + BAR_H + 38:.1f}" font-size="9" '
                     f'fill="currentColor">sum {esc(s)}</text>'
                     f'<text x="{LEFT + panel + 20:.1f}" y="{top + BAR_H + 38:.1f}" font-size="9" '
                     f'fill="currentColor">sum {"NaN" if ns == "nan" else esc(ns)}</text>')
        text.append(f"  {name}: the stable probabilities sum to {s}; the naive ones to "
                    f"{'NaN' if ns == 'nan' else ns}.")
    parts.append("</svg>")
    text.append("Drawn as bars of height p (filled, in an outline of height 1), the stable row "
                "on the left and the naive row on the right; a naive NaN is a hatched box "
                "marked ✕ and labelled NaN.")
    return "".join(parts), "\n".join(text)
