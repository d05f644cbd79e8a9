"""Chapter 42 diagram: how the blocked kernel's five loops cut a product. One strip per loop
(jc over the columns of b and c, pc over the inner axis, ic over the rows of a and c, then
jr and ir inside one block), each block a rectangle as long as its share of the axis and
labelled with its start and length; then the order in which the (p-block, row-block) pairs
run, and whether each output's sum starts there or resumes from c.

Records (snippets/ch42-making-it-fast/trace.txt):
  BLOCKING|mr=|nr=|kc=|mc=|nc=|n=|k=|m=          the kernel's sizes and the traced product
  AXIS|loop=|length=|block=|starts=a,b,..|lengths=a,b,..   one per loop, outermost first
  STEP|order=|p0=|i0=|sums=start|resume          one per (p-block, row-block) pair, in order
Everything drawn is read from the records; nothing is recomputed.
"""

from trace_records import TraceFormatError

from diagrams.common import esc, need, of_kind, single

TITLE = "The five loops around the micro-kernel, cutting [200,600]·[600,70]"

_AXIS = {"jc": "j: columns of b and c", "pc": "p: the inner axis", "ic": "i: rows of a and c",
         "jr": "j inside one block: tile columns", "ir": "i inside one block: tile rows"}
_SIZE = {"jc": "nc", "pc": "kc", "ic": "mc", "jr": "nr", "ir": "mr"}


def _numbers(record, key):
    (text,) = need(record, key)
    try:
        return [int(x) for x in text.split(",")]
    except ValueError:
        raise TraceFormatError("trace.txt", record.line, f"{key}={text!r} is not a list of integers")


def _strip(loop, length, starts, lengths):
    width, height, x = 600.0, 26.0, 0.0
    parts = []
    for start, part in zip(starts, lengths):
        w = width * part / length
        parts.append(f'<rect x="{x + 0.5:.2f}" y="0.5" width="{max(w - 1.0, 0.5):.2f}" height="{height}" '
                     f'fill="none" stroke="currentColor" stroke-width="1"/>')
        if w > 34:
            parts.append(f'<text x="{x + w / 2:.2f}" y="17" text-anchor="middle" font-size="10" '
                         f'fill="currentColor">{start}+{part}</text>')
        x += w
    label = f"loop {loop}: {len(starts)} block(s) of {length}"
    return (f'<svg viewBox="0 0 {width + 1:.0f} {height + 1:.0f}" width="100%" role="img" '
            f'aria-label="{esc(label)}">{"".join(parts)}</svg>')


def render(records):
    blocking = single(records, "BLOCKING")
    sizes = dict(zip(("mr", "nr", "kc", "mc", "nc", "n", "k", "m"),
                     need(blocking, "mr", "nr", "kc", "mc", "nc", "n", "k", "m")))
    axes = of_kind(records, "AXIS")
    steps = of_kind(records, "STEP")
    if len(axes) != 5 or not steps:
        raise TraceFormatError("trace.txt", records[-1].line if records else 1,
                               "expected five AXIS records and STEP records")
    text = [f"c [{sizes['n']},{sizes['m']}] = a [{sizes['n']},{sizes['k']}] · b "
            f"[{sizes['k']},{sizes['m']}], tile {sizes['mr']} × {sizes['nr']}, "
            f"kc = {sizes['kc']}, mc = {sizes['mc']}, nc = {sizes['nc']}:"]
    rows = []
    for r in axes:
        (loop,) = need(r, "loop")
        if loop not in _AXIS:
            raise TraceFormatError("trace.txt", r.line, f"unknown loop {loop!r}")
        (length_text,) = need(r, "length")
        length = int(length_text)
        starts, lengths = _numbers(r, "starts"), _numbers(r, "lengths")
        if len(starts) != len(lengths) or sum(lengths) != length:
            raise TraceFormatError("trace.txt", r.line, "starts and lengths do not cover the axis")
        rows.append(f'<tr><th>{esc(loop)}</th><td>{esc(_AXIS[loop])}<br>'
                    f'<span class="llmfs-muted">blocks of {_SIZE[loop]} = {esc(need(r, "block")[0])}'
                    f'</span></td><td>{_strip(loop, length, starts, lengths)}</td></tr>')
        text.append(f"- loop {loop} over {_AXIS[loop]} (length {length}, {_SIZE[loop]} = "
                    f"{need(r, 'block')[0]}): blocks " +
                    ", ".join(f"{s}+{n}" for s, n in zip(starts, lengths)))
    table = (f'<table class="llmfs-table"><caption>each loop cuts one axis into blocks (start+length)'
             f'</caption><tbody>{"".join(rows)}</tbody></table>')
    order = []
    text.append("The (p-block, row-block) pairs in the order they run:")
    for r in steps:
        number, p0, i0, sums = need(r, "order", "p0", "i0", "sums")
        if sums not in ("start", "resume"):
            raise TraceFormatError("trace.txt", r.line, f"sums={sums!r}")
        what = "sums start from 0.0" if sums == "start" else "sums resume from c"
        order.append(f"<li>p from {esc(p0)}, rows from {esc(i0)}: <strong>{what}</strong></li>")
        text.append(f"{number}. p from {p0}, rows from {i0}: {what}")
    steps_html = f'<ol>{"".join(order)}</ol>'
    return table + steps_html, "\n".join(text)
