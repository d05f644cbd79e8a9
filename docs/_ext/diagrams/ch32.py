"""Chapter 32 diagram: where the demo model's parameters are (bars), the residual stream's
RMS through it, and the Predict model's logits, position by position, with the predicted
token outlined.

Records (snippets/ch32-decoder-model/trace.txt):
  CONFIG|vocab=..|model_width=..|heads=..|layers=..|hidden_width=..|parameters=N   one
  PARAMS|component=..|count=n                                                      per component
  STREAM|stage=..|stream_rms=r|attention_rms=r|ffn_rms=r   per stage ('-': no branches)
  LOGITS|position=t|input=i|target=j|predicted=k|logits=[..]                       per position
  LOSS|fixture=..|demo_initial=..|ln_vocab=..                                      one
Everything drawn is read from the records; bar lengths are count / N.
"""

from trace_records import TraceFormatError

from diagrams.common import bar, esc, items, need, of_kind, single

TITLE = "The decoder model: where its parameters are, its residual stream, its tied logits"


def render(records):
    config = single(records, "CONFIG")
    total = int(need(config, "parameters")[0])
    params, stream = of_kind(records, "PARAMS"), of_kind(records, "STREAM")
    logits, loss = of_kind(records, "LOGITS"), single(records, "LOSS")
    if not params or not stream or not logits:
        raise TraceFormatError("trace.txt", config.line, "expected PARAMS, STREAM and LOGITS records")
    vocab, d, layers = need(config, "vocab", "model_width", "layers")
    text = [f"Demo model: V = {vocab}, d_model = {d}, {layers} blocks, {total} parameters."]
    rows = []
    for p in params:
        name, count = need(p, "component", "count")
        share = int(count) / total
        rows.append(f'<tr><th scope="row">{esc(name)}</th><td class="llmfs-num">{esc(count)}</td>'
                    f'<td>{bar(f"{share:.4f}", f"{name} {count}", "ch32-bar")}</td>'
                    f'<td class="llmfs-num">{share:.1%}</td></tr>')
        text.append(f"- {name}: {count} parameters ({share:.1%})")
    table1 = ('<table class="llmfs-table"><caption>Parameters by component (bar: share of all)'
              '</caption><tbody>' + "".join(rows) + "</tbody></table>")
    rows = []
    for s in stream:
        stage, x, a, f = need(s, "stage", "stream_rms", "attention_rms", "ffn_rms")
        shown = [("—" if v == "-" else v) for v in (a, f)]
        rows.append(f'<tr><th scope="row">{esc(stage)}</th><td class="llmfs-num">{esc(x)}</td>'
                    f'<td class="llmfs-num">{esc(shown[0])}</td><td class="llmfs-num">{esc(shown[1])}</td></tr>')
        branches = "no branches" if a == "-" else f"attention branch {a}, feed-forward branch {f}"
        text.append(f"- after {stage}: stream RMS {x}; {branches}")
    table2 = ('<table class="llmfs-table"><caption>Residual stream on the demo batch</caption>'
              '<thead><tr><th scope="col">after</th><th scope="col">stream RMS</th>'
              '<th scope="col">attention RMS</th><th scope="col">feed-forward RMS</th></tr>'
              '</thead><tbody>' + "".join(rows) + "</tbody></table>")
    rows = []
    for r in logits:
        t, i, j, k, z = need(r, "position", "input", "target", "predicted", "logits")
        cells = "".join(
            f'<td class="llmfs-num{" llmfs-highlight" if str(v) == k else ""}">{esc(x)}'
            f'{" ★" if str(v) == k else ""}</td>' for v, x in enumerate(items(z)))
        rows.append(f'<tr><th scope="row">{esc(t)}</th><td class="llmfs-num">{esc(i)}</td>'
                    f'<td class="llmfs-num">{esc(j)}</td>{cells}</tr>')
        text.append(f"- Predict model, position {t}: input {i}, target {j}, logits "
                    f"({', '.join(items(z))}), predicted {k}")
    fixture, demo, log_v = need(loss, "fixture", "demo_initial", "ln_vocab")
    width = len(items(need(logits[0], "logits")[0]))
    head = "".join(f'<th scope="col">z[{v}]</th>' for v in range(width))
    table3 = ('<table class="llmfs-table"><caption>Predict model: tied logits (★ outlined: the '
              f'predicted token); loss {esc(fixture)}</caption><thead><tr><th scope="col">t</th>'
              f'<th scope="col">input</th><th scope="col">target</th>{head}</tr></thead><tbody>'
              + "".join(rows) + "</tbody></table>")
    text.append(f"Losses: Predict model {fixture}; demo model at initialisation {demo}, "
                f"against ln V = {log_v}.")
    return table1 + table2 + table3, "\n".join(text)
