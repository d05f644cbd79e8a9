"""Chapter 19 diagram: the linear layer's fixture as matrices, forward (X·W + b = Y) and
backward (∂W = Xᵀ·G, ∂b = column sums of G, ∂X = G·Wᵀ), and the square-matrix trap.

Records (snippets/ch19-linear-layers/trace.txt):
  FIXTURE|tokens=2|in=3|out=2|loss=L                                  one
  MATRIX|name=X|role=...|shape=[r,c]|values=[..]                      one per operand or gradient
  TRAP|layout=...|weight=[..]|output=[..]                             one per layout of the square W
Everything drawn is read from the records; nothing is recomputed.
"""

from trace_records import TraceFormatError

from diagrams.common import esc, flow, items, matrix_box, need, of_kind

TITLE = "A linear layer forward and backward, and the square-matrix trap"


def _matrix(record):
    name, role = need(record, "name", "role")
    return matrix_box(record, name, role)


def render(records):
    fixtures, matrices, traps = of_kind(records, "FIXTURE"), of_kind(records, "MATRIX"), of_kind(records, "TRAP")
    if len(fixtures) != 1 or not matrices or len(traps) != 2:
        raise TraceFormatError("trace.txt", records[-1].line if records else 1,
                               "expected one FIXTURE, MATRIX records and two TRAP records")
    tokens, d_in, d_out, loss = need(fixtures[0], "tokens", "in", "out", "loss")
    by_name = {need(m, "name")[0]: m for m in matrices}
    missing = [n for n in ("X", "W", "b", "Y", "G", "dW", "db", "dX") if n not in by_name]
    if missing:
        raise TraceFormatError("trace.txt", matrices[-1].line, f"missing MATRIX {', '.join(missing)}")
    drawn = {n: _matrix(by_name[n]) for n in by_name}
    text = [f"T = {tokens} tokens, in = {d_in}, out = {d_out}; L = Σ Y ⊙ G = {loss}.", "Forward:"]
    text += ["- " + drawn[n][1] for n in ("X", "W", "b", "Y")]
    text.append("Backward, from the upstream G:")
    text += ["- " + drawn[n][1] for n in ("G", "dW", "db", "dX")]
    forward = flow([drawn[n][0] for n in ("X", "W", "b", "Y")], ["·", "+", "="])
    backward = flow([drawn[n][0] for n in ("G", "dW", "db", "dX")], ["", "", ""])
    trap_rows = []
    text.append("The square trap, X = the same input, W = [[1,2],[3,4]] stored [in, out]:")
    for t in traps:
        layout, weight, output = need(t, "layout", "weight", "output")
        right = layout == "in_out"
        label = "stored [in, out] (right)" if right else "PyTorch's [out, in] read as [in, out] (wrong, no error)"
        mark = "" if right else ' class="llmfs-highlight"'
        trap_rows.append(f'<tr{mark}><td>{esc(label)}</td><td class="llmfs-mono">{esc(", ".join(items(weight)))}</td>'
                         f'<td class="llmfs-mono">{esc(", ".join(items(output)))}</td></tr>')
        text.append(f"- {label}: weight values ({', '.join(items(weight))}) give X·W = ({', '.join(items(output))})")
    trap = ('<table class="llmfs-table"><caption>The square trap</caption><thead><tr>'
            '<th scope="col">layout</th><th scope="col">weight, row-major</th><th scope="col">output</th>'
            "</tr></thead><tbody>" + "".join(trap_rows) + "</tbody></table>")
    html = ('<p class="llmfs-muted">Forward: X · W + b = Y</p>' + forward +
            '<p class="llmfs-muted">Backward: G, then ∂W = Xᵀ·G, ∂b = Σ_t G, ∂X = G·Wᵀ</p>' + backward + trap)
    return html, "\n".join(text)
