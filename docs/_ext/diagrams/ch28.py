"""Chapter 28 diagram: causal masking, drawn from snippets/ch28-causal-masking/trace.txt.

Every number on the page is copied from a record; the renderer only lays records out and
draws a bar whose length is a weight carried by a record.

Records read:
  CONFIG  batch, tokens, d_k, scale, mask
  CELL    query, key, visibility (allowed|blocked), diagonal, score, mask, masked_score, weight
  MIX     query, allowed_keys, row_sum, output
  PREFIX  token, before, after, status (bitwise-unchanged|changed), replaced, replacement
  LEAK    mask, future_weight, row0_before, row0_after, prefix

Allowed and blocked cells differ by text ("allowed"/"blocked"), by a hatched box drawn in
currentColor instead of a bar, and by the shared classes llmfs-allowed / llmfs-blocked
(docs/_static/llmfs.css: hatched background and a ✕); the diagonal cell says "diagonal" and
carries llmfs-highlight (bold outline). Nothing is told apart by colour alone.
"""


from __future__ import annotations

from diagrams.common import bar, esc as _esc, of_kind as _kind, pretty as _pretty, single as _single


def _bar(weight_text: str, label: str) -> str:
    return bar(weight_text, label, "ch28-bar")


def _hatch(label: str) -> str:
    """Diagonal hatching in a box: the blocked-key pattern."""
    lines = "".join(
        f'<line x1="{x}" y1="8" x2="{x + 8}" y2="0" stroke="currentColor" stroke-width="0.8"/>'
        for x in range(-8, 62, 5)
    )
    return (
        f'<svg class="ch28-hatch" viewBox="0 0 62 8" width="62" height="8" role="img" '
        f'aria-label="{_esc(label)}"><rect x="0.5" y="0.5" width="61" height="7" fill="none" '
        f'stroke="currentColor" stroke-width="0.8" stroke-dasharray="2 1.5"/>{lines}</svg>'
    )


def _weights_table(cells, mixes, config, text):
    keys = sorted({c["key"] for c in cells}, key=int)
    out = ['<table class="llmfs-table ch28-table ch28-weights"><caption>Causal weights: score × '
           f"{_esc(config['scale'])}, plus the mask (0 or −∞), then a row softmax. Blocked keys "
           "(right of the diagonal) get exactly 0.</caption><thead><tr>"
           '<th scope="col">Query \\ key</th>']
    out += [f'<th scope="col">k={_esc(k)}</th>' for k in keys]
    out.append('<th scope="col">Row sum</th><th scope="col">Output</th></tr></thead><tbody>')
    text.append(f"Causal weights (scores scaled by {config['scale']}, mask added, softmax over each row):")
    for mix in mixes:
        query = mix["query"]
        out.append(f'<tr><th scope="row">q={_esc(query)}</th>')
        pieces = []
        for key in keys:
            cell = next(c for c in cells if c["query"] == query and c["key"] == key)
            blocked = cell["visibility"] == "blocked"
            diagonal = cell["diagonal"] == "true"
            classes = "ch28-cell " + ("llmfs-blocked ch28-blocked" if blocked else "llmfs-allowed ch28-allowed")
            classes += " llmfs-highlight ch28-diagonal" if diagonal else ""
            status = "blocked" if blocked else ("allowed · diagonal" if diagonal else "allowed")
            graphic = (_hatch(f"query {query}, key {key}: blocked") if blocked
                       else _bar(cell["weight"], f"weight {cell['weight']} of query {query} on key {key}"))
            out.append(
                f'<td class="{classes}">{graphic}<div class="ch28-weight">{_esc(cell["weight"])}</div>'
                f'<div class="ch28-status">{_esc(status)}</div>'
                f'<div class="ch28-detail">score {_esc(cell["score"])} + mask {_esc(cell["mask"])} = '
                f"{_esc(cell['masked_score'])}</div></td>"
            )
            pieces.append(f"key {key} {status}: score {cell['score']} plus mask {cell['mask']} is "
                          f"{cell['masked_score']}, weight {cell['weight']}")
        out.append(f"<td>{_esc(mix['row_sum'])}</td><td>{_esc(_pretty(mix['output']))}</td></tr>")
        text.append(f"  query {query} ({mix['allowed_keys']} allowed keys): " + "; ".join(pieces)
                    + f". Row sum {mix['row_sum']}; output {_pretty(mix['output'])}.")
    out.append("</tbody></table>")
    return out


