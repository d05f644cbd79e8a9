"""Chapter 2 diagram: the bucket rule as three ranges, every fixture document placed by its
title's hash, then the size of each partition of the fixture and of the King James text.

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


def _rule(rules, text):
    boxes = []
    text.append("The rule: bucket = first 8 bytes of SHA-256(title), big-endian, mod 100.")
    for i, rule in enumerate(rules):
        split, first, last = need(rule, "split", "first", "last")
        if i:
            boxes.append('<span class="llmfs-arrow" aria-hidden="true"></span>')
        boxes.append(f'<div class="llmfs-box"><div class="llmfs-box-title">{_mark(split)}</div>'
                     f'<div class="llmfs-mono">buckets {esc(first)}–{esc(last)}</div></div>')
        text.append(f"- buckets {first} to {last}: {split}")
    return '<div class="llmfs-flow">' + "".join(boxes) + "</div>"


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
    parts = [_rule(rules, text), _documents(docs, text), _splits(splits, text)]
    text.append("Symbols: ● train, ◆ validation, ▲ test; highlighted rows are held out.")
    return "".join(parts), "\n".join(text)
