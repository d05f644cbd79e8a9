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
