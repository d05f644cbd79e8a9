"""Chapter 34 diagram: the final table as bars of bits per byte, one per model, from the
trace. Lower is better; the uniform model's 8.01 bits per byte is the bar to beat.

Records (snippets/ch34-final-evaluation/trace.txt):
  MODEL|name=..|tokens=K|cross_entropy=H|perplexity=P|bpb=B
                                                       one per contender, in scoring order;
                                                       K = the tokens it predicts (the
                                                       positions, or its own BPE tokens)
  TEST|positions=N|bytes=n                             one
Everything drawn is read from the records; nothing is recomputed.
"""

from trace_records import TraceFormatError

from diagrams.common import esc, need, of_kind, single

TITLE = "The test partition, scored once: bits per byte of each model"

LEFT, TOP, WIDTH, ROW = 90, 10, 330, 30


def render(records):
    models = [(*need(r, "name", "tokens"), *(float(v) for v in need(r, "cross_entropy", "perplexity", "bpb")))
              for r in of_kind(records, "MODEL")]
    if not models:
        raise TraceFormatError("trace.txt", records[-1].line if records else 1,
                               "expected MODEL records")
    test = single(records, "TEST")
    positions, size = need(test, "positions", "bytes")
    top = max(m[4] for m in models)
    parts = [f'<svg viewBox="0 0 {LEFT + WIDTH + 320} {TOP + ROW * len(models) + 30}" role="img" '
             f'style="max-width: 100%; height: auto" aria-label="{esc(TITLE)}">']
    for k, (name, tokens, h, p, b) in enumerate(models):
        y = TOP + k * ROW
        w = WIDTH * b / top
        parts.append(f'<text x="{LEFT - 8}" y="{y + 17}" font-size="11" text-anchor="end" '
                     f'fill="currentColor">{esc(name)}</text>'
                     f'<rect x="{LEFT}" y="{y + 4}" width="{w:.1f}" height="18" fill="none" '
                     f'stroke="currentColor"/><text x="{LEFT + w + 6:.1f}" y="{y + 17}" '
                     f'font-size="10" fill="currentColor">{b:.3f} bits/byte · perplexity {p:.2f} per token ({esc(tokens)})</text>')
    parts.append(f'<text x="{LEFT}" y="{TOP + ROW * len(models) + 18}" font-size="10" '
                 f'fill="currentColor">{esc(positions)} predicted positions, {esc(size)} bytes; '
                 f'shorter is better; the n-gram\'s tokens are BPE tokens</text></svg>')
    text = [f"The test partition's {positions} predicted positions ({size} bytes), scored once:"]
    for name, tokens, h, p, b in models:
        text.append(f"- {name}: {h:.6f} nats per token over {tokens} tokens, perplexity {p:.6f}, "
                    f"{b:.6f} bits per byte")
    return "".join(parts), "\n".join(text)
