"""Chapter 20 diagram: the SwiGLU fixture unit by unit (gate input a, SiLU(a), up u,
hidden h = SiLU(a)·u, and the gradients at a and u), the two output rows, and the
hidden-width rule beside the classic feed-forward's parameter count.

Records (snippets/ch20-swiglu-feed-forward/trace.txt):
  FIXTURE|tokens=2|model_width=2|hidden_width=3|parameters=18|loss=L             one
  UNIT|t=0|j=0|a=..|silu=..|u=..|h=..|grad_a=..|grad_u=..                        one per token and unit
  TOKEN|t=0|output=[..]                                                          one per token
  WIDTH|model_width=d|multiple=m|hidden_width=f|parameters=p|classic=c          one per d_model
Everything drawn is read from the records; nothing is recomputed.
"""

from trace_records import TraceFormatError

from diagrams.common import esc, items, need, of_kind

TITLE = "SwiGLU unit by unit: the gate, the up projection, their product and the gradients"


def render(records):
    fixtures, units, tokens, widths = (of_kind(records, k) for k in ("FIXTURE", "UNIT", "TOKEN", "WIDTH"))
    if len(fixtures) != 1 or not units or not tokens or not widths:
        raise TraceFormatError("trace.txt", records[-1].line if records else 1,
                               "expected one FIXTURE and UNIT, TOKEN and WIDTH records")
    count, d_model, d_ff, parameters, loss = need(fixtures[0], "tokens", "model_width", "hidden_width",
                                                  "parameters", "loss")
    if len(units) != int(count) * int(d_ff):
        raise TraceFormatError("trace.txt", fixtures[0].line,
                               f"FIXTURE says {count}·{d_ff} units, found {len(units)} UNIT records")
    text = [f"T = {count} tokens, d_model = {d_model}, d_ff = {d_ff}, {parameters} parameters; "
            f"L = Σ Y = {loss}."]
    body = []
    for u in units:
        t, j, a, s, up, h, ga, gu = need(u, "t", "j", "a", "silu", "u", "h", "grad_a", "grad_u")
        closed = float(s) == 0.0
        note = "gate closed: h = 0, ∂u = 0, yet ∂a ≠ 0" if closed else ""
        mark = ' class="llmfs-highlight"' if closed else ""
        body.append(f"<tr{mark}>" + "".join(f'<td class="llmfs-num">{esc(v)}</td>'
                                              for v in (t, j, a, s, up, h, ga, gu)) +
                    f"<td>{esc(note)}</td></tr>")
        text.append(f"- token {t}, unit {j}: a = {a}, SiLU(a) = {s}, u = {up}, h = {h}; "
                    f"∂L/∂a = {ga}, ∂L/∂u = {gu}" + (f" ({note})" if note else ""))
    heads = ("t", "unit j", "a = x·W₁", "SiLU(a)", "u = x·W₃", "h = SiLU(a)·u", "∂L/∂a", "∂L/∂u", "note")
    units_table = ('<table class="llmfs-table"><caption>Hidden units; closed gates outlined</caption>'
                   "<thead><tr>" + "".join(f'<th scope="col">{esc(h)}</th>' for h in heads) +
                   "</tr></thead><tbody>" + "".join(body) + "</tbody></table>")
    out_rows = []
    for tok in tokens:
        t, output = need(tok, "t", "output")
        out_rows.append(f'<tr><td class="llmfs-num">{esc(t)}</td>'
                        f'<td class="llmfs-mono">{esc(", ".join(items(output)))}</td></tr>')
        text.append(f"- output of token {t}: y = h·W₂ = ({', '.join(items(output))})")
    outputs = ('<table class="llmfs-table"><caption>Outputs y = h·W₂</caption><thead><tr>'
               '<th scope="col">t</th><th scope="col">y</th></tr></thead><tbody>' +
               "".join(out_rows) + "</tbody></table>")
    width_rows = []
    text.append("The hidden-width rule d_ff = ⌈8·d_model/3⌉ rounded up to the multiple:")
    for w in widths:
        d, m, f, p, c = need(w, "model_width", "multiple", "hidden_width", "parameters", "classic")
        width_rows.append("<tr>" + "".join(f'<td class="llmfs-num">{esc(v)}</td>' for v in (d, m, f, p, c)) +
                          "</tr>")
        text.append(f"- d_model {d}, multiple {m}: d_ff {f}; 3·d·d_ff = {p} parameters against "
                    f"8·d² = {c} for the classic feed-forward")
    width_heads = ("d_model", "multiple", "d_ff", "SwiGLU 3·d_model·d_ff", "classic 8·d_model²")
    width_table = ('<table class="llmfs-table"><caption>The width rule</caption><thead><tr>' +
                   "".join(f'<th scope="col">{esc(h)}</th>' for h in width_heads) +
                   "</tr></thead><tbody>" + "".join(width_rows) + "</tbody></table>")
    return units_table + outputs + width_table, "\n".join(text)
