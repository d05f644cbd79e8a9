"""Chapter 16 diagram: the fixture's two positions through embedding lookup, logits and the
fused cross-entropy, and the scatter-add that brings each position's gradient back to the
table row it read.

Records (snippets/ch16-model-autodiff-ops/trace.txt):
  FIXTURE|vocab=3|width=2|positions=2|loss=L                                     one
  POS|t=0|token=i|hidden=[..]|logits=[..]|target=j|logit_gradient=[..]           one per position
  ROW|row=r|uses=k|gradient=[..]                                                 one per table row
Everything drawn is read from the records; nothing is recomputed.
"""

from trace_records import TraceFormatError

from diagrams.common import esc, items, need, of_kind

TITLE = "Embedding, logits and fused cross-entropy forward; softmax − one-hot and scatter-add backward"


def _cells(values, highlight=None):
    out = []
    for k, v in enumerate(values):
        mark = ' class="llmfs-num llmfs-highlight"' if k == highlight else ' class="llmfs-num"'
        out.append(f"<td{mark}>{esc(v)}</td>")
    return "".join(out)


def render(records):
    fixtures, positions, rows = of_kind(records, "FIXTURE"), of_kind(records, "POS"), of_kind(records, "ROW")
    if len(fixtures) != 1 or not positions or not rows:
        raise TraceFormatError("trace.txt", records[-1].line if records else 1,
                               "expected one FIXTURE, POS and ROW records")
    vocab, width, count, loss = need(fixtures[0], "vocab", "width", "positions", "loss")
    if len(positions) != int(count):
        raise TraceFormatError("trace.txt", fixtures[0].line,
                               f"FIXTURE says {count} positions, found {len(positions)} POS records")
    text = [f"V = {vocab} tokens, D = {width}, {count} positions; mean cross-entropy L = {loss}."]
    body = []
    for p in positions:
        t, token, hidden, logits, target, gradient = need(
            p, "t", "token", "hidden", "logits", "target", "logit_gradient")
        z, g = items(logits), items(gradient)
        if len(z) != int(vocab) or len(g) != int(vocab):
            raise TraceFormatError("trace.txt", p.line, f"expected {vocab} logits and gradients")
        j = int(target)
        body.append(f'<tr><td class="llmfs-num">{esc(t)}</td><td class="llmfs-num">{esc(token)}</td>'
                    f'<td class="llmfs-mono">{esc(", ".join(items(hidden)))}</td>{_cells(z, j)}'
                    f'<td class="llmfs-num">{esc(target)}</td>{_cells(g, j)}</tr>')
        text.append(f"- position {t}: token {token} reads table row {token} = ({', '.join(items(hidden))}); "
                    f"logits ({', '.join(z)}); target {target}; ∂L/∂z = ({', '.join(g)}), "
                    f"negative only at the target (softmax − one-hot, divided by {count})")
    head = "".join(f'<th scope="col">z{k}</th>' for k in range(int(vocab)))
    ghead = "".join(f'<th scope="col">∂L/∂z{k}</th>' for k in range(int(vocab)))
    table = ('<table class="llmfs-table"><caption>Forward left, backward right; the target '
             'column of each row is outlined</caption><thead><tr><th scope="col">t</th>'
             '<th scope="col">token</th><th scope="col">h = E[token]</th>' + head +
             '<th scope="col">target</th>' + ghead + "</tr></thead><tbody>" + "".join(body) +
             "</tbody></table>")
    row_body = []
    for r in rows:
        row, uses, gradient = need(r, "row", "uses", "gradient")
        note = "no position read it: zero" if uses == "0" else f"sum over {uses} position(s)"
        mark = ' class="llmfs-muted"' if uses == "0" else ""
        row_body.append(f'<tr{mark}><td class="llmfs-num">{esc(row)}</td><td class="llmfs-num">{esc(uses)}</td>'
                        f'<td class="llmfs-mono">{esc(", ".join(items(gradient)))}</td><td>{esc(note)}</td></tr>')
        text.append(f"- table row {row}: read by {uses} position(s); ∂L/∂E[{row}] = "
                    f"({', '.join(items(gradient))}) — {note}")
    rows_table = ('<table class="llmfs-table"><caption>Scatter-add: each table row collects the '
                  'gradients of the positions that read it</caption><thead><tr><th scope="col">row</th>'
                  '<th scope="col">uses</th><th scope="col">∂L/∂E[row]</th><th scope="col">why</th>'
                  "</tr></thead><tbody>" + "".join(row_body) + "</tbody></table>")
    return table + rows_table, "\n".join(text)
