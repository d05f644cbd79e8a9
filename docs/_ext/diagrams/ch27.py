"""Chapter 27 diagram: one scaled dot-product head, drawn from snippets/ch27-self-attention/trace.txt.

Every number on the page is copied from a record; the renderer only lays records out. The
one piece of geometry is a bar whose length is proportional to a weight that the record
carries (weights lie in [0, 1]).

Records read:
  CONFIG      batch, tokens, d_model, d_k, d_v, scale, projections
  ROW         stage (query|key|value), token, values          one per stage and token
  CELL        query, key, dot, score, weight                   one per query/key pair
  MIX         query, weights, row_sum, output                  one per query
  SATURATION  scale, d_k, scores, weights, max_derivative      unscaled, then scaled
  ADDITIVE    query, additive, dot                             the history contrast

Returns (html, text_alternative). HTML uses classes only; bars are inline SVG drawn with
currentColor so they follow light and dark mode, and every bar has its number printed
beside it, so nothing depends on colour.
"""


from __future__ import annotations

from diagrams.common import bar, esc as _esc, items as _items, of_kind as _kind, pretty as _pretty, single as _single


def _bar(weight_text: str, label: str) -> str:
    return bar(weight_text, label, "ch27-bar")


def _rows_table(rows, tokens, text):
    stages = ["query", "key", "value"]
    out = ['<table class="llmfs-table ch27-table ch27-rows"><caption>Projected rows (Q = XW_Q, K = XW_K, '
           'V = XW_V)</caption><thead><tr><th scope="col">Token</th>']
    out += [f'<th scope="col">{stage}</th>' for stage in stages]
    out.append("</tr></thead><tbody>")
    for token in tokens:
        out.append(f'<tr><th scope="row">t={_esc(token)}</th>')
        line = []
        for stage in stages:
            row = next(r for r in rows if r["stage"] == stage and r["token"] == token)
            out.append(f"<td>{_esc(_pretty(row['values']))}</td>")
            line.append(f"{stage} {_pretty(row['values'])}")
        out.append("</tr>")
        text.append(f"Token {token}: " + ", ".join(line) + ".")
    out.append("</tbody></table>")
    return out


def _weight_table(cells, mixes, tokens, config, text):
    out = ['<table class="llmfs-table ch27-table ch27-weights"><caption>Each query row: dot product, scaled '
           f"score (× {_esc(config['scale'])}) and softmax weight against every key; the row's "
           "weights blend the value rows into its output</caption><thead><tr>"
           '<th scope="col">Query \\ key</th>']
    out += [f'<th scope="col">k={_esc(t)}</th>' for t in tokens]
    out.append('<th scope="col">Row sum</th><th scope="col">Output (value mixture)</th></tr></thead><tbody>')
    text.append(f"Weights: each score is the dot product times {config['scale']}, then a softmax over the keys of the row.")
    for query in tokens:
        mix = next(m for m in mixes if m["query"] == query)
        out.append(f'<tr><th scope="row">q={_esc(query)}</th>')
        pieces = []
        for key in tokens:
            cell = next(c for c in cells if c["query"] == query and c["key"] == key)
            diagonal = " llmfs-highlight ch27-diagonal" if query == key else ""
            label = f"weight {cell['weight']} of query {query} on key {key}"
            out.append(
                f'<td class="llmfs-num ch27-cell{diagonal}">{_bar(cell["weight"], label)}'
                f'<div class="ch27-weight">{_esc(cell["weight"])}</div>'
                f'<div class="ch27-detail">dot {_esc(cell["dot"])} → score {_esc(cell["score"])}</div></td>'
            )
            pieces.append(f"key {key}: dot {cell['dot']}, score {cell['score']}, weight {cell['weight']}")
        out.append(f"<td>{_esc(mix['row_sum'])}</td><td>{_esc(_pretty(mix['output']))}</td></tr>")
        text.append(f"  query {query}: " + "; ".join(pieces)
                    + f". Row sum {mix['row_sum']}; output {_pretty(mix['output'])}.")
    out.append("</tbody></table>")
    return out


def _saturation_table(rows, text):
    keys = len(_items(rows[0]["weights"]))
    out = ['<table class="llmfs-table ch27-table ch27-saturation"><caption>Why divide by √d_k: the same '
           "three keys with and without the scale (bar = weight)</caption><thead><tr>"
           '<th scope="col">Scale</th><th scope="col">Scores</th>']
    out += [f'<th scope="col">Weight on k={k}</th>' for k in range(keys)]
    out.append('<th scope="col">Largest softmax derivative</th></tr></thead><tbody>')
    for row in rows:
        cells = "".join(
            f'<td class="llmfs-num">{_bar(w, f"weight {w} on key {i}")}<div class="ch27-weight">{_esc(w)}</div></td>'
            for i, w in enumerate(_items(row["weights"]))
        )
        out.append(f'<tr><th scope="row">{_esc(row["scale"])} (d_k={_esc(row["d_k"])})</th>'
                   f"<td>{_esc(_pretty(row['scores']))}</td>{cells}"
                   f"<td class=\"llmfs-num\">{_esc(row['max_derivative'])}</td></tr>")
        text.append(f"Scale {row['scale']} at d_k={row['d_k']}: scores {_pretty(row['scores'])} give weights "
                    f"{_pretty(row['weights'])}; the largest softmax derivative entry is {row['max_derivative']}.")
    out.append("</tbody></table>")
    return out


def render(records):
    config = _single(records, "CONFIG")
    rows = _kind(records, "ROW")
    cells = _kind(records, "CELL")
    mixes = _kind(records, "MIX")
    saturation = _kind(records, "SATURATION")
    additive = _single(records, "ADDITIVE")
    if not rows or not cells or not mixes or len(saturation) != 2:
        raise ValueError("the ch27 trace needs ROW, CELL, MIX records and two SATURATION records")
    tokens = [m["query"] for m in mixes]

    text = [f"One attention head on {config['tokens']} tokens (batch {config['batch']}), d_model="
            f"{config['d_model']}, d_k={config['d_k']}, d_v={config['d_v']}, projections "
            f"{config['projections']}, scale {config['scale']}."]
    parts = ['<div class="ch27-diagram">']
    parts += _rows_table(rows, tokens, text)
    parts += _weight_table(cells, mixes, tokens, config, text)
    parts += _saturation_table(saturation, text)
    parts.append('<p class="ch27-history">History contrast for query '
                 f"{_esc(additive['query'])}: additive scores {_esc(_pretty(additive['additive']))} "
                 f"(one small tanh network per key) against scaled dot-product scores "
                 f"{_esc(_pretty(additive['dot']))} (one row of one matrix product).</p>")
    text.append(f"History contrast for query {additive['query']}: additive scores "
                f"{_pretty(additive['additive'])}, scaled dot-product scores {_pretty(additive['dot'])}.")
    parts.append("</div>")
    return "".join(parts), "\n".join(text)


# The figure's title (a chapter's :caption: replaces it).
TITLE = "One scaled dot-product head on the fixture: scores, softmax weights and each token's mix of values"
