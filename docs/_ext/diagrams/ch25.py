"""Chapter 25 diagram: RMSNorm and three variants on three rows — zero-mean large,
zero-mean small, and large with mean 4 — with every row that departs from RMSNorm marked.

Records (snippets/ch25-rmsnorm/trace.txt):
  FIXTURE|rows=2|width=4|epsilon=e|zero_row_gradient=[..]                   one
  VARIANT|input=name|variant=name|values=[..]|gap=g                          one per pair
Everything drawn is read from the records; `gap` is the program's max |variant − RMSNorm|.
"""

from trace_records import TraceFormatError

from diagrams.common import esc, items, need, of_kind

TITLE = "RMSNorm and its variants on large, small and off-centre rows"

NAMES = {"rms_norm": "RMSNorm (ε inside √)", "eps_outside": "ε outside √",
         "variance": "variance for mean square", "layer_norm": "LayerNorm (centred)"}


def render(records):
    fixtures, variants = of_kind(records, "FIXTURE"), of_kind(records, "VARIANT")
    if len(fixtures) != 1 or not variants:
        raise TraceFormatError("trace.txt", records[-1].line if records else 1,
                               "expected one FIXTURE record and VARIANT records")
    epsilon, zero_gradient = need(fixtures[0], "epsilon", "zero_row_gradient")
    text = [f"ε = {epsilon}. A row is marked ≠ when it differs from RMSNorm by more than 1e-3.",
            f"The fixture's zero row gets y = 0 and ∂L/∂x = ({', '.join(items(zero_gradient))})."]
    body, current = [], None
    for v in variants:
        name, variant, values, gap = need(v, "input", "variant", "values", "gap")
        if variant not in NAMES:
            raise TraceFormatError("trace.txt", v.line, f"unknown variant {variant!r}")
        differs = float(gap) > 1e-3
        head = f'<th scope="row">{esc(name)}</th>' if name != current else "<td></td>"
        current = name
        cells = "".join(f'<td class="llmfs-num{" llmfs-highlight" if differs else ""}">{esc(x)}</td>'
                        for x in items(values))
        mark = "≠" if differs else "="
        body.append(f"<tr>{head}<td>{esc(NAMES[variant])}</td>{cells}"
                    f'<td class="llmfs-mono">{mark} {esc(gap)}</td></tr>')
        text.append(f"- {name} row, {NAMES[variant]}: ({', '.join(items(values))}); "
                    f"max gap from RMSNorm {gap} ({'differs' if differs else 'agrees'})")
    table = ('<table class="llmfs-table"><caption>Outlined: more than 1e-3 from RMSNorm'
             '</caption><thead><tr><th scope="col">row</th><th scope="col">variant</th>'
             '<th scope="col" colspan="4">normalized values</th><th scope="col">gap</th>'
             "</tr></thead><tbody>" + "".join(body) + "</tbody></table>")
    return table, "\n".join(text)
