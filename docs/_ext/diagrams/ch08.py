"""Chapter 8 diagram: the [2,3,4] tensor as two blocks of 3x4 cells (the index view) above
its 24 storage cells in a row (the memory view), with an arrow from under each predicted
index's (outlined) cell to the cell its offset names.

Records (snippets/ch08-tensor-storage/trace.txt):
  SHAPE|shape=2,3,4|strides=12,4,1                      once
  CELL|index=i0,i1,i2|offset=o|value=v                  one per element, storage order
  PICK|index=i0,i1,i2|terms=i0*12+i1*4+i2*1|offset=o    one per predicted index
Everything drawn is read from the records; nothing is recomputed (positions come from the
index and the offset as printed).
"""

from trace_records import TraceFormatError

from diagrams.common import esc, need, of_kind, single

TITLE = "Index view and memory view of a [2,3,4] tensor: each index lands on one offset"

CELL = 26.0        # side of one cell in SVG units
GRID_TOP = 28.0    # top of the index view
BLOCK_GAP = 30.0   # space between the blocks of axis 0
STRIP_GAP = 70.0   # vertical space between the index view and the memory strip
LEFT = 12.0


def _sizes(record, key):
    (text,) = need(record, key)
    try:
        return [int(part) for part in text.split(",")] if text else []
    except ValueError:
        raise TraceFormatError("trace.txt", record.line, f"{key}={text!r} is not a list of integers")


def render(records):
    shape_record = single(records, "SHAPE")
    dims = _sizes(shape_record, "shape")
    strides = _sizes(shape_record, "strides")
    if len(dims) != 3:
        raise TraceFormatError("trace.txt", shape_record.line, "the diagram draws rank-3 shapes")
    blocks, rows, cols = dims
    cells = of_kind(records, "CELL")
    picks = of_kind(records, "PICK")
    if not cells:
        raise TraceFormatError("trace.txt", shape_record.line, "no CELL records")

    block_width = cols * CELL
    strip_top = GRID_TOP + rows * CELL + STRIP_GAP
    width = max(LEFT + blocks * block_width + (blocks - 1) * BLOCK_GAP, LEFT + len(cells) * CELL) + 12
    height = strip_top + CELL + 34

    def grid_xy(index):
        b, r, c = index
        return LEFT + b * (block_width + BLOCK_GAP) + c * CELL, GRID_TOP + r * CELL

    def strip_x(offset):
        return LEFT + offset * CELL

    picked = {tuple(_sizes(p, "index")) for p in picks}
    parts = [f'<svg viewBox="0 0 {width:.0f} {height:.0f}" role="img" '
             f'style="max-width: 100%; height: auto" aria-label="{esc(TITLE)}">',
             '<defs><marker id="ch08-head" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="6" '
             'markerHeight="6" orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="currentColor"/>'
             '</marker></defs>']
    for b in range(blocks):
        x = LEFT + b * (block_width + BLOCK_GAP)
        parts.append(f'<text x="{x:.1f}" y="{GRID_TOP - 8:.1f}" font-size="10" '
                     f'fill="currentColor">block i0 = {b} (index view)</text>')
    for cell in cells:
        index = tuple(_sizes(cell, "index"))
        offset, value = need(cell, "offset", "value")
        x, y = grid_xy(index)
        bold = index in picked
        parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{CELL}" height="{CELL}" fill="none" '
                     f'stroke="currentColor" stroke-width="{2.2 if bold else 0.6}"/>'
                     f'<text x="{x + CELL / 2:.1f}" y="{y + CELL / 2 + 3:.1f}" font-size="9" '
                     f'text-anchor="middle" fill="currentColor">{esc(offset)}</text>')
        sx = strip_x(int(offset))
        parts.append(f'<rect x="{sx:.1f}" y="{strip_top:.1f}" width="{CELL}" height="{CELL}" '
                     f'fill="none" stroke="currentColor" stroke-width="{2.2 if bold else 0.6}"/>'
                     f'<text x="{sx + CELL / 2:.1f}" y="{strip_top + CELL / 2 + 3:.1f}" font-size="9" '
                     f'text-anchor="middle" fill="currentColor">{esc(value.split(".")[0])}</text>')
    parts.append(f'<text x="{LEFT:.1f}" y="{strip_top + CELL + 14:.1f}" font-size="10" '
                 f'fill="currentColor">memory view: offsets 0 … {len(cells) - 1}, '
                 f'strides {esc(",".join(map(str, strides)))}</text>')
    for pick in picks:
        index = tuple(_sizes(pick, "index"))
        terms, offset = need(pick, "terms", "offset")
        x, y = grid_xy(index)
        sx = strip_x(int(offset))
        # From under the outlined cell's column, below the whole block: an arrow from the cell
        # itself crossed the numbers of the cells beneath it.
        parts.append(f'<line x1="{x + CELL / 2:.1f}" y1="{GRID_TOP + rows * CELL + 2:.1f}" x2="{sx + CELL / 2:.1f}" '
                     f'y2="{strip_top - 2:.1f}" stroke="currentColor" stroke-width="1.2" '
                     f'stroke-dasharray="4 2" marker-end="url(#ch08-head)">'
                     f'<title>({esc(",".join(map(str, index)))}) -> {esc(terms)} = {esc(offset)}'
                     f'</title></line>')
    parts.append("</svg>")

    text = [f"A tensor of shape [{','.join(map(str, dims))}] with strides "
            f"[{','.join(map(str, strides))}], drawn twice."]
    text.append(f"Index view: {blocks} blocks (axis 0), each {rows} rows (axis 1) of {cols} "
                "cells (axis 2); each cell shows its offset:")
    for b in range(blocks):
        for r in range(rows):
            row = [need(c, "offset")[0] for c in cells if tuple(_sizes(c, "index"))[:2] == (b, r)]
            text.append(f"- block {b}, row {r}: offsets {', '.join(row)}")
    text.append(f"Memory view: one row of {len(cells)} cells holding the values "
                f"{', '.join(need(c, 'value')[0].split('.')[0] for c in cells)}.")
    for pick in picks:
        index, terms, offset = need(pick, "index", "terms", "offset")
        text.append(f"- arrow: index ({index}) -> {terms} = offset {offset} (outlined in both views; the "
                    f"arrow starts under the outlined cell's column)")
    return "".join(parts), "\n".join(text)
