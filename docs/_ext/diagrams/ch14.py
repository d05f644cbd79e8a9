"""Chapter 14 diagram: the tapes of the fixture a·b + a and of one neuron, node by node:
the forward value and local derivatives recorded on the way up, and on the way down each
adjoint as the sum of the shares its users sent it.

Records (snippets/ch14-scalar-autodiff/trace.txt):
  TAPE|name=n|nodes=k|inputs=i                                           one per tape
  NODE|tape=n|index=j|op=mul|value=v|parents=[p,q]|local=[l,m]|adjoint=a   one per node
  ADD|tape=n|from=j|to=p|amount=x        one per adjoint update, in backward-sweep order
Everything drawn is read from the records; nothing is recomputed.
"""

from trace_records import TraceFormatError

from diagrams.common import esc, items, need, of_kind

TITLE = "The scalar tape: values and local derivatives forward, adjoints summed backward"


def _tape(tape, nodes, adds, text):
    name, count, inputs = need(tape, "name", "nodes", "inputs")
    mine = [n for n in nodes if n.fields.get("tape") == name]
    if len(mine) != int(count):
        raise TraceFormatError("trace.txt", tape.line, f"TAPE says {count} nodes, found {len(mine)} NODE records")
    shares = {}
    for a in adds:
        if a.fields.get("tape") != name:
            continue
        source, target, amount = need(a, "from", "to", "amount")
        shares.setdefault(target, []).append((source, amount))
    text.append(f"Tape '{name}': {count} nodes, the first {inputs} are inputs.")
    body = []
    for n in mine:
        index, op, value, parents, local, adjoint = need(n, "index", "op", "value", "parents", "local", "adjoint")
        received = shares.get(index, [])
        used_twice = len(received) > 1
        sum_text = " + ".join(f"{amount} (from {source})" for source, amount in received) or "seed 1"
        mark = ' class="llmfs-highlight"' if used_twice else ""
        parents_text = ", ".join(items(parents)) or "—"
        local_text = ", ".join(items(local)) or "—"
        body.append(f'<tr{mark}><td class="llmfs-num">{esc(index)}</td><td class="llmfs-mono">{esc(op)}</td>'
                    f'<td class="llmfs-num">{esc(value)}</td><td class="llmfs-mono">{esc(parents_text)}</td>'
                    f'<td class="llmfs-mono">{esc(local_text)}</td><td class="llmfs-mono">{esc(sum_text)}</td>'
                    f'<td class="llmfs-num"><strong>{esc(adjoint)}</strong></td></tr>')
        twice = " (used twice: its shares are summed)" if used_twice else ""
        text.append(f"- node {index} {op}: value {value}, parents [{parents_text}], local derivatives "
                    f"[{local_text}]; adjoint {adjoint} = {sum_text}{twice}")
    return (f'<table class="llmfs-table"><caption>Tape “{esc(name)}”: forward columns left, backward '
            'columns right</caption><thead><tr><th scope="col">node</th><th scope="col">op</th>'
            '<th scope="col">value</th><th scope="col">parents</th><th scope="col">∂value/∂parent</th>'
            '<th scope="col">shares received</th><th scope="col">adjoint ∂f/∂node</th></tr></thead><tbody>'
            + "".join(body) + "</tbody></table>")


def render(records):
    tapes, nodes, adds = of_kind(records, "TAPE"), of_kind(records, "NODE"), of_kind(records, "ADD")
    if not tapes or not nodes:
        raise TraceFormatError("trace.txt", records[-1].line if records else 1,
                               "expected TAPE and NODE records")
    text = []
    parts = [_tape(t, nodes, adds, text) for t in tapes]
    text.append("Highlighted rows (outlined, bold) are values used by more than one operation: "
                "their adjoint is the sum of the shares in the 'shares received' column.")
    return "".join(parts), "\n".join(text)