def _prefix_table(prefix, text):
    first = prefix[0]
    out = ['<table class="llmfs-table ch28-table ch28-prefix"><caption>Prefix check: token '
           f"{_esc(first['replaced'])} replaced by {_esc(_pretty(first['replacement']))}; output rows before "
           "and after</caption><thead><tr><th scope=\"col\">Row</th><th scope=\"col\">Before</th>"
           '<th scope="col">After</th><th scope="col">Result</th></tr></thead><tbody>']
    text.append(f"Prefix check: token {first['replaced']} replaced by {_pretty(first['replacement'])}.")
    for row in prefix:
        status = "unchanged, bit for bit" if row["status"] == "bitwise-unchanged" else "changed"
        css = "ch28-same" if row["status"] == "bitwise-unchanged" else "ch28-changed"
        out.append(f'<tr class="{css}"><th scope="row">t={_esc(row["token"])}</th>'
                   f"<td>{_esc(_pretty(row['before']))}</td><td>{_esc(_pretty(row['after']))}</td>"
                   f"<td>{_esc(status)}</td></tr>")
        text.append(f"  row {row['token']}: {_pretty(row['before'])} then {_pretty(row['after'])}: {status}.")
    out.append("</tbody></table>")
    return out


def render(records):
    config = _single(records, "CONFIG")
    cells = _kind(records, "CELL")
    mixes = _kind(records, "MIX")
    prefix = _kind(records, "PREFIX")
    leak = _single(records, "LEAK")
    if not cells or not mixes or not prefix:
        raise ValueError("the ch28 trace needs CELL, MIX and PREFIX records")
    text = [f"Causal attention on {config['tokens']} tokens (batch {config['batch']}), d_k={config['d_k']}, "
            f"{config['mask']} mask. Allowed keys are on or left of the diagonal; blocked keys are right of it."]
    parts = ['<div class="ch28-diagram">']
    parts.append('<ul class="ch28-legend"><li>' + _bar("0.5", "legend: allowed key, bar length is the weight")
                 + " allowed key: a bar as long as the weight, labelled “allowed”</li><li>"
                 + _hatch("legend: blocked key")
                 + " blocked key: hatched, marked ✕, labelled “blocked”, weight exactly 0</li>"
                 + "<li>diagonal key: outlined in bold, labelled “diagonal”</li></ul>")
    parts += _weights_table(cells, mixes, config, text)
    parts += _prefix_table(prefix, text)
    parts.append(f'<p class="ch28-leak">With a finite mask of {_esc(leak["mask"])} instead of −∞, row 0 gives '
                 f"{_esc(leak['future_weight'])} of its weight to later tokens, and the prefix check "
                 f"fails: row 0 moves from {_esc(_pretty(leak['row0_before']))} to "
                 f"{_esc(_pretty(leak['row0_after']))} ({_esc(leak['prefix'])}).</p>")
    text.append(f"With a finite mask of {leak['mask']}, row 0 gives {leak['future_weight']} of its weight to later "
                f"tokens; after the same replacement row 0 moves from {_pretty(leak['row0_before'])} to "
                f"{_pretty(leak['row0_after'])} ({leak['prefix']}).")
    parts.append("</div>")
    return "".join(parts), "\n".join(text)


# The figure's title (a chapter's :caption: replaces it).
TITLE = 'Causal masking: which keys each query may see, the masked weights, and a prefix that does not change'
