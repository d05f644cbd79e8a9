"""Chapter 30's diagram: two causal attention lanes, kept apart until the output map.

render(records) reads the 34 records that `ch30-multi-head-attention --trace` prints
(snippets/ch30-multi-head-attention/trace.txt) and returns (html, text_alternative). Every
number and label it shows is copied from a record; nothing is recomputed here. The HTML uses
the classes in docs/_static/diagrams/ch30.css: heads differ by border style (solid, dashed)
and by a written label; allowed keys, blocked keys and the allowed diagonal differ by a
written tag, an underline style and a border, never by colour alone.
"""

from __future__ import annotations

import html
import re

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
    ("split_merge", "Split followed by merge"),
    ("head_isolation", "Influence between heads"),
    ("future_probabilities", "Probabilities of future keys"),
    ("common_offset", "Shared position offset, same content"),
    ("parameters", "Learned scalar parameters"),
    ("gradchecks", "Coordinates checked by central differences"),
    ("tolerance", "Invariance tolerance"),
]

PROOF_WORDS = {
    "bitwise": "restores the tensor bit for bit",
    "before-output": "none before the output projection",
    "exact-zero": "exactly zero",
    "preserved": "attention probabilities preserved",
}

_NUMBER_LIST = re.compile(r"^\[(.*)\]$")


class Ch30TraceError(ValueError):
    """The trace does not have the shape this renderer draws."""


# ----------------------------------------------------------------------------- reading


def _list(text: str, what: str) -> list[str]:
    """`[a,b,c]` -> ["a", "b", "c"] (strings, exactly as printed)."""
    match = _NUMBER_LIST.match(text)
    if not match:
        raise Ch30TraceError(f"{what}: expected a list [..], got {text!r}")
    inner = match.group(1)
    return inner.split(",") if inner else []


def _rows(text: str, what: str) -> list[list[str]]:
    """`[[a,b],[c,d]]` -> [["a", "b"], ["c", "d"]]."""
    if not (text.startswith("[[") and text.endswith("]]")):
        raise Ch30TraceError(f"{what}: expected rows [[..],[..]], got {text!r}")
    return [row.split(",") for row in text[2:-2].split("],[")]


def _field(record, key: str) -> str:
    value = record.get(key)
    if value is None:
        raise Ch30TraceError(f"trace line {record.line}: {record.kind} record has no {key!r}")
    return value


def _group(records) -> dict[str, list]:
    groups: dict[str, list] = {kind: [] for kind in EXPECTED_COUNTS}
    for record in records:
        if record.kind not in groups:
            raise Ch30TraceError(f"trace line {record.line}: unexpected record kind {record.kind}")
        groups[record.kind].append(record)
    for kind, count in EXPECTED_COUNTS.items():
        if len(groups[kind]) != count:
            raise Ch30TraceError(f"expected {count} {kind} record(s), found {len(groups[kind])}")
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
    return '<span class="ch30-vec">[' + ",\u200b".join(_e(v) for v in values) + "]</span>"


def _head_class(head: str) -> str:
    return "ch30-head-0" if head == "0" else "ch30-head-1"


def _section(title: str, note: str, body: str) -> str:
    return (f'<section class="ch30-step"><h4 class="ch30-step-title">{_e(title)}</h4>'
            f'<p class="ch30-note">{_e(note)}</p>{body}</section>')


def _legend() -> str:
    return (
        '<ul class="ch30-legend" aria-label="How to read the diagram">'
        '<li><span class="ch30-swatch ch30-head-0">Head 0</span> solid border</li>'
        '<li><span class="ch30-swatch ch30-head-1">Head 1</span> dashed border</li>'
        '<li><span class="ch30-cell ch30-allowed ch30-swatch-cell">0.50 <small>allowed</small></span>'
        ' allowed key: solid underline</li>'
        '<li><span class="ch30-cell ch30-blocked ch30-swatch-cell">0.00 <small>blocked</small></span>'
        ' blocked key: dashed underline, hatched</li>'
        '<li><span class="ch30-cell ch30-allowed ch30-diagonal ch30-swatch-cell">1.00 <small>diagonal</small></span>'
        ' the token itself: double border</li>'
        "</ul>"
    )


