"""Chapter 5 diagram: the prediction's sequence with each window drawn as a row (context
cells, then the target), then the example count of every fixture document under each
configuration, as the library enumerates them.

Records (snippets/ch05-autoregressive-examples/trace.txt):
  TOKEN|position=k|id=n|text=c                                 one per position of the sequence
  WINDOW|example=i|first=a|last=b|target=t|next=c              one per example
  COUNT|title=...|split=s|n=n|context=T|stride=S|examples=e   per fixture document and config
Everything drawn is read from the records; nothing is recomputed.
"""

from trace_records import TraceFormatError

from diagrams.common import esc, need, of_kind

TITLE = "Windows of T context tokens and one target, every S tokens, inside one document"


def _grid(tokens, windows, text):
    cells = [need(t, "position", "text") for t in tokens]
    head = "".join(f'<th scope="col" class="llmfs-mono">{esc(p)}<br>{esc(c)}</th>' for p, c in cells)
    text.append("The sequence: " + " ".join(f"{p}:{c}" for p, c in cells))
    rows = []
    for window in windows:
        example, first, last, target, next_text = need(window, "example", "first", "last", "target", "next")
        first, last, target = int(first), int(last), int(target)
        row = []
        for position, _ in cells:
            k = int(position)
            if first <= k <= last:
                row.append('<td class="llmfs-allowed llmfs-mono">ctx</td>')
            elif k == target:
                row.append('<td class="llmfs-highlight llmfs-mono">→ next</td>')
            else:
                row.append('<td class="llmfs-muted"></td>')
        rows.append(f'<tr><th scope="row">example {esc(example)}</th>{"".join(row)}</tr>')
        text.append(f"- example {example}: context positions {first} to {last}, "
                    f"target position {target} ({next_text})")
    if len(cells) - 1 not in {int(need(w, "target")[0]) for w in windows}:
        text.append(f"- position {len(cells) - 1} ({cells[-1][1]}) is the target of no example")
    return ('<table class="llmfs-table"><caption>Each row is one example: ctx = context, '
            '→ next = the token it predicts</caption><thead><tr><th scope="col">position<br>token</th>'
            + head + "</tr></thead><tbody>" + "".join(rows) + "</tbody></table>")


def _counts(counts, text):
    configs = []
    for c in counts:
        key = tuple(need(c, "context", "stride"))
        if key not in configs:
            configs.append(key)
    titles = []
    for c in counts:
        if need(c, "title")[0] not in titles:
            titles.append(need(c, "title")[0])
    head = "".join(f'<th scope="col">T={esc(t)}, S={esc(s)}</th>' for t, s in configs)
    rows = []
    text.append("Examples per fixture document:")
    for title in titles:
        mine = [c for c in counts if c.fields.get("title") == title]
        split, n = need(mine[0], "split", "n")
        cells, parts = [], []
        for c in mine:
            t, s, examples = need(c, "context", "stride", "examples")
            cells.append(f'<td class="llmfs-num">{esc(examples)}</td>')
            parts.append(f"T={t} S={s}: {examples}")
        rows.append(f"<tr><th scope=\"row\">{esc(title)}</th><td>{esc(split)}</td>"
                    f'<td class="llmfs-num">{esc(n)}</td>{"".join(cells)}</tr>')
        text.append(f"- {title} ({split}, n = {n}): " + "; ".join(parts))
    return ('<table class="llmfs-table"><caption>Examples per document, enumerated by the library'
            '</caption><thead><tr><th scope="col">document</th><th scope="col">split</th>'
            '<th scope="col">n</th>' + head + "</tr></thead><tbody>" + "".join(rows) + "</tbody></table>")


def render(records):
    tokens, windows, counts = of_kind(records, "TOKEN"), of_kind(records, "WINDOW"), of_kind(records, "COUNT")
    if not tokens or not windows or not counts:
        raise TraceFormatError("trace.txt", records[-1].line if records else 1,
                               "expected TOKEN, WINDOW and COUNT records")
    text = []
    html = _grid(tokens, windows, text) + _counts(counts, text)
    return html, "\n".join(text)
