"""Chapter 39 diagram: the end-to-end pipeline of the demo as a flow of boxes, then the
sealed test's bits per byte for each contender.

Records (snippets/ch39-the-end-to-end-llm/trace.txt):
  STAGE|name=...|chapters=...|value=...     one per stage, in the order the data flows
  VALID|step=s|loss=x|best=true/false        the validations of the training run
  TEST|name=...|bits_per_byte=x              one per contender on the sealed test
Everything drawn is read from the records; nothing is recomputed but the bars' lengths
(each bits/byte over the largest).
"""

from html import escape

from trace_records import TraceFormatError

from diagrams.common import need


def render(records):
    stages = [r for r in records if r.kind == "STAGE"]
    valids = [r for r in records if r.kind == "VALID"]
    tests = [r for r in records if r.kind == "TEST"]
    if not stages or not tests:
        raise TraceFormatError("trace.txt", records[-1].line if records else 1,
                               "expected STAGE and TEST records")
    boxes, text = [], ["The demo's pipeline, in the order the data flows:"]
    for k, stage in enumerate(stages):
        name, chapters, value = need(stage, "name", "chapters", "value")
        arrow = '<span class="llmfs-arrow" aria-hidden="true"></span>' if k else ""
        boxes.append(f'{arrow}<div class="llmfs-box"><div class="llmfs-box-title">{escape(name)}</div>'
                     f'<div class="llmfs-mono">{escape(value)}</div>'
                     f'<div class="llmfs-box-note">ch. {escape(chapters)}</div></div>')
        text.append(f"- {name} (chapters {chapters}): {value}")
    for v in valids:
        step, loss, best = need(v, "step", "loss", "best")
        text.append(f"validation at step {step}: {loss} nats per token" + (" (best so far)" if best == "true" else ""))
    largest = max(float(need(t, "bits_per_byte")[0]) for t in tests)
    rows = []
    text.append("The sealed test, scored once, in bits per byte (lower is better):")
    for t in tests:
        name, bpb = need(t, "name", "bits_per_byte")
        rows.append(f'<tr><th scope="row">{escape(name)}</th><td class="llmfs-num">{escape(bpb)}</td>'
                    f'<td><span class="llmfs-bar" style="--llmfs-value: {float(bpb) / largest:.6f}"></span></td></tr>')
        text.append(f"- {name}: {bpb}")
    table = ('<table class="llmfs-table"><caption>Sealed test, bits per byte</caption>'
             '<thead><tr><th scope="col">model</th><th scope="col">bits/byte</th><th scope="col">bar</th>'
             '</tr></thead><tbody>' + "".join(rows) + "</tbody></table>")
    return f'<div class="llmfs-flow">{"".join(boxes)}</div>{table}', "\n".join(text)


# The figure's title (a chapter's :caption: replaces it).
TITLE = "The end-to-end pipeline of the demo, and the sealed test"
