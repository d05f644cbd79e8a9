"""Chapter 15 diagram: the tensor tape of loss = Σ (X·W + b)², node by node (op, parents,
shape, forward value, gradient), and the order in which backward() ran the nodes'
closures, from the loss down to the leaves.

Records (snippets/ch15-tensor-autodiff/trace.txt):
  TAPE|name=fixture|nodes=k|loss=v                                          one
  NODE|id=j|op=matmul|parents=[p,q]|shape=[2,2]|value=...|gradient=...     one per node
  VISIT|step=s|node=j|op=matmul|to=[p,q]          one per closure run, in backward order
  SHARE|step=s|node=j|slot=i|to=p|value=...        what closure j sent through parent slot i
Everything drawn is read from the records; nothing is recomputed. A node that receives
several shares (the square's parent Y, in both slots) shows each share and its gradient,
their sum.
"""

from trace_records import TraceFormatError

from diagrams.common import esc, items, need, of_kind, single

TITLE = "The tensor tape: nodes in creation order, closures run in reverse"


def render(records):
    tape = single(records, "TAPE")
    count, loss = need(tape, "nodes", "loss")
    nodes, visits = of_kind(records, "NODE"), of_kind(records, "VISIT")
    if len(nodes) != int(count) or not visits:
        raise TraceFormatError("trace.txt", tape.line, f"TAPE says {count} nodes; found "
                               f"{len(nodes)} NODE and {len(visits)} VISIT records")
    step_of = {}
    for v in visits:
        step, node = need(v, "step", "node")
        step_of[node] = step
    uses = {}
    for n in nodes:
        for p in items(need(n, "parents")[0]):
            uses[p] = uses.get(p, 0) + 1
    text = [f"Tape of {count} nodes; the loss is {loss}."]
    rows = []
    for n in nodes:
        ident, op, parents, shape, value, gradient = need(
            n, "id", "op", "parents", "shape", "value", "gradient")
        parent_list = ", ".join(items(parents)) or "—"
        step = step_of.get(ident)
        step_text = f"step {step}" if step is not None else "leaf: no closure"
        twice = uses.get(ident, 0) > 1
        mark = ' class="llmfs-highlight"' if twice else ""
        rows.append(f'<tr{mark}><td class="llmfs-num">{esc(ident)}</td><td class="llmfs-mono">{esc(op)}</td>'
                    f'<td class="llmfs-mono">{esc(parent_list)}</td><td class="llmfs-shape">{esc(shape)}</td>'
                    f'<td class="llmfs-mono">{esc(value)}</td><td class="llmfs-mono">{esc(step_text)}</td>'
                    f'<td class="llmfs-mono"><strong>{esc(gradient)}</strong></td></tr>')
        note = f" (used {uses[ident]} times: its gradient is the sum of the shares)" if twice else ""
        text.append(f"- node {ident} {op}, parents [{parent_list}], shape {shape}: value {value}; "
                    f"backward {step_text}; gradient {gradient}{note}")
    table = ('<table class="llmfs-table"><caption>Forward columns left, backward columns right'
             '</caption><thead><tr><th scope="col">node</th><th scope="col">op</th>'
             '<th scope="col">parents</th><th scope="col">shape</th><th scope="col">value</th>'
             '<th scope="col">backward</th><th scope="col">gradient ∂loss/∂node</th></tr></thead>'
             "<tbody>" + "".join(rows) + "</tbody></table>")
    shares = of_kind(records, "SHARE")
    if not shares:
        raise TraceFormatError("trace.txt", tape.line, "no SHARE records: the diagram shows each closure's shares")
    by_step = {}
    for sh in shares:
        step, node, slot, to, value = need(sh, "step", "node", "slot", "to", "value")
        by_step.setdefault(step, []).append((slot, to, value))
    received, senders = {}, {}
    for sh in shares:
        received.setdefault(sh.fields["to"], []).append(sh.fields["value"])
        senders.setdefault(sh.fields["to"], set()).add(sh.fields["node"])
    gradient_of = {need(n, "id")[0]: need(n, "gradient")[0] for n in nodes}
    boxes = []
    order = []
    for v in visits:
        step, node, op, to = need(v, "step", "node", "op", "to")
        targets = ", ".join(items(to))
        lines = []
        for slot, target, value in by_step.get(step, []):
            twice = len(received.get(target, [])) > 1
            cls = ' class="llmfs-highlight"' if twice else ""
            lines.append(f'<div{cls}><span class="llmfs-mono">slot {esc(slot)} → node {esc(target)}: '
                         f'{esc(value)}</span></div>')
            order.append(f"step {step}: node {node} ({op}) sends {value} through slot {slot} into node {target}")
        boxes.append(f'<div class="llmfs-box"><div class="llmfs-box-title">{esc(step)}: node {esc(node)} '
                     f'{esc(op)}</div><div class="llmfs-box-note">adds into {esc(targets)}</div>'
                     + "".join(lines) + "</div>")
    flow = ('<div class="llmfs-flow">' + '<span class="llmfs-arrow" aria-hidden="true"></span>'.join(boxes)
            + "</div>")
    text.append("Backward order, each closure's share per parent slot: " + "; ".join(order) + ".")
    sums = []
    op_of = {need(n, "id")[0]: need(n, "op")[0] for n in nodes}
    value_of = {need(n, "id")[0]: need(n, "value")[0] for n in nodes}
    for target, values in received.items():
        if len(values) > 1:
            why = ""
            (sender,) = senders[target] if len(senders[target]) == 1 else (None,)
            if sender is not None and op_of.get(sender) == "multiply":
                # a multiply whose two slots are the same node: each slot gets upstream ⊙ the other slot
                why = (f" Each is node {sender}'s gradient {gradient_of.get(sender, '?')} multiplied element by element by the other "
                       f"slot's value, node {target}'s {value_of.get(target, '?')}: 1⊙Y.")
            sums.append(f'<p class="llmfs-highlight">Node {esc(target)} receives {len(values)} shares, '
                        f'<span class="llmfs-mono">{" + ".join(esc(v) for v in values)}</span>, and they are '
                        f'added: its gradient is <span class="llmfs-mono">{esc(gradient_of.get(target, "?"))}</span>.'
                        f'{esc(why)}</p>')
            text.append(f"Node {target} receives {len(values)} shares, {' + '.join(values)}, added into its "
                        f"gradient {gradient_of.get(target, '?')}.{why}")
    text.append("The highlighted (outlined, bold) rows and shares are the value used twice.")
    return table + flow + "".join(sums), "\n".join(text)
