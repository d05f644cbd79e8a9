"""Chapter 3 diagram: the fixture's merges step by step. For each merge, the pairs counted
at least twice (the chosen one marked), then every chunk split into its tokens after the
merge, the new token highlighted; at the end, why training stopped.

Records (snippets/ch03-learning-bpe-merges/trace.txt):
  CHUNK|index=i|text=...                                        one per chunk, in order
  STEP|rank=r|token=id|pair=(a,b)|bytes=...|count=n|once=k       one per merge
  CANDIDATE|rank=r|pair=(a,b)|bytes=x+y|count=n|chosen=0|1       pairs counted twice or more
  SEGMENT|rank=r|chunk=i|tokens=t·he                             each chunk after merge r
  STOP|reason=...|merges=m|once=k                                the end
Everything drawn is read from the records; nothing is recomputed.
"""

from trace_records import TraceFormatError

from diagrams.common import esc, need, of_kind

TITLE = "The fixture's merges, one step at a time"


def _tokens(segmented, new_bytes):
    """A chunk's tokens as boxes; the token made by this step is highlighted and starred."""
    cells = []
    for token in segmented.split("·"):
        if token == new_bytes:
            cells.append(f'<span class="llmfs-mono llmfs-highlight">{esc(token)}★</span>')
        else:
            cells.append(f'<span class="llmfs-mono">{esc(token)}</span>')
    return '<span aria-hidden="true"> · </span>'.join(cells)


def _step(step, candidates, segments, text):
    rank, token, pair, new_bytes, count, once = need(step, "rank", "token", "pair", "bytes",
                                                     "count", "once")
    mine = [c for c in candidates if c.fields.get("rank") == rank]
    if not any(c.fields.get("chosen") == "1" for c in mine):
        raise TraceFormatError("trace.txt", step.line, f"no chosen CANDIDATE for rank {rank}")
    text.append(f"Merge {int(rank) + 1}: pair {pair} becomes token {token} = \"{new_bytes}\" "
                f"(count {count}). Pairs counted twice or more before it:")
    rows = []
    for c in mine:
        c_pair, c_bytes, c_count, chosen = need(c, "pair", "bytes", "count", "chosen")
        picked = chosen == "1"
        mark = ' class="llmfs-highlight"' if picked else ""
        rows.append(f'<tr{mark}><td class="llmfs-mono">{esc(c_pair)}</td>'
                    f'<td class="llmfs-mono">{esc(c_bytes)}</td>'
                    f'<td class="llmfs-num">{esc(c_count)}</td>'
                    f'<td>{"✓ merged" if picked else ""}</td></tr>')
        text.append(f"- {c_bytes} {c_pair}: {c_count}" + (" (merged)" if picked else ""))
    text.append(f"- and {once} pairs counted once")
    chunks = [s for s in segments if s.fields.get("rank") == rank]
    pieces = [_tokens(need(s, "tokens")[0], new_bytes) for s in chunks]
    text.append("Chunks after it: " + " | ".join(need(s, "tokens")[0] for s in chunks))
    table = (f'<table class="llmfs-table"><caption>Merge {int(rank) + 1}: {esc(pair)} → '
             f'{esc(token)} “{esc(new_bytes)}”; {esc(once)} more pairs counted once</caption>'
             '<thead><tr><th scope="col">pair</th><th scope="col">bytes</th>'
             '<th scope="col">count</th><th scope="col">chosen</th></tr></thead><tbody>'
             + "".join(rows) + "</tbody></table>")
    flow = ('<div class="llmfs-flow">' + "".join(
        f'<div class="llmfs-box">{p}</div>' for p in pieces) + "</div>")
    return table + flow


def render(records):
    chunks, steps = of_kind(records, "CHUNK"), of_kind(records, "STEP")
    stops = of_kind(records, "STOP")
    if not chunks or not steps or len(stops) != 1:
        raise TraceFormatError("trace.txt", records[-1].line if records else 1,
                               "expected CHUNK and STEP records and one STOP")
    candidates, segments = of_kind(records, "CANDIDATE"), of_kind(records, "SEGMENT")
    text = ["Chunks of the fixture: " + " | ".join(need(c, "text")[0] for c in chunks)]
    parts = ['<div class="llmfs-flow">' + "".join(
        f'<div class="llmfs-box"><span class="llmfs-mono">{esc(need(c, "text")[0])}</span></div>'
        for c in chunks) + "</div>"]
    for step in steps:
        parts.append(_step(step, candidates, segments, text))
    reason, merges, once = need(stops[0], "reason", "merges", "once")
    stop = f"Training stops after {merges} merges: {reason} ({once} pairs left, each counted once)."
    parts.append(f'<p class="llmfs-muted">{esc(stop)}</p>')
    text.append(stop)
    text.append("★ and the highlight mark the token the step made; ✓ the pair it merged.")
    return "".join(parts), "\n".join(text)
