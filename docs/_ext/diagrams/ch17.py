"""Chapter 17 diagram: the variance of the activations after each of a stack of random
linear layers, for LeCun's scale, twice it, half of it and PyTorch's nn.Linear default.

Records (snippets/ch17-parameter-initialization/trace.txt):
  SETUP|rows=R|width=W|depth=D                                              one
  STACK|scale=x1|per_layer=F                                                one per scale
  LAYER|scale=x1|layer=k|variance=v|predicted=p                             D + 1 per scale
Everything drawn is read from the records; the bars only place each variance on a
logarithmic axis (10⁻⁵ … 10⁵, 1 in the middle).
"""

import math

from trace_records import TraceFormatError

from diagrams.common import esc, need, of_kind

TITLE = "Variance of the activations through a stack of random layers, per weight scale"


def _bar(variance):
    position = min(max((math.log10(float(variance)) + 5.0) / 10.0, 0.0), 1.0)
    return f'<span class="llmfs-bar" style="--llmfs-value: {position:.6f}"></span>'


def render(records):
    setups, stacks, layers = of_kind(records, "SETUP"), of_kind(records, "STACK"), of_kind(records, "LAYER")
    if len(setups) != 1 or not stacks or not layers:
        raise TraceFormatError("trace.txt", records[-1].line if records else 1,
                               "expected one SETUP and STACK and LAYER records")
    rows, width, depth = need(setups[0], "rows", "width", "depth")
    scales = [need(s, "scale", "per_layer") for s in stacks]
    by_scale = {scale: [] for scale, _ in scales}
    for r in layers:
        scale, layer, variance, predicted = need(r, "scale", "layer", "variance", "predicted")
        if scale not in by_scale:
            raise TraceFormatError("trace.txt", r.line, f"LAYER for unknown scale {scale}")
        by_scale[scale].append((layer, variance, predicted))
    for scale, entries in by_scale.items():
        if len(entries) != int(depth) + 1:
            raise TraceFormatError("trace.txt", setups[0].line,
                                   f"scale {scale}: {len(entries)} LAYER records for depth {depth}")
    text = [f"{rows} rows of width {width} through {depth} random layers [{width}, {width}]; "
            "variance of the activations after each layer (layer 0 is the input)."]
    head = "".join(f'<th scope="col">{esc(s)} (×{esc(f)} per layer)</th>' for s, f in scales)
    body = []
    for k in range(int(depth) + 1):
        cells = []
        for scale, _ in scales:
            layer, variance, predicted = by_scale[scale][k]
            mark = ' class="llmfs-highlight"' if k == int(depth) else ""
            cells.append(f'<td{mark}><span class="llmfs-mono">{esc(variance)}</span><br>{_bar(variance)}</td>')
        body.append(f'<tr><th scope="row" class="llmfs-num">{k}</th>{"".join(cells)}</tr>')
    for scale, factor in scales:
        values = ", ".join(v for _, v, _ in by_scale[scale])
        last = by_scale[scale][-1]
        text.append(f"- {scale} (predicted ×{factor} per layer): {values}; "
                    f"after layer {depth} measured {last[1]}, predicted {last[2]}")
    table = ('<table class="llmfs-table"><caption>Each bar places the variance on a log axis '
             'from 10⁻⁵ (empty) through 1 (half) to 10⁵ (full); the last layer is outlined</caption>'
             '<thead><tr><th scope="col">layer</th>' + head + "</tr></thead><tbody>" +
             "".join(body) + "</tbody></table>")
    return table, "\n".join(text)
