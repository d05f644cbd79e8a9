"""Chapter 38 diagram: the Predict model's generation step by step (token fed, the cache's
length after the forward pass, token chosen, for each row), then the demo's work per step
with and without the cache (positions through the model, bars scaled to the largest), and
the cache's memory derived and measured.

Records (snippets/ch38-cached-generation/trace.txt):
  PROMPT|rows=B|length=L|capacity=T_max                                              one
  TOKEN|step=s|row=b|fed=id|cache_length=n|chosen=id                     per step and row
  WORK|step=s|sequence=t|cache_length=n|cached=c|uncached=u                  sampled steps
  TOTAL|cached=c|uncached=u                                                          one
  MEMORY|derived_bytes=x|measured_bytes=y                                            one
Everything drawn is read from the records; bar lengths are positions / the largest.
"""

from trace_records import TraceFormatError

from diagrams.common import bar, esc, need, of_kind, single

TITLE = "Cached generation: one new position per step instead of the whole sequence"


def render(records):
    prompt = single(records, "PROMPT")
    rows_n, length, capacity = need(prompt, "rows", "length", "capacity")
    tokens, work = of_kind(records, "TOKEN"), of_kind(records, "WORK")
    total, memory = single(records, "TOTAL"), single(records, "MEMORY")
    if not tokens or not work:
        raise TraceFormatError("trace.txt", prompt.line, "expected TOKEN and WORK records")
    text = [f"Predict model: {rows_n} rows, prompt length {length}, context {capacity}."]
    rows = []
    for t in tokens:
        step, row, fed, n, chosen = need(t, "step", "row", "fed", "cache_length", "chosen")
        rows.append(f'<tr><th scope="row">{esc(step)}</th><td class="llmfs-num">{esc(row)}</td>'
                    f'<td class="llmfs-num">{esc(fed)}</td><td class="llmfs-num">{esc(n)}</td>'
                    f'<td class="llmfs-num llmfs-highlight">{esc(chosen)}</td></tr>')
        text.append(f"- step {step}, row {row}: fed {fed}, cache length {n}, chose {chosen}")
    table1 = ('<table class="llmfs-table"><caption>Predict model, greedy (outlined: the token '
              'chosen)</caption><thead><tr><th scope="col">step</th><th scope="col">row</th>'
              '<th scope="col">fed</th><th scope="col">cache length</th><th scope="col">'
              'chosen</th></tr></thead><tbody>' + "".join(rows) + "</tbody></table>")
    largest = max(max(int(need(w, "cached")[0]), int(need(w, "uncached")[0])) for w in work)
    rows = []
    for w in work:
        step, seq, n, cached, uncached = need(w, "step", "sequence", "cache_length", "cached",
                                              "uncached")
        bars = "".join(
            f'<td class="llmfs-num">{esc(v)}</td><td>{bar(f"{int(v) / largest:.4f}", f"{label} {v}", "ch38-bar")}</td>'
            for v, label in ((cached, "cached"), (uncached, "uncached")))
        rows.append(f'<tr><th scope="row">{esc(step)}</th><td class="llmfs-num">{esc(seq)}</td>'
                    f'<td class="llmfs-num">{esc(n)}</td>{bars}</tr>')
        text.append(f"- demo step {step}: sequence {seq}, cache length {n}; positions through "
                    f"the model: cached {cached}, uncached {uncached}")
    c_total, u_total = need(total, "cached", "uncached")
    derived, measured = need(memory, "derived_bytes", "measured_bytes")
    table2 = ('<table class="llmfs-table"><caption>Demo, positions through the model per step '
              f'(B rows); all 200 steps: cached {esc(c_total)}, uncached {esc(u_total)}; cache '
              f'memory {esc(derived)} bytes derived, {esc(measured)} measured</caption><thead>'
              '<tr><th scope="col">step</th><th scope="col">sequence</th><th scope="col">'
              'cache length</th><th scope="col" colspan="2">cached</th><th scope="col" '
              'colspan="2">uncached</th></tr></thead><tbody>' + "".join(rows) + "</tbody></table>")
    text.append(f"All 200 steps: cached {c_total} positions, uncached {u_total}. Cache memory: "
                f"{derived} bytes derived, {measured} bytes measured.")
    return table1 + table2, "\n".join(text)
