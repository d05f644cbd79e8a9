"""Chapter 22 diagram: the two-group fixture's first steps, and the five update rules on one
parameter side by side, each step's θ with its distance from AdamW's.

Records (snippets/ch22-adamw/trace.txt):
  FIXTURE|t=k|weight=[..]|gain=[..]                       one per step
  STEP|variant=name|t=k|theta=θ|minus_adamw=d|minus_adam=a   one per variant and step
Everything drawn is read from the records; nothing is recomputed.
"""

from trace_records import TraceFormatError

from diagrams.common import esc, items, need, of_kind

TITLE = "AdamW's decoupled decay beside the variants it is often confused with"


def render(records):
    fixtures, steps = of_kind(records, "FIXTURE"), of_kind(records, "STEP")
    if not fixtures or not steps:
        raise TraceFormatError("trace.txt", records[-1].line if records else 1,
                               "expected FIXTURE and STEP records")
    text = ["Fixture (η = 0.1, ε = 0): the weight is decayed with λ = 0.1, the gain is not."]
    rows = []
    for f in fixtures:
        t, weight, gain = need(f, "t", "weight", "gain")
        rows.append(f'<tr><td class="llmfs-num">{esc(t)}</td><td class="llmfs-mono">{esc(", ".join(items(weight)))}</td>'
                    f'<td class="llmfs-mono">{esc(", ".join(items(gain)))}</td></tr>')
        text.append(f"- after step {t}: weight ({', '.join(items(weight))}), gain ({', '.join(items(gain))})")
    fixture = ('<table class="llmfs-table"><caption>Two groups: decayed weight, undecayed gain</caption>'
               '<thead><tr><th scope="col">step</th><th scope="col">linear.weight (λ = 0.1)</th>'
               '<th scope="col">norm.gain (λ = 0)</th></tr></thead><tbody>' + "".join(rows) + "</tbody></table>")
    variants, ts = [], []
    for s in steps:
        name, t = need(s, "variant", "t")
        if name not in variants:
            variants.append(name)
        if t not in ts:
            ts.append(t)
    by = {(need(s, "variant")[0], need(s, "t")[0]): need(s, "theta", "minus_adamw", "minus_adam") for s in steps}
    body = []
    text.append("One parameter, loss (θ − 2)²/2 from θ = 1; each cell θ and (θ − θ of AdamW); outlined where θ equals plain Adam's:")
    for name in variants:
        cells, said = [], []
        for t in ts:
            if (name, t) not in by:
                raise TraceFormatError("trace.txt", steps[-1].line, f"no STEP for {name} at t={t}")
            theta, diff, from_adam = by[(name, t)]
            same = float(from_adam) == 0.0 and name != "adam"
            mark = "llmfs-num llmfs-highlight" if same else "llmfs-num"
            note = " = Adam's θ" if same else ""
            cells.append(f'<td class="{mark}">{esc(theta)}{esc(note)}<br><span class="llmfs-muted">{esc(diff)}</span></td>')
            said.append(f"t={t}: {theta} ({diff}){note}")
        body.append(f'<tr><th scope="row" class="llmfs-mono">{esc(name)}</th>{"".join(cells)}</tr>')
        text.append(f"- {name}: " + "; ".join(said))
    head = "".join(f'<th scope="col">θ after step {esc(t)}</th>' for t in ts)
    table = ('<table class="llmfs-table"><caption>Each cell: θ, and below it θ minus AdamW\'s θ; outlined: equal to plain Adam</caption>'
             f'<thead><tr><th scope="col">rule</th>{head}</tr></thead><tbody>' + "".join(body) + "</tbody></table>")
    return fixture + table, "\n".join(text)
