"""Chapter 21 diagram: the fixture's six examples (window, inputs, targets, loss), then each
epoch's shuffled order cut into batches of B, the last one partial, with the epoch's loss
taken two ways: the plain mean of the batch means and the mean over positions.

Records (snippets/ch21-mini-batches/trace.txt):
  FIXTURE|examples=N|batch=B|context=T|seed=S                                  one
  EXAMPLE|index=i|sequence=k|start=s|inputs=[..]|targets=[..]|loss=L           one per example
  EPOCH|epoch=e|order=[..]|mean_of_batches=M|position_mean=P                    one per epoch
  BATCH|epoch=e|index=j|examples=[..]|positions=n|loss=L                        one per batch
Everything drawn is read from the records; nothing is recomputed.
"""

from trace_records import TraceFormatError

from diagrams.common import esc, items, need, of_kind

TITLE = "Windows become [B,T] rows; each epoch reshuffles them into batches, the last one partial"


def render(records):
    fixtures = of_kind(records, "FIXTURE")
    examples, epochs, batches = of_kind(records, "EXAMPLE"), of_kind(records, "EPOCH"), of_kind(records, "BATCH")
    if len(fixtures) != 1 or not examples or not epochs or not batches:
        raise TraceFormatError("trace.txt", records[-1].line if records else 1,
                               "expected one FIXTURE and EXAMPLE, EPOCH, BATCH records")
    count, size, context, seed = need(fixtures[0], "examples", "batch", "context", "seed")
    text = [f"{count} examples of T = {context} positions, batches of B = {size}, seed {seed}."]
    rows = []
    for x in examples:
        i, seq, start, inputs, targets, loss = need(x, "index", "sequence", "start", "inputs", "targets", "loss")
        rows.append(f'<tr><td class="llmfs-num">{esc(i)}</td><td class="llmfs-num">{esc(seq)}</td>'
                    f'<td class="llmfs-num">{esc(start)}</td><td class="llmfs-mono">{esc(", ".join(items(inputs)))}</td>'
                    f'<td class="llmfs-mono">{esc(", ".join(items(targets)))}</td><td class="llmfs-num">{esc(loss)}</td></tr>')
        text.append(f"- example {i}: sequence {seq} from position {start}; inputs ({', '.join(items(inputs))}), "
                    f"targets ({', '.join(items(targets))}); mean loss {loss}")
    table = ('<table class="llmfs-table"><caption>Each example is one row: its targets are its inputs '
             'shifted by one token</caption><thead><tr><th scope="col">example</th><th scope="col">sequence</th>'
             '<th scope="col">start</th><th scope="col">inputs</th><th scope="col">targets</th>'
             '<th scope="col">loss</th></tr></thead><tbody>' + "".join(rows) + "</tbody></table>")
    parts = [table]
    for ep in epochs:
        e, order, mean_b, mean_p = need(ep, "epoch", "order", "mean_of_batches", "position_mean")
        mine = [b for b in batches if need(b, "epoch")[0] == e]
        if not mine:
            raise TraceFormatError("trace.txt", ep.line, f"epoch {e} has no BATCH records")
        boxes = []
        text.append(f"Epoch {e}: order ({', '.join(items(order))}).")
        for b in mine:
            j, members, positions, loss = need(b, "index", "examples", "positions", "loss")
            partial = len(items(members)) < int(size)
            note = f"partial: {len(items(members))} of {size} rows" if partial else f"full: {size} rows"
            title = f"batch {j} · partial" if partial else f"batch {j}"
            boxes.append(f'<div class="llmfs-box"><div class="llmfs-box-title">{esc(title)}</div>'
                         f'<div class="llmfs-mono">examples {esc(", ".join(items(members)))}</div>'
                         f'<div class="llmfs-box-note">{esc(note)}; {esc(positions)} positions; mean loss {esc(loss)}</div></div>')
            text.append(f"- batch {j} ({note}): examples ({', '.join(items(members))}), "
                        f"{positions} positions, mean loss {loss}")
        text.append(f"- epoch {e} loss: mean of batch means {mean_b}; mean over positions {mean_p}")
        parts.append(f'<p><strong>Epoch {esc(e)}</strong> — order <span class="llmfs-mono">{esc(", ".join(items(order)))}</span></p>'
                     '<div class="llmfs-flow">' + '<span class="llmfs-arrow" aria-hidden="true"></span>'.join(boxes) +
                     f'</div><p class="llmfs-muted">mean of batch means {esc(mean_b)} · '
                     f'mean over positions <span class="llmfs-highlight">{esc(mean_p)}</span></p>')
    return "".join(parts), "\n".join(text)
