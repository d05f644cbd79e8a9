"""Chapter 11 diagram: the fixture's product a·b, each element as the dot product of a row of
a and a column of b; then, on a larger b, the addresses the first inner loop of each loop
order reads, with the 64-byte cache lines they fall in.

Records (snippets/ch11-matrix-multiplication/trace.txt):
  ENTRY|i=|j=|terms=a*b,a*b,...|value=     one per element of a·b
  WALK|order=i-j-k|rows=8|cols=16|line_doubles=8|b_offsets=0,16,...|lines=0,2,...
                                           one per loop order: b's shape, the doubles per
                                           cache line, the offsets in reading order and
                                           the lines they fall in
Everything drawn is read from the records; nothing is recomputed (the line of each drawn
cell is its column's block of line_doubles, as the header shows; the count of lines is the
record's list).
"""

from trace_records import TraceFormatError

from diagrams.common import esc, need, of_kind

TITLE = "a·b as row-by-column dot products, and how each loop order walks b through cache lines"


def _int(record, key):
    (text,) = need(record, key)
    if not text.isdigit():
        raise TraceFormatError("trace.txt", record.line, f"{key}={text!r} is not an index")
    return int(text)


def render(records):
    entries = of_kind(records, "ENTRY")
    reads = of_kind(records, "WALK")
    if not entries or not reads:
        raise TraceFormatError("trace.txt", records[-1].line if records else 1,
                               "expected ENTRY and WALK records")
    grid = {}
    for r in entries:
        terms, value = need(r, "terms", "value")
        grid[(_int(r, "i"), _int(r, "j"))] = (terms.split(","), value)
    n = 1 + max(i for i, _ in grid)
    m = 1 + max(j for _, j in grid)
    k = len(next(iter(grid.values()))[0])

    text = [f"a·b, a [{n},{k}] times b [{k},{m}]; each element is a dot product of {k} terms:"]
    rows = []
    for i in range(n):
        cells = []
        for j in range(m):
            if (i, j) not in grid:
                raise TraceFormatError("trace.txt", entries[-1].line, f"no ENTRY for i={i}, j={j}")
            terms, value = grid[(i, j)]
            shown = " + ".join(t.replace("*", "·") for t in terms)
            cells.append(f'<td class="llmfs-num"><strong>{esc(value)}</strong><br>'
                         f'<span class="llmfs-muted llmfs-mono">{esc(shown)}</span></td>')
            text.append(f"- c[{i},{j}] = {shown} = {value}")
        rows.append(f'<tr><th>row {i}</th>{"".join(cells)}</tr>')
    head = "".join(f"<th>column {j}</th>" for j in range(m))
    product = (f'<table class="llmfs-table"><caption>c = a·b, [{n},{m}]</caption><thead><tr><th></th>'
               f'{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>')

    walks = []
    for r in reads:
        order, offsets, lines = need(r, "order", "b_offsets", "lines")
        rows, cols, per_line = _int(r, "rows"), _int(r, "cols"), _int(r, "line_doubles")
        if per_line == 0 or cols % per_line:
            raise TraceFormatError("trace.txt", r.line, "cols must be a multiple of line_doubles")
        seq = [int(x) for x in offsets.split(",")]
        lines = lines.split(",")
        step = {off: number for number, off in enumerate(seq, start=1)}
        # One header cell per cache line of a row: the bytes of the row it holds (a row is
        # cols/per_line lines; a border marks where each line starts).
        heads = "".join(f'<th colspan="{per_line}" class="llmfs-line-start">bytes {q * per_line * 8}–'
                        f'{(q + 1) * per_line * 8 - 1}</th>' for q in range(cols // per_line))
        body = []
        for p in range(rows):
            tds = []
            for j in range(cols):
                off = p * cols + j
                mark = f"<strong>{step[off]}</strong>" if off in step else '<span class="llmfs-muted">·</span>'
                edge = ' class="llmfs-num llmfs-line-start"' if j % per_line == 0 else ' class="llmfs-num"'
                tds.append(f"<td{edge}>{mark}</td>")
            body.append(f'<tr><th>{p}</th>{"".join(tds)}</tr>')
        # A table's caption is as wide as the table: keep it short (the text alternative
        # lists the offsets and lines).
        walks.append(f'<table class="llmfs-table llmfs-walk"><caption>{esc(order)}: {len(seq)} reads, '
                     f'{len(lines)} cache lines</caption><thead><tr><th>p</th>{heads}</tr></thead>'
                     f'<tbody>{"".join(body)}</tbody></table>')
        text.append(f"{order}, b of [{rows},{cols}] doubles stored row by row, {per_line} doubles "
                    f"({per_line * 8} bytes) per cache line: the first inner loop reads offsets "
                    f"{', '.join(str(x) for x in seq)}, which lie in cache lines {', '.join(lines)} "
                    f"({len(seq)} reads from {len(lines)} lines)")
    text.append("i-j-k walks down a column of b: each read is a whole row further on and lands in a "
                "new cache line. i-k-j walks along a row: consecutive reads share a line, and every "
                "number of each line it loads is used.")
    return product + "".join(walks), "\n".join(text)
