"""Chapter 10 diagram: row [3] + column [2,1] broadcast to [2,3], each output element with
the offsets it read in both operands (stride 0 on every stretched axis), and sum_to(x, [3])
adding the stretched axis back.

Records (snippets/ch10-broadcasting-and-reductions/trace.txt):
  OPERAND|name=row|shape=[3]|strides=0,1|values=10,20,30      one per operand of row + column
  CELL|i=|j=|row_offset=|column_offset=|value=                one per output element
  SUMTO|j=|terms=a,b|total=                                   one per element of sum_to(x, [3])
Everything drawn is read from the records; nothing is recomputed.
"""

from trace_records import TraceFormatError

from diagrams.common import esc, need, of_kind

TITLE = "Broadcasting reads the same element again (stride 0); sum_to adds the copies back"


def _int(record, key):
    (text,) = need(record, key)
    if not text.isdigit():
        raise TraceFormatError("trace.txt", record.line, f"{key}={text!r} is not an index")
    return int(text)


def _operands(records):
    found = {}
    for r in of_kind(records, "OPERAND"):
        name, shape, strides, values = need(r, "name", "shape", "strides", "values")
        found[name] = (shape, strides, values.split(","), r)
    for name in ("row", "column"):
        if name not in found:
            line = records[0].line if records else 1
            raise TraceFormatError("trace.txt", line, f"no OPERAND record for the {name}")
    return found


def render(records):
    operands = _operands(records)
    cells = of_kind(records, "CELL")
    if not cells:
        raise TraceFormatError("trace.txt", records[-1].line if records else 1, "no CELL records")
    grid = {}
    for c in cells:
        grid[(_int(c, "i"), _int(c, "j"))] = (_int(c, "row_offset"), _int(c, "column_offset"),
                                              need(c, "value")[0])
    rows = 1 + max(i for i, _ in grid)
    cols = 1 + max(j for _, j in grid)
    row_shape, row_strides, row_values, _ = operands["row"]
    col_shape, col_strides, col_values, _ = operands["column"]

    head = "".join(f'<th class="llmfs-num">row[{j}] = {esc(row_values[j])}</th>'
                   for j in range(len(row_values)))
    body = []
    text = [f"row {row_shape} (strides {row_strides}) + column {col_shape} (strides {col_strides}) "
            f"= a [{rows},{cols}] result; each element names the offsets it read:"]
    for i in range(rows):
        tds = []
        for j in range(cols):
            if (i, j) not in grid:
                raise TraceFormatError("trace.txt", cells[-1].line, f"no CELL record for i={i}, j={j}")
            r, c, value = grid[(i, j)]
            tds.append(f'<td class="llmfs-num"><strong>{esc(value)}</strong><br>'
                       f'<span class="llmfs-muted llmfs-mono">row[{r}] + column[{c}]</span></td>')
            text.append(f"- out[{i},{j}] = row[{r}] + column[{c}] = {value}")
        body.append(f'<tr><th class="llmfs-num">column[{i}] = {esc(col_values[i])}</th>{"".join(tds)}</tr>')
    table = (f'<table class="llmfs-table"><caption>row {esc(row_shape)}, strides '
             f'({esc(row_strides)}), plus column {esc(col_shape)}, strides ({esc(col_strides)})'
             f'</caption><thead><tr><th></th>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>')

    sums = of_kind(records, "SUMTO")
    sum_rows = []
    text.append("sum_to(x, [3]) adds the stretched axis back, one total per column of x:")
    for s in sums:
        j, (terms, total) = _int(s, "j"), need(s, "terms", "total")
        sum_rows.append(f'<tr><td class="llmfs-num">{j}</td><td class="llmfs-mono">'
                        f'{esc(" + ".join(terms.split(",")))}</td><td class="llmfs-num">{esc(total)}</td></tr>')
        text.append(f"- element {j}: {' + '.join(terms.split(','))} = {total}")
    fold = ('<table class="llmfs-table"><caption>sum_to(x, [3]): the adjoint, column by column'
            '</caption><thead><tr><th>element</th><th>terms added</th><th>total</th></tr></thead>'
            f'<tbody>{"".join(sum_rows)}</tbody></table>')
    text.append("Reading down a column of the first table, the row's offset stays the same (its stride "
                "on axis 0 is 0); reading across a row, the column's offset stays the same.")
    return table + fold, "\n".join(text)
