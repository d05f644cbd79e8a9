"""Chapter 29 diagram: rotary position embedding, drawn from snippets/ch29-rope/trace.txt.

Reads the records and never recomputes a number. Every value shown is a field of a record;
the only arithmetic is placing an arrow on a dial at the (cos, sin) the record carries.

Records used:
  CONFIG   width, pairs, base, capacity, tokens, offsets, content, scale
  RATE     pair, coordinates, theta, period                    (one per pair)
  TURN     offset, token, position, pair, angle, cos, sin, before, after,
           length_before, length_after                          (offset x token x pair)
  SCORE    query, key, gap, visible, offset_<o> for each offset (one per query/key)
  WEIGHTS  query, offset_<o> for each offset                    (one per query)
  OUTPUT   token, offset_<o> for each offset, values_rotated_offset_<last>

Returns (html, text_alternative). The HTML uses only the shared classes of
docs/_static/llmfs.css (docs/_ext/diagrams/README.md); the dials are inline SVG drawn in
currentColor, so they follow the theme's ink in light and dark mode. Nothing is told apart
by colour alone: masked cells are hatched and say "masked", each gap has its own border
style (the lane classes: solid, dashed, dotted) and says "gap g", and every dial has its
angle written under it. A record without a field the diagram needs raises TraceFormatError
naming its line in trace.txt.
"""


from __future__ import annotations

import html

from trace_records import TraceFormatError


class _Strict:
    """A record whose missing fields raise TraceFormatError at its trace.txt line."""

    def __init__(self, record):
        self.kind = record.kind
        self._record = record

    def __getitem__(self, key):
        if key not in self._record.fields:
            raise TraceFormatError("trace.txt", self._record.line,
                                   f"{self.kind} record has no field {key!r}")
        return self._record.fields[key]


def _by_kind(records, kind):
    return [_Strict(r) for r in records if r.kind == kind]


def _one(records, kind):
    found = _by_kind(records, kind)
    if len(found) != 1:
        line = records[-1].line if records else 1
        raise TraceFormatError("trace.txt", line, f"expected exactly one {kind} record, found {len(found)}")
    return found[0]


def _list(text: str) -> list[str]:
    inner = text.strip()
    if not (inner.startswith("[") and inner.endswith("]")):
        raise ValueError(f"expected a list like [a,b], got {text!r}")
    inner = inner[1:-1]
    return [part for part in inner.split(",")] if inner else []


def _show(text: str) -> str:
    """A list field for reading: `[a,b]` becomes `[a, b]`."""
    return "[" + ", ".join(_list(text)) + "]"


def _e(text: str) -> str:
    return html.escape(text, quote=True)


def _dial(cos_text: str, sin_text: str, angle_text: str) -> str:
    """An SVG dial: a circle, a dashed ray at angle 0, and a solid arrow at the record's angle."""
    radius = 20.0
    cx = cy = 26.0
    x = cx + radius * float(cos_text)
    y = cy - radius * float(sin_text)  # SVG y grows downwards
    label = f"arrow turned {angle_text} radians from the dashed start ray"
    return (
        f'<svg viewBox="0 0 52 52" width="52" height="52" role="img" '
        f'aria-label="{_e(label)}">'
        f'<circle cx="{cx}" cy="{cy}" r="{radius}" fill="none" stroke="currentColor" '
        f'stroke-width="0.8" opacity="0.5"/>'
        f'<line x1="{cx}" y1="{cy}" x2="{cx + radius}" y2="{cy}" stroke="currentColor" '
        f'stroke-width="1" stroke-dasharray="2 2"/>'
        f'<line x1="{cx}" y1="{cy}" x2="{x:.3f}" y2="{y:.3f}" stroke="currentColor" '
        f'stroke-width="2.2" stroke-linecap="round"/>'
        f'<circle cx="{x:.3f}" cy="{y:.3f}" r="2.6" fill="currentColor"/>'
        f"</svg>"
    )


def _offsets(config) -> list[str]:
    return _list(config["offsets"])


