"""Chapter 18 diagram: the fixture's six positions each read one row of the table, and the
backward pass adds each position's upstream gradient into the row it read; BOS is read
once, EOS never.

Records (snippets/ch18-token-embeddings/trace.txt):
  TABLE|vocab=V|width=D|bos=b|eos=e                                             one
  POS|t=k|id=i|token=c|hidden=[..]|upstream=[..]                                one per position
  ROW|row=r|token=c|reads=k|gradient=[..]                                       one per row reached, and EOS
Everything drawn is read from the records; nothing is recomputed.
"""

from trace_records import TraceFormatError

from diagrams.common import esc, items, need, of_kind

TITLE = "Token embedding: each position reads a row; each row adds up the gradients of its readers"


def render(records):
    tables, positions, rows = of_kind(records, "TABLE"), of_kind(records, "POS"), of_kind(records, "ROW")
    if len(tables) != 1 or not positions or not rows:
        raise TraceFormatError("trace.txt", records[-1].line if records else 1,
                               "expected one TABLE, POS and ROW records")
    vocab, width, bos, eos = need(tables[0], "vocab", "width", "bos", "eos")
    text = [f"Table E [V = {vocab}, d_model = {width}]; BOS is id {bos}, EOS is id {eos}."]
    pos_body = []
    for p in positions:
        t, ident, token, hidden, upstream = need(p, "t", "id", "token", "hidden", "upstream")
        pos_body.append(f'<tr><td class="llmfs-num">{esc(t)}</td><td class="llmfs-num">{esc(ident)}</td>'
                        f'<td class="llmfs-mono">{esc(token)}</td>'
                        f'<td class="llmfs-mono">{esc(", ".join(items(hidden)))}</td>'
                        f'<td class="llmfs-mono">{esc(", ".join(items(upstream)))}</td></tr>')
        text.append(f"- position {t}: id {ident} ({token}) reads E[{ident}] = ({', '.join(items(hidden))}); "
                    f"upstream gradient ({', '.join(items(upstream))})")
    row_body = []
    for r in rows:
        row, token, reads, gradient = need(r, "row", "token", "reads", "gradient")
        if reads == "0":
            why, mark = "read by no position: exactly zero", ' class="llmfs-muted"'
        elif reads == "1":
            why, mark = "one position's upstream row", ""
        else:
            why, mark = f"the sum of {reads} positions' upstream rows", ' class="llmfs-highlight"'
        row_body.append(f'<tr{mark}><td class="llmfs-num">{esc(row)}</td><td class="llmfs-mono">{esc(token)}</td>'
                        f'<td class="llmfs-num">{esc(reads)}</td>'
                        f'<td class="llmfs-mono">{esc(", ".join(items(gradient)))}</td><td>{esc(why)}</td></tr>')
        text.append(f"- row {row} ({token}): read {reads} time(s); ∂L/∂E[{row}] = ({', '.join(items(gradient))}); {why}")
    text.append(f"Every other row of the {vocab} gets exactly zero.")
    forward = ('<table class="llmfs-table"><caption>Forward: each position reads one row</caption>'
               '<thead><tr><th scope="col">t</th><th scope="col">id</th><th scope="col">token</th>'
               '<th scope="col">h_t = E[id]</th><th scope="col">∂L/∂h_t</th></tr></thead><tbody>' +
               "".join(pos_body) + "</tbody></table>")
    backward = ('<table class="llmfs-table"><caption>Backward: rows read twice are outlined</caption>'
                '<thead><tr><th scope="col">row</th><th scope="col">token</th><th scope="col">reads</th>'
                '<th scope="col">∂L/∂E[row]</th><th scope="col">why</th></tr></thead><tbody>' +
                "".join(row_body) + "</tbody></table>")
    return forward + backward, "\n".join(text)
