"""Chapter 4 diagram: every chunk of the prediction, merge by merge. Each row is one state
of the chunk: step 0 its bytes, then the tokens after each merge, with the merge's rank and
the new token marked.

Records (snippets/ch04-applying-the-bpe-tokenizer/trace.txt):
  TOKEN|id=256|rank=0|left=108|right=111|bytes="lo"                      one per merge
  CHUNK|chunk=c|text=" lower"|bytes=6|merges=5                           one per chunk
  STEP|chunk=c|step=k|rank=r|position=p|ids=[...]|pieces=["...",...]     one per state
Everything drawn is read from the records; nothing is recomputed.
"""

from trace_records import TraceFormatError

from diagrams.common import esc, items, need, of_kind

TITLE = "Encoding by merge rank: each chunk of “low lower lowest newer”, merge by merge"


def _unquote(piece):
    """`" lo"` -> ` lo`, with the space shown as ␣ so it can be seen."""
    if len(piece) < 2 or piece[0] != '"' or piece[-1] != '"':
        raise ValueError(f"expected a quoted piece, got {piece!r}")
    return piece[1:-1].replace(" ", "␣")


def _tokens(pieces, ids, position):
    cells = []
    for index, (piece, token) in enumerate(zip(pieces, ids)):
        label = f'<span class="llmfs-mono">{esc(piece)}</span><sub class="llmfs-muted">{esc(token)}</sub>'
        if position is not None and index == position:
            label = f'<strong class="llmfs-highlight">{label} ★</strong>'
        cells.append(label)
    return ' <span aria-hidden="true">|</span> '.join(cells)


def _chunk(chunk, steps, tokens, text):
    index, chunk_text, size, merges = need(chunk, "chunk", "text", "bytes", "merges")
    mine = [s for s in steps if s.fields.get("chunk") == index]
    if len(mine) != int(merges) + 1:
        raise TraceFormatError("trace.txt", chunk.line,
                               f"CHUNK says {merges} merges, found {len(mine)} STEP records")
    shown = _unquote(chunk_text)
    text.append(f'Chunk {int(index) + 1}, "{shown}" ({size} bytes), {merges} merge(s):')
    body = []
    for s in mine:
        step, rank, position, ids, pieces = need(s, "step", "rank", "position", "ids", "pieces")
        piece_list = [_unquote(p) for p in items(pieces)]
        id_list = items(ids)
        if rank == "-":
            made = "the bytes"
            spot = None
        else:
            made = f"rank {rank} → {tokens.get(rank, '?')}"
            spot = int(position)
        body.append(f'<tr><td class="llmfs-num">{esc(step)}</td><td>{esc(made)}</td>'
                    f'<td>{_tokens(piece_list, id_list, spot)}</td></tr>')
        star = "" if spot is None else f" (new token at position {spot})"
        text.append(f"- step {step}, {made}: {' | '.join(piece_list)} = [{', '.join(id_list)}]{star}")
    return (f'<table class="llmfs-table"><caption>“{esc(shown)}”: {esc(size)} bytes, '
            f'{esc(merges)} merge(s)</caption><thead><tr><th scope="col">step</th>'
            '<th scope="col">merge applied</th><th scope="col">tokens (id below; ★ = new)</th>'
            '</tr></thead><tbody>' + "".join(body) + "</tbody></table>")


def render(records):
    token_records, chunks, steps = of_kind(records, "TOKEN"), of_kind(records, "CHUNK"), of_kind(records, "STEP")
    if not token_records or not chunks:
        raise TraceFormatError("trace.txt", records[-1].line if records else 1,
                               "expected TOKEN and CHUNK records")
    tokens = {}
    for t in token_records:
        token_id, rank, piece = need(t, "id", "rank", "bytes")
        tokens[rank] = f"{_unquote(piece)} ({token_id})"
    text = ["Each chunk starts as its bytes; each row applies the lowest-rank merge still "
            "present (leftmost first). ␣ is a space."]
    parts = [_chunk(chunk, steps, tokens, text) for chunk in chunks]
    text.append("The star marks the token the row's merge made.")
    return "".join(parts), "\n".join(text)
