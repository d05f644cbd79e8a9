"""Chapter 37 diagram: the Predict cache after each step, one row per step and one column
per slot (new in this step, kept from before, or empty), the refused fifth token, and what
every slot holds (its position, its rotated key, its value).

Records (snippets/ch37-incremental-attention/trace.txt):
  CACHE|capacity=P|heads=h|head_width=d_h                                          one
  STEP|step=i|kind=prefill|decode|first_position=p|tokens=n|length=L|max_difference=e
  SLOT|step=i|slot=s|state=new|kept|empty                         capacity per step
  REFUSED|step=i|length=L                                                            one
  CONTENT|slot=s|position=p|key=[..]|value=[..]                                per slot
Everything drawn is read from the records.
"""

from trace_records import TraceFormatError

from diagrams.common import esc, need, of_kind, pretty, single

TITLE = "The key/value cache filling: one slot per position"

MARK = {"new": ("llmfs-highlight", "new ●"), "kept": ("llmfs-allowed", "kept"),
        "empty": ("llmfs-muted", "·")}


def render(records):
    cache = single(records, "CACHE")
    (capacity,) = need(cache, "capacity")
    steps, slots = of_kind(records, "STEP"), of_kind(records, "SLOT")
    refused, contents = single(records, "REFUSED"), of_kind(records, "CONTENT")
    if not steps or len(slots) != len(steps) * int(capacity):
        raise TraceFormatError("trace.txt", cache.line, "expected one SLOT per slot per STEP")
    head = "".join(f'<th scope="col">slot {s}</th>' for s in range(int(capacity)))
    rows, text = [], [f"A cache of {capacity} slots; slot s holds position s."]
    for step in steps:
        i, kind, first, n, length, diff = need(step, "step", "kind", "first_position",
                                               "tokens", "length", "max_difference")
        cells, states = [], []
        for slot in (r for r in slots if need(r, "step")[0] == i):
            (state,) = need(slot, "state")
            if state not in MARK:
                raise TraceFormatError("trace.txt", slot.line, f"unknown state '{state}'")
            css, label = MARK[state]
            cells.append(f'<td class="{css}">{esc(label)}</td>')
            states.append(f"slot {need(slot, 'slot')[0]} {state}")
        last = int(first) + int(n) - 1
        rows.append(f'<tr><th scope="row">{esc(kind)} {esc(i)}<br>'
                    f'<span class="llmfs-muted">positions {esc(first)}..{last}, length '
                    f'{esc(length)}</span></th>{"".join(cells)}'
                    f'<td class="llmfs-num">{esc(diff)}</td></tr>')
        text.append(f"- step {i} ({kind}): positions {first}..{last}, length {length}, "
                    f"difference from the full forward {diff}; " + ", ".join(states))
    r_step, r_length = need(refused, "step", "length")
    blocked = "".join('<td class="llmfs-blocked">full</td>' for _ in range(int(capacity)))
    rows.append(f'<tr><th scope="row">token 5<br><span class="llmfs-muted">refused, length '
                f'{esc(r_length)}</span></th>{blocked}<td class="llmfs-num">—</td></tr>')
    text.append(f"- step {r_step}: a fifth token is refused; the length stays {r_length}")
    table1 = ('<table class="llmfs-table"><caption>Slots after each step (● outlined: '
              'written in this step)</caption><thead><tr><th scope="col">step</th>'
              f'{head}<th scope="col">max |Δ| vs full</th></tr></thead><tbody>'
              + "".join(rows) + "</tbody></table>")
    rows = []
    for c in contents:
        slot, position, key, value = need(c, "slot", "position", "key", "value")
        rows.append(f'<tr><th scope="row">{esc(slot)}</th><td class="llmfs-num">'
                    f'{esc(position)}</td><td class="llmfs-mono">{esc(pretty(key))}</td>'
                    f'<td class="llmfs-mono">{esc(pretty(value))}</td></tr>')
        text.append(f"- slot {slot}: position {position}, key (rotated) {pretty(key)}, "
                    f"value {pretty(value)}")
    table2 = ('<table class="llmfs-table"><caption>What each slot holds: the key after RoPE '
              'at its position, the value unrotated</caption><thead><tr><th scope="col">slot'
              '</th><th scope="col">position</th><th scope="col">key</th><th scope="col">'
              'value</th></tr></thead><tbody>' + "".join(rows) + "</tbody></table>")
    return table1 + table2, "\n".join(text)
