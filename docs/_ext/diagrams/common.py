"""Helpers shared by the chapter diagram renderers: picking records by kind, reading list
fields, escaping, and a weight bar drawn in currentColor.

Import with `from diagrams.common import ...` (docs/_ext is on sys.path while the book builds).
"""

from __future__ import annotations

import html

from trace_records import TraceFormatError


def need(record, *keys):
    """The values of `keys` in `record`, in order; a missing key fails the build at
    trace.txt:LINE."""
    for key in keys:
        if key not in record.fields:
            raise TraceFormatError("trace.txt", record.line, f"{record.kind} record lacks '{key}'")
    return [record.fields[k] for k in keys]


def number(record, key):
    """The field `key` of `record` as a float; a field that is not a number is a
    TraceFormatError naming its line."""
    (text,) = need(record, key)
    try:
        return float(text)
    except ValueError:
        raise TraceFormatError("trace.txt", record.line, f"{key}={text!r} is not a number")


def of_kind(records, kind):
    """Every record of `kind`, in file order."""
    return [r for r in records if r.kind == kind]


def single(records, kind):
    """The one record of `kind`; ValueError if there are none or several."""
    found = of_kind(records, kind)
    if len(found) != 1:
        raise ValueError(f"expected one {kind} record, found {len(found)}")
    return found[0]


def items(text: str) -> list[str]:
    """The items of a list field: `[a,b,c]` -> ["a", "b", "c"]; `[]` -> []."""
    text = text.strip()
    if not (text.startswith("[") and text.endswith("]")):
        raise ValueError(f"expected a list [a,b,...], got {text!r}")
    body = text[1:-1]
    return body.split(",") if body else []


def pretty(text: str) -> str:
    """A list field for reading: `[a,b]` becomes `[a, b]`."""
    return "[" + ", ".join(items(text)) + "]"


def esc(text: str) -> str:
    """HTML-escaped text, quotes included."""
    return html.escape(text, quote=True)


def bar(weight_text: str, label: str, css_class: str) -> str:
    """A horizontal bar in an inline SVG of class `css_class`: an outline 61 units wide and a
    filled rectangle 60·w units long for the weight w (clamped to [0, 1]), both drawn in
    currentColor so they follow light and dark mode. `label` is its accessible name."""
    weight = min(max(float(weight_text), 0.0), 1.0)
    width = 60.0 * weight
    return (
        f'<svg class="{css_class}" viewBox="0 0 62 8" width="62" height="8" role="img" '
        f'aria-label="{esc(label)}">'
        f'<rect x="0.5" y="0.5" width="61" height="7" fill="none" stroke="currentColor" '
        f'stroke-width="0.5" opacity="0.5"/>'
        f'<rect x="1" y="1" width="{width:.3f}" height="6" fill="currentColor"/></svg>'
    )


def matrix_box(record, name: str, role: str) -> tuple[str, str]:
    """A MATRIX record (shape=[..,c], values=[..]) as a titled table of its rows, and its text
    alternative `name shape (role): (row); (row)`."""
    shape, values = need(record, "shape", "values")
    dims = [int(d) for d in items(shape)]
    cells = items(values)
    columns = dims[-1] if dims else 1
    if not dims or len(cells) % columns:
        raise TraceFormatError("trace.txt", record.line, f"{len(cells)} values for shape {shape}")
    rows = [cells[i:i + columns] for i in range(0, len(cells), columns)]
    body = "".join("<tr>" + "".join(f'<td class="llmfs-num">{esc(v)}</td>' for v in row) + "</tr>"
                   for row in rows)
    html = (f'<div class="llmfs-box"><div class="llmfs-box-title">{esc(name)} '
            f'<span class="llmfs-shape">{esc(shape)}</span></div>'
            f'<table class="llmfs-table"><tbody>{body}</tbody></table>'
            f'<div class="llmfs-box-note">{esc(role)}</div></div>')
    text = f"{name} {shape} ({role}): " + "; ".join("(" + ", ".join(r) + ")" for r in rows)
    return html, text


def flow(parts: list[str], operators: list[str]) -> str:
    """Boxes joined by the operators between them (`·`, `+`, `=`), or by a gap ("")."""
    out = [parts[0]]
    for op, part in zip(operators, parts[1:]):
        if op:
            out.append(f'<span class="llmfs-mono" aria-hidden="true">{esc(op)}</span>')
        out.append(part)
    return '<div class="llmfs-flow">' + "".join(out) + "</div>"
