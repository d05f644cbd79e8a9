"""Chapter 2 diagram: the bucket rule as one bar of 100 buckets cut into three disjoint
ranges (a partition, not a pipeline), every fixture document placed on it by its title's
hash, then the size of each partition of the fixture and of the King James text.

Records (snippets/ch02-corpus-partitions/trace.txt):
  RULE|split=s|first=a|last=b                                           one per split
  DOC|index=i|title=...|bytes=n|hash=16 hex|bucket=b|split=s            one per fixture document
  SPLIT|corpus=c|split=s|documents=n|bytes=m|document_share=x|byte_share=y   per corpus and split
Everything drawn is read from the records; nothing is recomputed.
"""

from trace_records import TraceFormatError

from diagrams.common import bar, esc, need, of_kind

TITLE = "Each document's title hashes to a bucket; the bucket names its partition"

# A symbol per split, so the split is never told by colour alone.
MARK = {"train": "●", "validation": "◆", "test": "▲"}


def _mark(split):
    return f'<span aria-hidden="true">{MARK.get(split, "?")}</span> {esc(split)}'


# The partition drawn to scale: the 100 buckets as one bar, in SVG units.
BAR_LEFT, BAR_WIDTH, BAR_TOP, BAR_HEIGHT = 10.0, 580.0, 22.0, 24.0
SHADE = {"train": 0.12, "validation": 0.4, "test": 0.75}  # paired with the symbols, never alone


def _bucket_x(bucket):
    return BAR_LEFT + BAR_WIDTH * bucket / 100.0


def _rule(rules, docs, text):
    """The three ranges as adjacent parts of one bar of 100 buckets (a partition, not a
    pipeline), each fixture document marked above the bucket its title hashed to."""
    text.append("The rule: bucket = first 8 bytes of SHA-256(title), big-endian, mod 100. The 100 "
                "buckets are cut into three disjoint ranges, side by side on one bar; each document "
                "lands in exactly one of them, by its title alone:")
    parts = [f'<svg class="ch02-partition" viewBox="0 0 600 96" role="img" style="max-width: 100%; height: auto" '
             f'aria-label="The buckets 0 to 99 cut into three disjoint ranges; the fixture\'s documents placed by bucket">']
    labels_below = []
    for rule in rules:
        split, first, last = need(rule, "split", "first", "last")
        x0, x1 = _bucket_x(int(first)), _bucket_x(int(last) + 1)
        parts.append(f'<rect x="{x0:.2f}" y="{BAR_TOP}" width="{x1 - x0:.2f}" height="{BAR_HEIGHT}" '
                     f'fill="currentColor" fill-opacity="{SHADE.get(split, 0.2)}" stroke="currentColor" '
                     f'stroke-width="1"><title>{esc(split)}: buckets {esc(first)}–{esc(last)}</title></rect>')
        label = f"{MARK.get(split, '?')} {split}: buckets {first}–{last}"
        if x1 - x0 > 200:  # wide enough to carry its label inside
            parts.append(f'<text x="{(x0 + x1) / 2:.2f}" y="{BAR_TOP + 16}" font-size="11" text-anchor="middle" '
                         f'fill="currentColor">{esc(label)}</text>')
        else:
            labels_below.append(((x0 + x1) / 2, label))
        text.append(f"- buckets {first} to {last}: {split}")
    # Narrow ranges: labels under the bar, one row each, right-aligned on a leader line.
    bottom = BAR_TOP + BAR_HEIGHT
    for row, (x, label) in enumerate(labels_below):
        y = bottom + 16 + 16 * row
        parts.append(f'<line x1="{x:.2f}" y1="{bottom}" x2="{x:.2f}" y2="{y - 12:.2f}" stroke="currentColor" '
                     f'stroke-width="0.8"/><text x="{x + 3:.2f}" y="{y:.2f}" font-size="11" text-anchor="end" '
                     f'fill="currentColor">{esc(label)}</text>')
    for doc in docs:
        index, bucket, split = need(doc, "index", "bucket", "split")
        x = _bucket_x(int(bucket) + 0.5)
        parts.append(f'<path d="M {x - 3.5:.2f} {BAR_TOP - 8} L {x + 3.5:.2f} {BAR_TOP - 8} L {x:.2f} {BAR_TOP - 1} Z" '
                     f'fill="currentColor"/><text x="{x:.2f}" y="{BAR_TOP - 11}" font-size="9" '
                     f'text-anchor="middle" fill="currentColor">{esc(index)}</text>')
    parts.append(f'<text x="{BAR_LEFT}" y="{bottom + 16}" font-size="9" fill="currentColor">'
                 f'bucket 0 at the left; ▾ N above the bar: document N of the fixture, at its bucket</text></svg>')
    text.append("Above the bar, each fixture document's number marks its bucket: "
                + ", ".join(f"document {d.fields.get('index')} in bucket {d.fields.get('bucket')}" for d in docs) + ".")
    return "".join(parts)


