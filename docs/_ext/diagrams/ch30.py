"""Chapter 30's diagram: two causal attention lanes, kept apart until the output map.

render(records) reads the 34 records that `ch30-multi-head-attention --trace` prints
(snippets/ch30-multi-head-attention/trace.txt) and returns (html, text_alternative). Every
number and label it shows is copied from a record; nothing is recomputed here. The HTML uses
the shared classes of docs/_static/llmfs.css (see docs/_ext/diagrams/README.md): heads are
lanes that differ by colour, border style (solid, dashed) and a written label; allowed keys,
blocked keys and the allowed diagonal differ by tint, hatching and outline, and each cell also
carries a written tag, so nothing depends on colour alone.
"""


from __future__ import annotations

import html
import re

from trace_records import TraceFormatError

EXPECTED_COUNTS = {
    "CONFIG": 1,
    "SHAPE": 8,
    "PARTITION": 2,
    "WEIGHT": 6,
    "HEAD_OUTPUT": 6,
    "MERGED": 3,
    "OUTPUT_MAP": 4,
    "OUTPUT": 3,
    "PREFIX_PROOF": 1,
}

SHAPE_LABELS = {
    "input": "Input X",
    "split": "After the head split",
    "rotated": "After RoPE (queries and keys)",
    "weights": "Attention probabilities",
    "head-output": "Head outputs",
    "merged": "After concatenation",
    "output-weight": "Output matrix W_O",
    "output": "Layer output",
}

PARTITION_ROWS = [
    ("projected_query", "Projected Q"),
    ("projected_key", "Projected K"),
    ("projected_value", "Projected V"),
    ("rotated_query", "Q after RoPE"),
    ("rotated_key", "K after RoPE"),
]

PROOF_LABELS = [
    ("exact_zero_probabilities", "Probabilities that are exactly zero (the blocked keys)"),
    ("parameters", "Learned scalar parameters"),
    ("gradchecks", "Coordinates checked by central differences"),
]

_LIST = re.compile(r"^\[(.*)\]$")


def _fail(record, message: str):
    raise TraceFormatError("trace.txt", record.line, f"{record.kind} record: {message}")


def _field(record, key: str) -> str:
    value = record.get(key)
    if value is None:
        _fail(record, f"no {key!r} field")
    return value


def _list(record, key: str) -> list[str]:
    """`[a,b,c]` -> ["a", "b", "c"] (strings, exactly as printed)."""
    match = _LIST.match(_field(record, key))
    if not match:
        _fail(record, f"{key} must be a list [..]")
    inner = match.group(1)
    return inner.split(",") if inner else []


def _rows(record, key: str) -> list[list[str]]:
    """`[[a,b],[c,d]]` -> [["a", "b"], ["c", "d"]]."""
    text = _field(record, key)
    if not (text.startswith("[[") and text.endswith("]]")):
        _fail(record, f"{key} must be a list of rows [[..],[..]]")
    return [row.split(",") for row in text[2:-2].split("],[")]


def _group(records) -> dict[str, list]:
    groups: dict[str, list] = {kind: [] for kind in EXPECTED_COUNTS}
    for record in records:
        if record.kind not in groups:
            _fail(record, "is not a chapter 30 record kind")
        groups[record.kind].append(record)
    for kind, count in EXPECTED_COUNTS.items():
        if len(groups[kind]) != count:
            raise TraceFormatError("trace.txt", records[-1].line,
                                   f"expected {count} {kind} record(s), found {len(groups[kind])}")
    return groups


def _by_head(records, key: str = "head") -> dict[str, list]:
    heads: dict[str, list] = {}
    for record in records:
        heads.setdefault(_field(record, key), []).append(record)
    return heads


# ----------------------------------------------------------------------------- HTML pieces


def _e(text: str) -> str:
    return html.escape(text, quote=True)


def _vector(values: list[str]) -> str:
    return '<span class="llmfs-mono">[' + ",\u200b".join(_e(v) for v in values) + "]</span>"


def _head_class(head: str) -> str:
    return f"llmfs-lane llmfs-lane-{int(head) % 4}"


