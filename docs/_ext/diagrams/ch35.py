"""Chapter 35 diagram: the checkpoint file's bytes (length, header, the model's tensors, then
AdamW's moments m and v, alternating parameter by parameter) with every span's offsets, and the losses
of the straight run beside those of the run resumed from the file, and of resumes that left
a part of the state out.

Records (snippets/ch35-checkpoints/trace.txt):
  FILE|bytes=N|header=H|data=D                                           one
  REGION|name=..|begin=b|end=e|shape=[..]                                 one per span, in file order
  LOSS|run=straight|step=s|loss=L                                         steps 1..8
  LOSS|run=resumed|step=s|loss=L|bitwise_equal=true                       steps 5..8
  OMISSION|left_out=..|first_different_step=s|max_difference=x            one per omission
Everything drawn is read from the records; nothing is recomputed but the span sizes e − b.
"""

from trace_records import TraceFormatError

from diagrams.common import esc, need, of_kind

TITLE = "One file: 8 bytes of length, a JSON header, then every tensor's bytes back to back"


def group_of(name):
    if name in ("length", "header"):
        return name
    return name.split(".")[0]


GROUP_TITLES = {"length": "header length", "header": "JSON header", "model": "model θ",
                "adamw": "AdamW m and v, interleaved"}


def render(records):
    files, regions = of_kind(records, "FILE"), of_kind(records, "REGION")
    losses, omissions = of_kind(records, "LOSS"), of_kind(records, "OMISSION")
    if len(files) != 1 or not regions or not losses:
        raise TraceFormatError("trace.txt", records[-1].line if records else 1,
                               "expected one FILE, REGION and LOSS records")
    total, header, data = need(files[0], "bytes", "header", "data")
    text = [f"The file has {total} bytes: 8 of length, {header} of header, {data} of data."]
    # The strip: one box per group of spans, sized by its bytes
    groups = {}
    for r in regions:
        name, begin, end = need(r, "name", "begin", "end")
        g = groups.setdefault(group_of(name), [0, 0, int(begin), int(end)])
        g[0] += 1
        g[1] += int(end) - int(begin)
        g[2], g[3] = min(g[2], int(begin)), max(g[3], int(end))
    boxes = []
    for key, (count, size, first, last) in groups.items():
        share = size / int(total)
        note = f"{count} tensors, " if key not in ("length", "header") else ""
        boxes.append(f'<div class="llmfs-box"><div class="llmfs-box-title">{esc(GROUP_TITLES.get(key, key))}</div>'
                     f'<div class="llmfs-box-note">{note}{size} bytes ({share:.2%})</div></div>')
        text.append(f"- {GROUP_TITLES.get(key, key)}: {note}{size} bytes ({share:.2%} of the file)")
    strip = ('<div class="llmfs-flow">' + '<span class="llmfs-arrow" aria-hidden="true"></span>'.join(boxes) +
             '</div><p class="llmfs-muted">after the model\'s tensors, m and v alternate parameter by parameter</p>')
    rows = []
    for r in regions:
        name, begin, end, shape = need(r, "name", "begin", "end", "shape")
        rows.append(f'<tr><td class="llmfs-mono">{esc(name)}</td><td class="llmfs-mono">{esc(shape)}</td>'
                    f'<td class="llmfs-num">{esc(begin)}</td><td class="llmfs-num">{esc(end)}</td>'
                    f'<td class="llmfs-num">{int(end) - int(begin)}</td></tr>')
        text.append(f"  {name} {shape}: bytes {begin} to {end}")
    spans = ('<details><summary>Every span of the file</summary><table class="llmfs-table"><thead><tr>'
             '<th scope="col">span</th><th scope="col">shape</th><th scope="col">begin</th>'
             '<th scope="col">end</th><th scope="col">bytes</th></tr></thead><tbody>' + "".join(rows) +
             "</tbody></table></details>")
    # The losses: straight, resumed, and what each omission did
    straight = {need(x, "step")[0]: need(x, "loss")[0] for x in losses if need(x, "run")[0] == "straight"}
    resumed = {need(x, "step")[0]: need(x, "loss", "bitwise_equal") for x in losses if need(x, "run")[0] == "resumed"}
    loss_rows = []
    text.append("Losses per step, straight run and run resumed from the file written after step "
                f"{min(int(s) for s in resumed) - 1}:")
    for step, value in straight.items():
        if step in resumed:
            loss, same = resumed[step]
            mark = "= bit for bit" if same == "true" else "≠ differs"
            cell = f'<td class="llmfs-num llmfs-highlight">{esc(loss)} {esc(mark)}</td>'
            text.append(f"- step {step}: straight {value}, resumed {loss} ({mark})")
        else:
            cell = '<td class="llmfs-muted">before the save</td>'
            text.append(f"- step {step}: straight {value}")
        loss_rows.append(f'<tr><td class="llmfs-num">{esc(step)}</td><td class="llmfs-num">{esc(value)}</td>{cell}</tr>')
    table = ('<table class="llmfs-table"><caption>Mean loss per step</caption><thead><tr><th scope="col">step</th>'
             '<th scope="col">straight run</th><th scope="col">resumed from the file</th></tr></thead><tbody>' +
             "".join(loss_rows) + "</tbody></table>")
    items = []
    for o in omissions:
        left, first, diff = need(o, "left_out", "first_different_step", "max_difference")
        items.append(f"<li>resumed without <span class=\"llmfs-mono\">{esc(left)}</span>: first different loss at "
                     f"step {esc(first)}; largest |Δθ, Δm, Δv| after the last step {esc(diff)}</li>")
        text.append(f"- resumed without {left}: first different loss at step {first}, largest difference {diff}")
    return strip + spans + table + "<ul>" + "".join(items) + "</ul>", "\n".join(text)
