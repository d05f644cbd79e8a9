"""Chapter 41 diagram: the Predict row's keys in their blocks, with the running statistics
m and l after each block and the rescale factor applied to what came before; the tiles of
the Predict head (which query block meets which key block); and the bytes the tape keeps
with each kernel as T doubles.

Records (snippets/ch41-attention-that-never-stores-its-weights/trace.txt):
  ROW|scores=[..]|block=b                                                         one
  BLOCK|index=i|first_key=j|keys=n|block_max=..|rescale=..|m=..|l=..              per block
  RESULT|log_sum_exp=..|one_pass_l=..                                             one
  TILE|query_block=q|key_block=k|kind=full|diagonal|skipped                       per tile
  TAPE|tokens=T|stored_bytes=..|streaming_bytes=..                                per T
Everything drawn is read from the records; bar lengths are bytes over the largest bytes.
"""

from trace_records import TraceFormatError

from diagrams.common import bar, esc, items, need, of_kind, single

TITLE = "Streaming attention: one row's key blocks and running statistics, the tiles, the tape"

MARK = {"full": "● computed", "diagonal": "◐ computed, masked above the diagonal",
        "skipped": "✕ never computed"}


def render(records):
    row, result = single(records, "ROW"), single(records, "RESULT")
    blocks, tiles, tape = of_kind(records, "BLOCK"), of_kind(records, "TILE"), of_kind(records, "TAPE")
    if not blocks or not tiles or not tape:
        raise TraceFormatError("trace.txt", row.line, "expected BLOCK, TILE and TAPE records")
    scores, block = need(row, "scores", "block")
    values = items(scores)
    text = [f"One query row, scores ({', '.join(values)}), folded {block} keys at a time."]
    cells, stats = [], []
    for b in blocks:
        i, first, n, bmax, alpha, m, l = need(b, "index", "first_key", "keys", "block_max",
                                             "rescale", "m", "l")
        keys = values[int(first):int(first) + int(n)]
        cells.append(f'<td colspan="{n}" class="llmfs-num">' +
                     " ".join(f'<span class="llmfs-mono">{esc(s)}</span>' for s in keys) + "</td>")
        stats.append(f'<td colspan="{n}" class="llmfs-num">block max {esc(bmax)}<br>'
                     f'α = {esc(alpha)}<br><strong>m = {esc(m)}</strong><br>'
                     f'<strong>ℓ = {esc(l)}</strong></td>')
        text.append(f"- block {i} (keys {first}..{int(first) + int(n) - 1}: {', '.join(keys)}): "
                    f"block max {bmax}; earlier sum rescaled by α = {alpha}; then m = {m}, ℓ = {l}")
    lse, direct = need(result, "log_sum_exp", "one_pass_l")
    table1 = ('<table class="llmfs-table"><caption>The Predict row, block by block: the running '
              f'maximum m and sum ℓ after each block (one pass over all keys gives ℓ = {esc(direct)}; '
              f'log-sum-exp m + ln ℓ = {esc(lse)})</caption><tbody><tr><th scope="row">scores</th>'
              + "".join(cells) + '</tr><tr><th scope="row">after the block</th>' + "".join(stats)
              + "</tr></tbody></table>")
    text.append(f"One pass over every key gives ℓ = {direct}; the row's log-sum-exp m + ln ℓ = {lse}.")
    size = 1 + max(int(need(t, "query_block")[0]) for t in tiles)
    grid = {(need(t, "query_block")[0], need(t, "key_block")[0]): need(t, "kind")[0] for t in tiles}
    body = []
    for q in range(size):
        tds = []
        for k in range(size):
            kind = grid.get((str(q), str(k)))
            if kind not in MARK:
                raise TraceFormatError("trace.txt", tiles[0].line, f"tile {q},{k} missing or unknown")
            css = "llmfs-allowed" if kind != "skipped" else "llmfs-blocked"
            tds.append(f'<td class="{css}">{esc(MARK[kind])}</td>')
        body.append(f'<tr><th scope="row">query block {q}</th>{"".join(tds)}</tr>')
        text.append(f"- query block {q}: " + "; ".join(
            f"key block {k} {grid[(str(q), str(k))]}" for k in range(size)))
    head = "".join(f'<th scope="col">key block {k}</th>' for k in range(size))
    table2 = ('<table class="llmfs-table"><caption>The Predict head (T = 5, 2 keys a block): '
              'the tiles the kernel visits</caption><thead><tr><th></th>' + head +
              "</tr></thead><tbody>" + "".join(body) + "</tbody></table>")
    largest = max(int(v) for t in tape for v in need(t, "stored_bytes", "streaming_bytes"))
    rows = []
    for t in tape:
        tokens, stored, streaming = need(t, "tokens", "stored_bytes", "streaming_bytes")
        rows.append(f'<tr><th scope="row">{esc(tokens)}</th>'
                    f'<td class="llmfs-num">{esc(stored)}</td>'
                    f'<td>{bar(f"{int(stored) / largest:.4f}", f"stored {stored} bytes", "ch41-bar")}</td>'
                    f'<td class="llmfs-num">{esc(streaming)}</td>'
                    f'<td>{bar(f"{int(streaming) / largest:.4f}", f"streaming {streaming} bytes", "ch41-bar")}</td></tr>')
        text.append(f"- T = {tokens}: the tape keeps {stored} bytes with stored weights, "
                    f"{streaming} bytes streaming")
    table3 = ('<table class="llmfs-table"><caption>Bytes the tape keeps after one layer forward '
              '(d_model = 16, h = 2)</caption><thead><tr><th scope="col">T</th>'
              '<th scope="col">stored weights</th><th></th><th scope="col">streaming</th><th></th>'
              "</tr></thead><tbody>" + "".join(rows) + "</tbody></table>")
    return table1 + table2 + table3, "\n".join(text)
