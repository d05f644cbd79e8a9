"""Chapter 26 diagram: X times three weights gives Q, K, V; the same three weights side
by side as one W_in [d, 3·d], whose output column blocks are Q | K | V; PyTorch's
in_proj_weight [3·d, d] is W_in transposed; and the count of entries where the fused
layout differs from the separate one.

Records (snippets/ch26-q-k-v-projections/trace.txt):
  FIXTURE|tokens=T|d_model=d|parameters=N                               one
  MATRIX|layout=...|name=...|shape=[r,c]|values=[..]                    X, W_Q, W_K, W_V, Q, K, V, W_in, in_proj_weight
  LAYOUTS|fixture_differing=n|gradient_differing=n                      one
Everything drawn is read from the records; nothing is recomputed.
"""

from trace_records import TraceFormatError

from diagrams.common import esc, flow, matrix_box, need, of_kind, single

TITLE = "Three projections, one fused matrix, and PyTorch's in_proj_weight"

def _box(name, record, role):
    return matrix_box(record, name, role)


def render(records):
    fixture = single(records, "FIXTURE")
    layouts = single(records, "LAYOUTS")
    tokens, d_model, parameters = need(fixture, "tokens", "d_model", "parameters")
    by_name = {}
    for m in of_kind(records, "MATRIX"):
        layout, name = need(m, "layout", "name")
        by_name[(layout, name)] = m
    wanted = [("input", "X")] + [("separate", n) for n in ("W_Q", "W_K", "W_V", "Q", "K", "V")] + [
        ("fused", "W_in"), ("torch", "in_proj_weight")]
    missing = [f"{a}/{b}" for a, b in wanted if (a, b) not in by_name]
    if missing:
        raise TraceFormatError("trace.txt", fixture.line, f"missing MATRIX {', '.join(missing)}")
    x = _box("X", by_name[("input", "X")], "input, one row per token")
    text = [f"T = {tokens} tokens, d_model = {d_model}; {parameters} weights in either layout.",
            "Separate: three products of the same X.", "- " + x[1]]
    rows = []
    for i, (w, out) in enumerate((("W_Q", "Q"), ("W_K", "K"), ("W_V", "V"))):
        wb = _box(w, by_name[("separate", w)], "[in, out]")
        ob = _box(out, by_name[("separate", out)], f"X·{w}")
        rows.append(flow([x[0], wb[0], ob[0]], ["·", "="]))
        text += ["- " + wb[1], "- " + ob[1]]
    fused = _box("W_in", by_name[("fused", "W_in")], "[W_Q | W_K | W_V], column blocks of width d")
    torch = _box("in_proj_weight", by_name[("torch", "in_proj_weight")], "PyTorch: W_inᵀ, row blocks Q, K, V")
    differing, gradient = need(layouts, "fixture_differing", "gradient_differing")
    text += ["Fused: one product X·W_in, cut into column blocks Q | K | V.", "- " + fused[1],
             "- " + torch[1],
             f"Entries where the fused Q, K, V differ from the separate ones: {differing}; "
             f"where ∂W_in differs from [∂W_Q | ∂W_K | ∂W_V]: {gradient}."]
    html = ('<p class="llmfs-muted">Separate: Q = X·W_Q, K = X·W_K, V = X·W_V</p>' + "".join(rows) +
            '<p class="llmfs-muted">Fused: the same weights side by side (columns), and '
            "PyTorch's layout (rows)</p>" + flow([fused[0], torch[0]], ["ᵀ ="]) +
            f'<p class="llmfs-muted">Entries that differ between the layouts: Q, K, V {esc(differing)}; '
            f"weight gradient {esc(gradient)}.</p>")
    return html, "\n".join(text)
