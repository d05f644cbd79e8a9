"""Chapter 6 diagram: the fixture's bigram table, one row per previous token, each cell
its count and its add-alpha probability (a bar), with the validation document's four
predictions marked.

Records (snippets/ch06-a-bigram-baseline/trace.txt):
  VOCAB|size=V|alpha=a|tokens=[a,b,n,BOS,EOS]                 the vocabulary, once
  ROW|prev=t|total=c|denominator=c+aV                         one per previous token
  CELL|prev=t|next=u|count=c|probability=p                    one per (prev, next)
  PAIR|prev=t|next=u|probability=p                            the validation predictions
Everything drawn is read from the records; nothing is recomputed.
"""

from trace_records import TraceFormatError

from diagrams.common import esc, items, need, of_kind, single


def _plain(number):
    """A record's fixed-point number as it is, or as an integer when it is one (9.000000 -> 9)."""
    whole, _, fraction = number.partition(".")
    return whole if fraction.strip("0") == "" else number


def render(records):
    vocab = single(records, "VOCAB")
    size, alpha, tokens = need(vocab, "size", "alpha", "tokens")
    names = items(tokens)
    rows, cells, pairs = of_kind(records, "ROW"), of_kind(records, "CELL"), of_kind(records, "PAIR")
    if len(rows) != len(names) or len(cells) != len(names) ** 2:
        raise TraceFormatError("trace.txt", vocab.line, f"expected {size} ROW and {size}² CELL records")
    scored = {tuple(need(p, "prev", "next")) for p in pairs}
    text = [f"Bigram table of the fixture: V = {size}, alpha = {alpha}. "
            "Each cell: count c(prev, next), then P(next | prev) = (c + alpha) / (c(prev) + alpha V)."]
    head = "".join(f'<th scope="col">{esc(n)}</th>' for n in names)
    body = []
    for row in rows:
        prev, total, denominator = need(row, "prev", "total", "denominator")
        denominator = _plain(denominator)
        mine = [c for c in cells if c.fields.get("prev") == prev]
        tds, parts = [], []
        for cell in mine:
            nxt, count, p = need(cell, "next", "count", "probability")
            marked = (prev, nxt) in scored
            cls = ' class="llmfs-highlight"' if marked else ""
            tds.append(f'<td{cls}><span class="llmfs-mono">{esc(count)}</span> · {esc(p)}'
                       f'{" ✓" if marked else ""}<br>'
                       f'<span class="llmfs-bar" style="--llmfs-value: {float(p):.6f}" '
                       f'role="img" aria-label="P({esc(nxt)} | {esc(prev)}) = {esc(p)}"></span></td>')
            parts.append(f"{nxt}: {count}, {p}" + (" (validation)" if marked else ""))
        body.append(f'<tr><th scope="row">{esc(prev)}<br><span class="llmfs-muted">c = {esc(total)}, '
                    f'÷ {esc(denominator)}</span></th>{"".join(tds)}</tr>')
        text.append(f"- after {prev} (c(prev) = {total}, denominator {denominator}): " + "; ".join(parts))
    text.append("Validation document 'ban' as BOS b a n EOS: "
                + ", ".join(f"P({need(p, 'next')[0]} | {need(p, 'prev')[0]}) = {need(p, 'probability')[0]}"
                            for p in pairs)
                + ". Marked cells (✓, outlined) are these predictions.")
    table = ('<table class="llmfs-table"><caption>Rows: previous token (its count and the '
             'denominator). Columns: next token. Cell: count · probability</caption><thead><tr>'
             f'<th scope="col">prev \\ next</th>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>')
    return table, "\n".join(text)


# The figure's title (a chapter's :caption: replaces it).
TITLE = "The fixture's bigram table: counts, add-one probabilities, and the four validation predictions"