def _shapes_html(shapes) -> str:
    items = "".join(
        f'<li><span class="ch30-stage">{_e(SHAPE_LABELS.get(r["stage"], r["stage"]))}</span>'
        f'<code class="ch30-shape">{_e(_field(r, "value"))}</code></li>'
        for r in shapes
    )
    return f'<ol class="ch30-shape-flow">{items}</ol>'


def _partition_html(partitions) -> str:
    head_cells = "".join(
        f'<th scope="col" class="{_head_class(p["head"])}">Head {_e(p["head"])} '
        f'<small>features {_e(",".join(_list(_field(p, "features"), "features")))}</small></th>'
        for p in partitions
    )
    body = ""
    for key, label in PARTITION_ROWS:
        cells = ""
        for p in partitions:
            rows = _rows(_field(p, key), key)
            cells += (f'<td class="{_head_class(p["head"])}">'
                      + "<br>".join(f"<small>t={t}</small> {_vector(r)}" for t, r in enumerate(rows))
                      + "</td>")
        body += f'<tr><th scope="row">{_e(label)}</th>{cells}</tr>'
    return (f'<table class="ch30-table ch30-partition"><caption>Rows of each head lane, by token '
            f'position t</caption><thead><tr><th scope="col">Stage</th>{head_cells}</tr></thead>'
            f"<tbody>{body}</tbody></table>")


def _weight_cell(probability: str, visibility: str, is_diagonal: bool) -> str:
    classes = ["ch30-cell", "ch30-allowed" if visibility == "allowed" else "ch30-blocked"]
    tags = [visibility]
    if is_diagonal:
        classes.append("ch30-diagonal")
        tags.append("diagonal")
    return (f'<td class="{" ".join(classes)}">{_e(probability)} '
            f'<small class="ch30-tag">{_e(" · ".join(tags))}</small></td>')


def _head_table_html(head: str, weights, outputs) -> str:
    keys = len(_list(_field(weights[0], "probabilities"), "probabilities"))
    key_cells = "".join(f'<th scope="col">key {k}</th>' for k in range(keys))
    mixtures = {_field(o, "token"): _list(_field(o, "mixture"), "mixture") for o in outputs}
    body = ""
    for w in weights:
        query = _field(w, "query")
        probabilities = _list(_field(w, "probabilities"), "probabilities")
        visibility = _list(_field(w, "visibility"), "visibility")
        scores = _list(_field(w, "scores"), "scores")
        diagonal = _field(w, "diagonal")
        cells = "".join(
            _weight_cell(p, v, str(k) == diagonal)
            for k, (p, v) in enumerate(zip(probabilities, visibility))
        )
        score_text = ", ".join(scores)
        body += (f'<tr><th scope="row">query {_e(query)}</th>{cells}'
                 f'<td class="ch30-sum">{_e(_field(w, "row_sum"))}</td>'
                 f'<td class="ch30-mix">{_vector(mixtures.get(query, []))}</td>'
                 f'<td class="ch30-scores"><small>{_e(score_text)}</small></td></tr>')
    return (f'<table class="ch30-table ch30-weights {_head_class(head)}">'
            f"<caption>Head {_e(head)}: causal attention probabilities</caption>"
            f'<thead><tr><th scope="col">Query</th>{key_cells}<th scope="col">Row sum</th>'
            f'<th scope="col">Value mixture H</th><th scope="col">Scaled scores + mask</th></tr></thead>'
            f"<tbody>{body}</tbody></table>")


