"""Chapter 24 diagram: the gradient norm that reaches the input of a plain stack and of a
residual stack, by depth, as a table with bars on a logarithmic scale.

Records (snippets/ch24-residual-connections/trace.txt):
  FIXTURE|stack=plain|depth=3|input_gradient=[..]                        one per stack kind
  DEPTH|depth=L|plain=g|residual=g|plain_rms=r|residual_rms=r            one per depth
Everything drawn is read from the records; the bars' lengths are log10 of the printed values.
"""

import math

from trace_records import TraceFormatError

from diagrams.common import bar, esc, need, of_kind

TITLE = "‖∂L/∂x‖ at the bottom of a plain and a residual stack, by depth (log scale)"


def render(records):
    fixtures, depths = of_kind(records, "FIXTURE"), of_kind(records, "DEPTH")
    if len(fixtures) != 2 or not depths:
        raise TraceFormatError("trace.txt", records[-1].line if records else 1,
                               "expected two FIXTURE records and DEPTH records")
    rows = [need(d, "depth", "plain", "residual", "plain_rms", "residual_rms") for d in depths]
    logs = [math.log10(float(v)) for r in rows for v in r[1:3] if float(v) > 0]
    low, high = math.floor(min(logs)), math.ceil(max(logs))

    def weight(value):
        v = float(value)
        return "0" if v <= 0 else f"{(math.log10(v) - low) / (high - low):.4f}"

    text = [f"Bars are log10 of ‖∂L/∂x‖, from 1e{low} (empty) to 1e{high} (full)."]
    for f in fixtures:
        stack, depth, gradient = need(f, "stack", "depth", "input_gradient")
        text.append(f"Fixture, {stack} stack of {depth} blocks: ∂(Σ top)/∂x = {gradient}.")
    body = []
    for depth, plain, residual, plain_rms, residual_rms in rows:
        body.append(
            f'<tr><td class="llmfs-num">{esc(depth)}</td>'
            f'<td class="llmfs-num">{esc(plain)}</td><td>{bar(weight(plain), "plain " + plain, "ch24-bar")}</td>'
            f'<td class="llmfs-num">{esc(residual)}</td><td>{bar(weight(residual), "residual " + residual, "ch24-bar")}</td>'
            f'<td class="llmfs-num">{esc(residual_rms)}</td></tr>')
        text.append(f"- depth {depth}: plain {plain}, residual {residual}; top RMS plain {plain_rms}, "
                    f"residual {residual_rms}")
    table = ('<table class="llmfs-table"><caption>Same seed, same weights; only the identity '
             'path differs</caption><thead><tr><th scope="col">depth</th>'
             '<th scope="col" colspan="2">plain ‖∂L/∂x‖</th>'
             '<th scope="col" colspan="2">residual ‖∂L/∂x‖</th>'
             '<th scope="col">residual top RMS</th></tr></thead><tbody>' + "".join(body) +
             "</tbody></table>")
    return table, "\n".join(text)
