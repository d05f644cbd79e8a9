"""Chapter 9 diagram: the (0,2) transpose of the [2,3,4] tensor as a view. The storage row
of 24 cells stays where it is; under it, the view's 24 positions in its own row-major order,
each labelled with the storage offset it reads, and a jump line for every step that is not
one cell to the right — the reason the view is not contiguous.

Records (snippets/ch09-tensor-views/trace.txt):
  VIEW|axes=0,2|shape=4,3,2|strides=1,4,12|row_major=false   once
  READ|position=k|storage_offset=o                            one per element of the view
Everything drawn is read from the records; nothing is recomputed.
"""

from trace_records import TraceFormatError

from diagrams.common import esc, need, of_kind, single

TITLE = "A transposed view reads the same storage in another order: the steps are not one cell"

CELL = 24.0
LEFT = 12.0
STORE_TOP = 24.0
VIEW_TOP = 110.0


def _int(record, key):
    (text,) = need(record, key)
    try:
        return int(text)
    except ValueError:
        raise TraceFormatError("trace.txt", record.line, f"{key}={text!r} is not an integer")


def render(records):
    view = single(records, "VIEW")
    axes, shape, strides, row_major = need(view, "axes", "shape", "strides", "row_major")
    reads = of_kind(records, "READ")
    if not reads:
        raise TraceFormatError("trace.txt", view.line, "no READ records")
    pairs = [(_int(r, "position"), _int(r, "storage_offset")) for r in reads]
    n = len(pairs)
    width = LEFT + n * CELL + 12
    height = VIEW_TOP + CELL + 44
    parts = [f'<svg viewBox="0 0 {width:.0f} {height:.0f}" role="img" '
             f'style="max-width: 100%; height: auto" aria-label="{esc(TITLE)}">']
    parts.append(f'<text x="{LEFT}" y="{STORE_TOP - 8}" font-size="10" fill="currentColor">'
                 f'storage (unchanged): offsets 0 … {n - 1}</text>')
    for k in range(n):
        x = LEFT + k * CELL
        parts.append(f'<rect x="{x:.1f}" y="{STORE_TOP}" width="{CELL}" height="{CELL}" fill="none" '
                     f'stroke="currentColor" stroke-width="0.6"/>'
                     f'<text x="{x + CELL / 2:.1f}" y="{STORE_TOP + CELL / 2 + 3:.1f}" font-size="9" '
                     f'text-anchor="middle" fill="currentColor">{k}</text>')
    parts.append(f'<text x="{LEFT}" y="{VIEW_TOP + CELL + 16}" font-size="10" fill="currentColor">'
                 f'view [{esc(shape)}], strides [{esc(strides)}], row-major: {esc(row_major)} — '
                 f'each position shows the offset it reads</text>')
    for position, offset in pairs:
        x = LEFT + position * CELL
        parts.append(f'<rect x="{x:.1f}" y="{VIEW_TOP}" width="{CELL}" height="{CELL}" fill="none" '
                     f'stroke="currentColor" stroke-width="1.2"/>'
                     f'<text x="{x + CELL / 2:.1f}" y="{VIEW_TOP + CELL / 2 + 3:.1f}" font-size="9" '
                     f'text-anchor="middle" fill="currentColor">{offset}</text>'
                     f'<line x1="{x + CELL / 2:.1f}" y1="{VIEW_TOP:.1f}" '
                     f'x2="{LEFT + offset * CELL + CELL / 2:.1f}" y2="{STORE_TOP + CELL:.1f}" '
                     f'stroke="currentColor" stroke-width="0.5" opacity="0.6">'
                     f'<title>view position {position} reads storage offset {offset}</title></line>')
    steps = [b - a for (_, a), (_, b) in zip(pairs, pairs[1:])]
    parts.append(f'<text x="{LEFT}" y="{VIEW_TOP + CELL + 32}" font-size="10" fill="currentColor">'
                 f'steps between neighbours: {esc(", ".join(sorted({f"{s:+d}" for s in steps})))}'
                 f' (a contiguous view steps +1 everywhere)</text>')
    parts.append("</svg>")
    text = [f"The transpose of axes {axes} as a view: shape [{shape}], strides [{strides}], "
            f"row-major: {row_major}.",
            f"Storage: {n} cells, offsets 0 to {n - 1}, not moved.",
            "The view's positions in its own row-major order, each with the storage offset it reads:"]
    text += [f"- position {p}: offset {o}" for p, o in pairs]
    text.append("Steps between neighbouring positions: " + ", ".join(f"{s:+d}" for s in steps) + ".")
    return "".join(parts), "\n".join(text)