def _merged_html(merged) -> str:
    body = "".join(
        f'<tr><th scope="row">t={_e(m["token"])}</th>'
        f'<td class="ch30-head-0">{_vector(_list(_field(m, "head_0"), "head_0"))}</td>'
        f'<td class="ch30-head-1">{_vector(_list(_field(m, "head_1"), "head_1"))}</td>'
        f'<td>{_vector(_list(_field(m, "row"), "row"))}</td></tr>'
        for m in merged
    )
    return ('<table class="ch30-table"><caption>Concatenation: head rows side by side, '
            'nothing added</caption><thead><tr><th scope="col">Token</th>'
            '<th scope="col" class="ch30-head-0">Head 0</th><th scope="col" class="ch30-head-1">Head 1</th>'
            f'<th scope="col">Concatenated row</th></tr></thead><tbody>{body}</tbody></table>')


def _output_map_html(rows) -> str:
    body = "".join(
        f'<tr><th scope="row">row {_e(r["row"])}</th>'
        f'<td class="{_head_class(_field(r, "head"))}">head {_e(r["head"])}, feature {_e(_field(r, "head_feature"))}</td>'
        f'<td>{_vector(_list(_field(r, "values"), "values"))}</td></tr>'
        for r in rows
    )
    return ('<table class="ch30-table"><caption>Rows of W_O, stored [in, out]: row r receives '
            'concatenated coordinate r</caption><thead><tr><th scope="col">Row</th>'
            '<th scope="col">Reads</th><th scope="col">W_O row</th></tr></thead>'
            f"<tbody>{body}</tbody></table>")


def _output_html(outputs) -> str:
    body = "".join(
        f'<tr><th scope="row">t={_e(o["token"])}</th>'
        f'<td>{_vector(_list(_field(o, "before"), "before"))}</td>'
        f'<td>{_vector(_list(_field(o, "after"), "after"))}</td></tr>'
        for o in outputs
    )
    return ('<table class="ch30-table"><caption>Each row before and after multiplying by W_O'
            '</caption><thead><tr><th scope="col">Token</th><th scope="col">Concatenated</th>'
            f'<th scope="col">Output</th></tr></thead><tbody>{body}</tbody></table>')


def _position_word(value: str) -> str:
    return {"bitwise-unchanged": "unchanged, bit for bit", "changed": "changed"}.get(value, value)


def _proof_html(proof, tokens: int) -> str:
    positions = "".join(
        f'<li class="ch30-proof-{_e(_field(proof, f"position_{t}"))}">'
        f"output row t={t}: {_e(_position_word(_field(proof, f'position_{t}')))}</li>"
        for t in range(tokens)
    )
    checks = "".join(
        f'<tr><th scope="row">{_e(label)}</th><td>{_e(PROOF_WORDS.get(_field(proof, key), _field(proof, key)))}</td></tr>'
        for key, label in PROOF_LABELS
    )
    return (f'<p class="ch30-note">Only the last input row replaced:</p><ul class="ch30-proof">{positions}</ul>'
            f'<table class="ch30-table"><caption>Checks recorded with the trace</caption>'
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
            probabilities = _list(w["probabilities"], "probabilities")
            visibility = _list(w["visibility"], "visibility")
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
    lines += [f"  {label}: {PROOF_WORDS.get(proof[key], proof[key])}" for key, label in PROOF_LABELS]
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
                 f'<div class="ch30-heads">{head_tables}</div>'),
        _section("3 · Concatenate, then apply the learned output map",
                 "Concatenation only places the lanes side by side; W_O is the first step that "
                 "can combine them (here it swaps the two blocks).",
                 _merged_html(groups["MERGED"]) + _output_map_html(groups["OUTPUT_MAP"])
                 + _output_html(groups["OUTPUT"])),
        _section("4 · Prefix invariance and the other recorded checks",
                 "Replacing the last input row must leave every earlier output row untouched.",
                 _proof_html(groups["PREFIX_PROOF"][0], tokens)),
    ]
    body = f'<div class="ch30-diagram">{"".join(parts)}</div>'
    return body, _text(groups, tokens)
