"""Chapter 1 diagram: the UTF-8 layout table, then every byte of the fixture words with
its marker bits, payload bits, role and the code point it belongs to.

Records (snippets/ch01-text-units/trace.txt):
  LAYOUT|length=n|first=U+..|last=U+..|pattern=110xxxxx 10xxxxxx|bits=b    one per row
  WORD|word=i|text=...|code_points=n|bytes=m                               one per word
  BYTE|word=i|offset=k|value=v|hex=HH|marker=110|payload=00011|role=...|code_point=U+..
Everything drawn is read from the records; nothing is recomputed.
"""

from trace_records import TraceFormatError

from diagrams.common import esc, of_kind, need




def _bits(marker, payload):
    """Marker bits muted, payload bits bold, a middle dot between: weight and a symbol, not
    colour alone."""
    marker_html = f'<span class="llmfs-muted">{esc(marker)}</span>' if marker else ""
    return (f'<span class="llmfs-mono">{marker_html}<span aria-hidden="true">·</span>'
            f'<strong>{esc(payload)}</strong></span>')


def _layout(rows, text):
    body = []
    text.append("UTF-8 layout (marker bits fixed, x = payload bits):")
    for row in rows:
        length, first, last, pattern, bits = need(row, "length", "first", "last", "pattern", "bits")
        body.append(f'<tr><td class="llmfs-num">{esc(length)}</td><td class="llmfs-mono">{esc(first)}–{esc(last)}</td>'
                    f'<td class="llmfs-mono">{esc(pattern)}</td><td class="llmfs-num">{esc(bits)}</td></tr>')
        text.append(f"- {length} byte(s): {first} to {last}, pattern {pattern}, {bits} payload bits")
    return ('<table class="llmfs-table"><caption>The four rows of UTF-8</caption><thead><tr>'
            '<th scope="col">bytes</th><th scope="col">code points</th><th scope="col">bit pattern</th>'
            '<th scope="col">payload bits</th></tr></thead><tbody>' + "".join(body) + "</tbody></table>")


def _word(word, byte_records, text):
    index, word_text, points, count = need(word, "word", "text", "code_points", "bytes")
    mine = [b for b in byte_records if b.fields.get("word") == index]
    if len(mine) != int(count):
        raise TraceFormatError("trace.txt", word.line, f"WORD says {count} bytes, found {len(mine)} BYTE records")
    text.append(f'"{word_text}": {points} code point(s) in {count} bytes:')
    body = []
    for b in mine:
        offset, value, hexa, marker, payload, role, cp = need(
            b, "offset", "value", "hex", "marker", "payload", "role", "code_point")
        starts = role.startswith("lead")
        mark = ' class="llmfs-highlight"' if starts else ""
        body.append(f'<tr{mark}>'
                    f'<td class="llmfs-num">{esc(offset)}</td><td class="llmfs-num">{esc(value)}</td>'
                    f'<td class="llmfs-mono">{esc(hexa)}</td><td>{_bits(marker, payload)}</td>'
                    f'<td>{esc(role)}</td><td class="llmfs-mono">{esc(cp)}</td></tr>')
        text.append(f"- byte {offset}: {value} (0x{hexa}) = marker {marker} + payload {payload}, "
                    f"{role}, part of {cp}")
    return (f'<table class="llmfs-table"><caption>“{esc(word_text)}”: {esc(points)} code point(s), '
            f'{esc(count)} bytes</caption><thead><tr><th scope="col">offset</th><th scope="col">byte</th>'
            '<th scope="col">hex</th><th scope="col">marker · payload</th><th scope="col">role</th>'
            '<th scope="col">code point</th></tr></thead><tbody>' + "".join(body) + "</tbody></table>")


def render(records):
    layout, words, byte_records = of_kind(records, "LAYOUT"), of_kind(records, "WORD"), of_kind(records, "BYTE")
    if len(layout) != 4 or not words:
        raise TraceFormatError("trace.txt", records[-1].line if records else 1,
                               "expected four LAYOUT records and at least one WORD")
    text = []
    parts = [_layout(layout, text)]
    for word in words:
        parts.append(_word(word, byte_records, text))
    text.append("Bold bits are payload (the code point's own bits); muted bits are markers. "
                "Highlighted rows start a multi-byte sequence.")
    return "".join(parts), "\n".join(text)