def render(records):
    config = _one(records, "CONFIG")
    rates = _by_kind(records, "RATE")
    turns = _by_kind(records, "TURN")
    scores = _by_kind(records, "SCORE")
    weights = _by_kind(records, "WEIGHTS")
    outputs = _by_kind(records, "OUTPUT")
    offsets = _offsets(config)
    if not rates or not turns or not scores or not weights or not outputs or not offsets:
        raise TraceFormatError("trace.txt", records[-1].line,
                               "the ch29 diagram needs RATE, TURN, SCORE, WEIGHTS and OUTPUT records")
    last = offsets[-1]

    parts: list[str] = []
    text: list[str] = []

    # Configuration and rates --------------------------------------------------------------
    parts.append('<div>')
    parts.append(
        '<p class="llmfs-muted">Width ' + _e(config["width"]) + " (" + _e(config["pairs"])
        + " pairs), base " + _e(config["base"]) + ", capacity " + _e(config["capacity"])
        + " positions, " + _e(config["tokens"]) + " tokens of content " + _e(_show(config["content"]))
        + ", shown at offsets " + _e(", ".join(offsets)) + ".</p>"
    )
    text.append(
        f"Rotary position embedding on width {config['width']} ({config['pairs']} pairs), base "
        f"{config['base']}, capacity {config['capacity']}; {config['tokens']} tokens whose query "
        f"and key content is {_show(config['content'])}, placed at offsets {', '.join(offsets)}."
    )
    parts.append('<table class="llmfs-table"><caption>Rate of each pair</caption>'
                 "<thead><tr><th scope=\"col\">Pair</th><th scope=\"col\">Coordinates</th>"
                 "<th scope=\"col\">θ (radians per position)</th>"
                 "<th scope=\"col\">Positions per full turn</th></tr></thead><tbody>")
    for rate in rates:
        parts.append(f"<tr><th scope=\"row\">{_e(rate['pair'])}</th><td>{_e(_show(rate['coordinates']))}</td>"
                     f"<td>{_e(rate['theta'])}</td><td>{_e(rate['period'])}</td></tr>")
        text.append(f"Pair {rate['pair']} holds coordinates {_show(rate['coordinates'])} and turns "
                    f"{rate['theta']} radians per position: a full turn every {rate['period']} positions.")
    parts.append("</tbody></table>")

    # Turns: one table per offset, positions down, pairs across ------------------------------
    pair_ids = [rate["pair"] for rate in rates]
    for offset in offsets:
        rows = [t for t in turns if t["offset"] == offset]
        tokens = sorted({int(t["token"]) for t in rows})
        parts.append(f'<table class="llmfs-table"><caption>Offset {_e(offset)}: each pair '
                     "turned by position × θ (dashed ray: start; solid arrow: after)</caption><thead><tr>"
                     '<th scope="col">Token (position)</th>')
        for pair in pair_ids:
            parts.append(f'<th scope="col">Pair {_e(pair)}</th>')
        parts.append("</tr></thead><tbody>")
        text.append(f"At offset {offset}:")
        for token in tokens:
            cells = {t["pair"]: t for t in rows if int(t["token"]) == token}
            position = next(iter(cells.values()))["position"]
            parts.append(f'<tr><th scope="row">t={token} (p={_e(position)})</th>')
            for pair in pair_ids:
                turn = cells[pair]
                parts.append(
                    "<td>" + _dial(turn["cos"], turn["sin"], turn["angle"])
                    + '<br><span class="llmfs-mono">angle ' + _e(turn["angle"]) + " rad<br>"
                    + "cos " + _e(turn["cos"]) + ", sin " + _e(turn["sin"]) + "<br>"
                    + _e(_show(turn["before"])) + " → " + _e(_show(turn["after"])) + "<br>"
                    + "length " + _e(turn["length_before"]) + " → " + _e(turn["length_after"])
                    + "</span></td>"
                )
                text.append(
                    f"  token {token} at position {position}, pair {pair}: angle {turn['angle']} "
                    f"(cos {turn['cos']}, sin {turn['sin']}) turns {_show(turn['before'])} into "
                    f"{_show(turn['after'])}; length {turn['length_before']} stays {turn['length_after']}."
                )
            parts.append("</tr>")
        parts.append("</tbody></table>")

    # Scores: one grid, both offsets in each cell -----------------------------------------
    queries = sorted({int(s["query"]) for s in scores})
    keys = sorted({int(s["key"]) for s in scores})
    parts.append('<table class="llmfs-table"><caption>Scores q̃·k̃ at every offset: '
                 "equal along each diagonal (same gap); cells right of the diagonal are masked "
                 "by the causal mask</caption><thead><tr><th scope=\"col\">Query \\ key</th>")
    for key in keys:
        parts.append(f'<th scope="col">k={key}</th>')
    parts.append("</tr></thead><tbody>")
    text.append("Unscaled scores of rotated query and key (query position minus key position is the gap):")
    for query in queries:
        parts.append(f'<tr><th scope="row">q={query}</th>')
        for key in keys:
            cell = next(s for s in scores if int(s["query"]) == query and int(s["key"]) == key)
            gap = cell["gap"]
            visible = cell["visible"] == "true"
            lane = f"llmfs-lane llmfs-lane-{abs(int(gap)) % 4}"  # one border style per gap
            state = "llmfs-allowed" if visible else "llmfs-blocked"
            values = "<br>".join(f"offset {_e(o)}: {_e(cell['offset_' + o])}" for o in offsets)
            note = "" if visible else "<br><em>masked</em>"
            parts.append(f'<td class="llmfs-num {state}"><div class="{lane}">'
                         f'<span class="llmfs-lane-label">gap {_e(gap)}</span>'
                         f"<br>{values}{note}</div></td>")
            text.append(
                f"  query {query}, key {key}, gap {gap}: "
                + ", ".join(f"offset {o} score {cell['offset_' + o]}" for o in offsets)
                + ("" if visible else " (masked: a future key)")
                + "."
            )
        parts.append("</tr>")
    parts.append("</tbody></table>")

    # Weights and outputs -------------------------------------------------------------------
    parts.append(f'<table class="llmfs-table"><caption>Causal attention weights '
                 f"(scores × {_e(config['scale'])}, masked, softmax)</caption><thead><tr>"
                 '<th scope="col">Query</th>')
    for offset in offsets:
        parts.append(f'<th scope="col">Offset {_e(offset)}</th>')
    parts.append("</tr></thead><tbody>")
    text.append(f"Causal attention weights, from the scores scaled by {config['scale']}:")
    for row in weights:
        parts.append(f'<tr><th scope="row">q={_e(row["query"])}</th>')
        for offset in offsets:
            parts.append(f"<td>{_e(_show(row['offset_' + offset]))}</td>")
        parts.append("</tr>")
        text.append(f"  query {row['query']}: " + ", ".join(
            f"offset {o} {_show(row['offset_' + o])}" for o in offsets) + ".")
    parts.append("</tbody></table>")

    contrast_key = f"values_rotated_offset_{last}"
    parts.append('<table class="llmfs-table"><caption>Outputs with unrotated values, and '
                 f"what rotating the values would give at offset {_e(last)}</caption><thead><tr>"
                 '<th scope="col">Token</th>')
    for offset in offsets:
        parts.append(f'<th scope="col">Offset {_e(offset)}</th>')
    parts.append(f'<th scope="col">✗ Values rotated too, offset {_e(last)} '
                 "(not what the layer does)</th></tr></thead><tbody>")
    text.append("Outputs (weights times unrotated value rows):")
    for row in outputs:
        parts.append(f'<tr><th scope="row">t={_e(row["token"])}</th>')
        for offset in offsets:
            parts.append(f"<td>{_e(_show(row['offset_' + offset]))}</td>")
        parts.append(f'<td class="llmfs-muted">✗ {_e(_show(row[contrast_key]))}</td></tr>')
        text.append(
            f"  token {row['token']}: " + ", ".join(f"offset {o} {_show(row['offset_' + o])}" for o in offsets)
            + f"; if the values were rotated as well, offset {last} would give {_show(row[contrast_key])}."
        )
    parts.append("</tbody></table>")

    parts.append("</div>")

    return "".join(parts), "\n".join(text)


# The figure's title (a chapter's :caption: replaces it).
TITLE = 'RoPE: each pair of coordinates turned by its position, and scores that depend only on the gap'