def _documents(docs, text):
    rows = []
    text.append("The fixture's documents:")
    for doc in docs:
        index, title, size, digest, bucket, split = need(
            doc, "index", "title", "bytes", "hash", "bucket", "split")
        mark = ' class="llmfs-highlight"' if split != "train" else ""
        weight = f"{int(bucket) / 99:.6f}"
        rows.append(f'<tr{mark}><td class="llmfs-num">{esc(index)}</td><td>{esc(title)}</td>'
                    f'<td class="llmfs-num">{esc(size)}</td><td class="llmfs-mono">{esc(digest)}…</td>'
                    f'<td class="llmfs-num">{esc(bucket)}</td>'
                    f'<td>{bar(weight, f"bucket {bucket} of 0 to 99", "ch02-bar")}</td>'
                    f'<td>{_mark(split)}</td></tr>')
        text.append(f'- document {index} "{title}": {size} bytes, SHA-256 begins {digest}, '
                    f"bucket {bucket}, {split}")
    return ('<table class="llmfs-table"><caption>The fixture, document by document</caption><thead><tr>'
            '<th scope="col">#</th><th scope="col">title</th><th scope="col">bytes</th>'
            '<th scope="col">SHA-256(title)</th><th scope="col">bucket</th><th scope="col">0 … 99 (train ends at 89)</th>'
            '<th scope="col">split</th></tr></thead><tbody>' + "".join(rows) + "</tbody></table>")


def _splits(splits, text):
    rows = []
    text.append("The size of each partition:")
    for record in splits:
        corpus, split, docs, size, doc_share, byte_share = need(
            record, "corpus", "split", "documents", "bytes", "document_share", "byte_share")
        rows.append(f'<tr><td>{esc(corpus)}</td><td>{_mark(split)}</td>'
                    f'<td class="llmfs-num">{esc(docs)}</td><td class="llmfs-num">{esc(size)}</td>'
                    f'<td>{bar(byte_share, f"{split}: share of bytes {byte_share}", "ch02-bar")} '
                    f'<span class="llmfs-mono">{esc(byte_share)}</span></td></tr>')
        text.append(f"- {corpus} {split}: {docs} documents ({doc_share} of them), {size} bytes "
                    f"({byte_share} of the bytes)")
    return ('<table class="llmfs-table"><caption>Partition sizes</caption><thead><tr>'
            '<th scope="col">corpus</th><th scope="col">split</th><th scope="col">documents</th>'
            '<th scope="col">bytes</th><th scope="col">share of bytes</th></tr></thead><tbody>'
            + "".join(rows) + "</tbody></table>")


def render(records):
    rules, docs, splits = of_kind(records, "RULE"), of_kind(records, "DOC"), of_kind(records, "SPLIT")
    if len(rules) != 3 or not docs or not splits:
        raise TraceFormatError("trace.txt", records[-1].line if records else 1,
                               "expected three RULE records, DOC records and SPLIT records")
    text = []
    parts = [_rule(rules, docs, text), _documents(docs, text), _splits(splits, text)]
    text.append("Symbols: ● train, ◆ validation, ▲ test; highlighted rows are held out.")
    return "".join(parts), "\n".join(text)