def _section(title: str, note: str, body: str) -> str:
    return (f'<section><p><strong>{_e(title)}</strong><br>'
            f'<span class="llmfs-muted">{_e(note)}</span></p>{body}</section>')


def _legend() -> str:
    return (
        '<table class="llmfs-table"><caption>How to read the diagram</caption><tbody>'
        '<tr><td><div class="llmfs-lane llmfs-lane-0"><span class="llmfs-lane-label">Head 0</span></div></td>'
        '<td>solid lane border</td></tr>'
        '<tr><td><div class="llmfs-lane llmfs-lane-1"><span class="llmfs-lane-label">Head 1</span></div></td>'
        '<td>dashed lane border</td></tr>'
        '<tr><td class="llmfs-allowed llmfs-num">0.500000 <small>allowed</small></td>'
        '<td>a key the query may see (tinted, tagged "allowed")</td></tr>'
        '<tr><td class="llmfs-blocked llmfs-num">0.000000 <small>blocked</small></td>'
        '<td>a future key, masked: hatched, marked ✕, tagged "blocked"</td></tr>'
        '<tr><td class="llmfs-allowed llmfs-highlight llmfs-num">1.000000 <small>allowed · diagonal</small></td>'
        '<td>the query token itself: outlined and bold, tagged "diagonal"</td></tr>'
        "</tbody></table>"
    )


def _shapes_html(shapes) -> str:
    boxes = []
    for r in shapes:
        boxes.append(f'<div class="llmfs-box"><div class="llmfs-box-title">'
                     f'{_e(SHAPE_LABELS.get(r["stage"], r["stage"]))}</div>'
                     f'<span class="llmfs-shape">{_e(_field(r, "value"))}</span></div>')
    arrow = '<span class="llmfs-arrow" aria-hidden="true"></span>'
    return f'<div class="llmfs-flow">{arrow.join(boxes)}</div>'


def _partition_html(partitions) -> str:
    head_cells = "".join(
        f'<th scope="col"><div class="{_head_class(p["head"])}"><span class="llmfs-lane-label">Head {_e(p["head"])}</span> '
        f'<small>features {_e(",".join(_list(p, "features")))}</small></div></th>'
        for p in partitions
    )
    body = ""
    for key, label in PARTITION_ROWS:
        cells = ""
        for p in partitions:
            rows = _rows(p, key)
            cells += (f'<td><div class="{_head_class(p["head"])}">'
                      + "<br>".join(f"<small>t={t}</small> {_vector(r)}" for t, r in enumerate(rows))
                      + "</div></td>")
        body += f'<tr><th scope="row">{_e(label)}</th>{cells}</tr>'
    return (f'<table class="llmfs-table"><caption>Rows of each head lane, by token '
            f'position t</caption><thead><tr><th scope="col">Stage</th>{head_cells}</tr></thead>'
            f"<tbody>{body}</tbody></table>")


def _weight_cell(probability: str, visibility: str, is_diagonal: bool) -> str:
    classes = ["llmfs-num", "llmfs-allowed" if visibility == "allowed" else "llmfs-blocked"]
    tags = [visibility]
    if is_diagonal:
        classes.append("llmfs-highlight")
        tags.append("diagonal")
    return (f'<td class="{" ".join(classes)}">{_e(probability)}<br>'
            f'<small>{_e(" · ".join(tags))}</small></td>')


def _head_table_html(head: str, weights, outputs) -> str:
    keys = len(_list(weights[0], "probabilities"))
    key_cells = "".join(f'<th scope="col">key {k}</th>' for k in range(keys))
    mixtures = {_field(o, "token"): _list(o, "mixture") for o in outputs}
    body = ""
    for w in weights:
        query = _field(w, "query")
        probabilities = _list(w, "probabilities")
        visibility = _list(w, "visibility")
        scores = _list(w, "scores")
        diagonal = _field(w, "diagonal")
        cells = "".join(
            _weight_cell(p, v, str(k) == diagonal)
            for k, (p, v) in enumerate(zip(probabilities, visibility))
        )
        score_text = ", ".join(scores)
        body += (f'<tr><th scope="row">query {_e(query)}</th>{cells}'
                 f'<td class="llmfs-num">{_e(_field(w, "row_sum"))}</td>'
                 f'<td>{_vector(mixtures.get(query, []))}</td>'
                 f'<td class="llmfs-mono llmfs-muted">{_e(score_text)}</td></tr>')
    return (f'<div class="{_head_class(head)}"><span class="llmfs-lane-label">Head {_e(head)}</span>'
            f'<table class="llmfs-table">'
            f"<caption>Head {_e(head)}: causal attention probabilities</caption>"
            f'<thead><tr><th scope="col">Query</th>{key_cells}<th scope="col">Row sum</th>'
            f'<th scope="col">Value mixture H</th><th scope="col">Scaled scores + mask</th></tr></thead>'
            f"<tbody>{body}</tbody></table></div>")


