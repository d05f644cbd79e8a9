"""Chapter 11 diagram: the fixture's product a·b, each element as the dot product of a row of
a and a column of b, and the order in which the first inner loop of each loop order reads b.

Records (snippets/ch11-matrix-multiplication/trace.txt):
  ENTRY|i=|j=|terms=a*b,a*b,...|value=     one per element of a·b
  READS|order=i-j-k|b_offsets=0,2,4        one per loop order: b's offsets, in reading order
Everything drawn is read from the records; b's layout (k rows of m) is read off the ENTRY
records (k terms per entry, m columns); nothing is recomputed.
"""

from trace_records import TraceFormatError

from diagrams.common import esc, need, of_kind

TITLE = "a·b as row-by-column dot products, and how each loop order walks b"


def _int(record, key):
    (text,) = need(record, key)
    if not text.isdigit():
        raise TraceFormatError("trace.txt", record.line, f"{key}={text!r} is not an index")
    return int(text)


def render(records):
    entries = of_kind(records, "ENTRY")
    reads = of_kind(records, "READS")
    if not entries or not reads:
        raise TraceFormatError("trace.txt", records[-1].line if records else 1,
                               "expected ENTRY and READS records")
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
        order, offsets = need(r, "order", "b_offsets")
        seq = [int(x) for x in offsets.split(",")]
        step = {off: number for number, off in enumerate(seq, start=1)}
        body = []
        for p in range(k):
            tds = []
            for j in range(m):
                off = p * m + j
                mark = f"<strong>{step[off]}</strong>" if off in step else '<span class="llmfs-muted">·</span>'
                tds.append(f'<td class="llmfs-num">{mark}</td>')
            body.append(f'<tr><th>b[{p},:]</th>{"".join(tds)}</tr>')
        # A table's caption is as wide as the table: keep it short (the offsets are the
        # numbered cells, and the text alternative lists them)
        walks.append(f'<table class="llmfs-table"><caption>{esc(order)}: b in reading order</caption>'
                     f'<tbody>{"".join(body)}</tbody></table>')
        text.append(f"{order}: the first inner loop reads b at offsets {', '.join(str(x) for x in seq)}"
                    f" (b is stored row by row, {m} per row)")
    text.append("i-j-k walks down a column of b, jumping a whole row each step; i-k-j walks along a "
                "row, one element at a time.")
    return product + "".join(walks), "\n".join(text)