def _merged_html(merged) -> str:
    body = "".join(
        f'<tr><th scope="row">t={_e(m["token"])}</th>'
        f'<td><div class="{_head_class("0")}">{_vector(_list(m, "head_0"))}</div></td>'
        f'<td><div class="{_head_class("1")}">{_vector(_list(m, "head_1"))}</div></td>'
        f'<td>{_vector(_list(m, "row"))}</td></tr>'
        for m in merged
    )
    return ('<table class="llmfs-table"><caption>Concatenation: head rows side by side, '
            'nothing added</caption><thead><tr><th scope="col">Token</th>'
            f'<th scope="col"><div class="{_head_class("0")}">Head 0</div></th><th scope="col"><div class="{_head_class("1")}">Head 1</div></th>'
            f'<th scope="col">Concatenated row</th></tr></thead><tbody>{body}</tbody></table>')


def _output_map_html(rows) -> str:
    body = "".join(
        f'<tr><th scope="row">row {_e(r["row"])}</th>'
        f'<td><div class="{_head_class(_field(r, "head"))}">head {_e(r["head"])}, feature {_e(_field(r, "head_feature"))}</div></td>'
        f'<td>{_vector(_list(r, "values"))}</td></tr>'
        for r in rows
    )
    return ('<table class="llmfs-table"><caption>Rows of W_O, stored [in, out]: row r receives '
            'concatenated coordinate r</caption><thead><tr><th scope="col">Row</th>'
            '<th scope="col">Reads</th><th scope="col">W_O row</th></tr></thead>'
            f"<tbody>{body}</tbody></table>")


def _output_html(outputs) -> str:
    body = "".join(
        f'<tr><th scope="row">t={_e(o["token"])}</th>'
        f'<td>{_vector(_list(o, "before"))}</td>'
        f'<td>{_vector(_list(o, "after"))}</td></tr>'
        for o in outputs
    )
    return ('<table class="llmfs-table"><caption>Each row before and after multiplying by W_O'
            '</caption><thead><tr><th scope="col">Token</th><th scope="col">Concatenated</th>'
            f'<th scope="col">Output</th></tr></thead><tbody>{body}</tbody></table>')


def _position_word(value: str) -> str:
    """A PREFIX_PROOF position holds how many coordinates of that output row changed."""
    return "unchanged, bit for bit" if value == "0" else f"changed in {value} coordinates"


def _proof_html(proof, tokens: int) -> str:
    positions = "".join(
        f"<li>output row t={t}: {_e(_position_word(_field(proof, f'position_{t}')))}"
        f"{' (=)' if _field(proof, f'position_{t}') == '0' else ' (≠)'}</li>"
        for t in range(tokens)
    )
    checks = "".join(
        f'<tr><th scope="row">{_e(label)}</th><td>{_e(_field(proof, key))}</td></tr>'
        for key, label in PROOF_LABELS
    )
    return (f'<p>Only the last input row replaced:</p><ul>{positions}</ul>'
            f'<table class="llmfs-table"><caption>Counts measured on the fixture</caption>'
            f"<tbody>{checks}</tbody></table>")


# ----------------------------------------------------------------------------- text


def _text(groups, tokens: int) -> str:
    config = groups["CONFIG"][0]
    lines = [
        f"Multi-head attention with batch {config['batch']}, {config['tokens']} tokens, "
        f"model width {config['model_width']}, {config['heads']} heads of width "
        f"{config['head_width']}, RoPE base {config['rope_base']}, capacity "
        f"{config['max_positions']}, offset {config['offset']}, bias {config['bias']}.",
        "Head 0 is drawn with solid borders, head 1 with dashed borders.",
        "",
        "Shapes:",
    ]
    lines += [f"  {SHAPE_LABELS.get(s['stage'], s['stage'])}: {s['value']}" for s in groups["SHAPE"]]
    lines.append("")
    for p in groups["PARTITION"]:
        lines.append(f"Head {p['head']} holds projected features {p['features']}.")
        for key, label in PARTITION_ROWS:
            lines.append(f"  {label}, rows for t=0..{tokens - 1}: {p[key]}")
    lines.append("")
    outputs = _by_head(groups["HEAD_OUTPUT"])
    for head, weights in _by_head(groups["WEIGHT"]).items():
        lines.append(f"Head {head} causal attention probabilities:")
        mixtures = {o["token"]: o["mixture"] for o in outputs.get(head, [])}
        for w in weights:
            probabilities = _list(w, "probabilities")
            visibility = _list(w, "visibility")
            cells = []
            for k, (p, v) in enumerate(zip(probabilities, visibility)):
                tag = v + (", diagonal" if str(k) == w["diagonal"] else "")
                cells.append(f"key {k} {p} ({tag})")
            lines.append(f"  query {w['query']}: " + "; ".join(cells)
                         + f"; row sum {w['row_sum']}; value mixture {mixtures.get(w['query'], '?')}")
    lines.append("")
    lines.append("Concatenated rows (head 0 | head 1 -> row):")
    lines += [f"  t={m['token']}: {m['head_0']} | {m['head_1']} -> {m['row']}" for m in groups["MERGED"]]
    lines.append("Output matrix W_O, one row per concatenated coordinate:")
    lines += [f"  row {r['row']} (head {r['head']}, feature {r['head_feature']}): {r['values']}"
              for r in groups["OUTPUT_MAP"]]
    lines.append("Rows before and after the output projection:")
    lines += [f"  t={o['token']}: {o['before']} -> {o['after']}" for o in groups["OUTPUT"]]
    proof = groups["PREFIX_PROOF"][0]
    lines.append("")
    lines.append("Prefix check, last input row replaced: "
                 + "; ".join(f"row {t} {_position_word(proof[f'position_{t}'])}" for t in range(tokens))
                 + ".")
    lines += [f"  {label}: {proof[key]}" for key, label in PROOF_LABELS]
    return "\n".join(lines)


# ----------------------------------------------------------------------------- entry point


def render(records):
    groups = _group(records)
    config = groups["CONFIG"][0]
    tokens = int(_field(config, "tokens"))
    weights = _by_head(groups["WEIGHT"])
    outputs = _by_head(groups["HEAD_OUTPUT"])
    head_tables = "".join(_head_table_html(head, rows, outputs.get(head, []))
                          for head, rows in weights.items())
    parts = [
        _legend(),
        _section("1 · Project at full width, then split the features into heads",
                 "The packed matrices may read every input feature; this fixture uses identity "
                 "projections only so that each head's block is easy to see.",
                 _shapes_html(groups["SHAPE"]) + _partition_html(groups["PARTITION"])),
        _section("2 · One causal probability table per head",
                 "Each head normalizes its own rows over the visible keys; both share the same "
                 "causal triangle.",
                 head_tables),
        _section("3 · Concatenate, then apply the learned output map",
                 "Concatenation only places the lanes side by side; W_O is the first step that "
                 "can combine them (here it swaps the two blocks).",
                 _merged_html(groups["MERGED"]) + _output_map_html(groups["OUTPUT_MAP"])
                 + _output_html(groups["OUTPUT"])),
        _section("4 · Prefix invariance and the other measured counts",
                 "Replacing the last input row must leave every earlier output row untouched.",
                 _proof_html(groups["PREFIX_PROOF"][0], tokens)),
    ]
    # Figures are centred by the theme; a diagram of tables reads better left-aligned.
    body = f'<div style="text-align: left">{"".join(parts)}</div>'
    return body, _text(groups, tokens)


# The figure's title (a chapter's :caption: replaces it).
TITLE = 'Multi-head attention: two causal lanes, kept apart until the output map mixes them'
