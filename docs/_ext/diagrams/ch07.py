"""Chapter 7 diagram: the validation text 'ban' predicted token by token under two
tokenizers (each token's bytes and its surprisal in bits, as a bar), then every
evaluation's cross-entropy, perplexity and bits per byte beside the uniform model's.

Records (snippets/ch07-language-model-metrics/trace.txt):
  TOKEN|tokenizer=t|index=i|prev=..|next=..|bytes=k|probability=p|nats=x|bits=y
  MODEL|text=..|tokenizer=t|vocab=V|tokens=N|bytes=B|cross_entropy=..|perplexity=..|
        bits_per_byte=..|uniform_cross_entropy=..|uniform_bits_per_byte=..
Everything drawn is read from the records; nothing is recomputed (bar lengths are the
recorded bits divided by a fixed 4-bit scale).
"""

from trace_records import TraceFormatError

from diagrams.common import esc, need, of_kind

SCALE_BITS = 4.0  # a bar of full length is 4 bits


def _tokens(name, records, text):
    rows = []
    text.append(f"Tokenizer {name}: 'ban' as")
    for r in records:
        prev, nxt, size, p, bits = need(r, "prev", "next", "bytes", "probability", "bits")
        rows.append(f'<tr><td class="llmfs-mono">{esc(prev)} → {esc(nxt)}</td>'
                    f'<td class="llmfs-num">{esc(size)}</td><td class="llmfs-num">{esc(p)}</td>'
                    f'<td class="llmfs-num">{esc(bits)}</td><td><span class="llmfs-bar" '
                    f'style="--llmfs-value: {min(float(bits) / SCALE_BITS, 1.0):.6f}"></span></td></tr>')
        text.append(f"- {prev} -> {nxt}: {size} byte(s), p = {p}, {bits} bits")
    return (f'<table class="llmfs-table"><caption>Tokenizer “{esc(name)}”: one row per predicted '
            'token</caption><thead><tr><th scope="col">prediction</th><th scope="col">bytes</th>'
            '<th scope="col">p</th><th scope="col">bits (−log₂ p)</th><th scope="col">bar</th></tr>'
            '</thead><tbody>' + "".join(rows) + "</tbody></table>")


def render(records):
    tokens, models = of_kind(records, "TOKEN"), of_kind(records, "MODEL")
    if not tokens or not models:
        raise TraceFormatError("trace.txt", records[-1].line if records else 1,
                               "expected TOKEN and MODEL records")
    text, parts, names = [], [], []
    for r in tokens:
        if r.fields.get("tokenizer") not in names:
            names.append(need(r, "tokenizer")[0])
    for name in names:
        parts.append(_tokens(name, [r for r in tokens if r.fields["tokenizer"] == name], text))
    sizes, metrics = [], []
    text.append("Every evaluation (bigram, then the uniform model on the same tokens):")
    for m in models:
        what, name, v, n, size, h, ppl, bpb, uh, ubpb = need(
            m, "text", "tokenizer", "vocab", "tokens", "bytes", "cross_entropy", "perplexity",
            "bits_per_byte", "uniform_cross_entropy", "uniform_bits_per_byte")
        label = f'<td>{esc(what)}</td><td class="llmfs-mono">{esc(name)}</td>'
        sizes.append(f'<tr>{label}<td class="llmfs-num">{esc(v)}</td><td class="llmfs-num">{esc(n)}</td>'
                     f'<td class="llmfs-num">{esc(size)}</td></tr>')
        metrics.append(f'<tr><td class="llmfs-mono">{esc(name)}</td><td class="llmfs-num">{esc(h)}</td>'
                       f'<td class="llmfs-num">{esc(ppl)}</td><td class="llmfs-num"><strong>{esc(bpb)}</strong></td>'
                       f'<td class="llmfs-num llmfs-muted">{esc(uh)}</td>'
                       f'<td class="llmfs-num llmfs-muted">{esc(ubpb)}</td></tr>')
        text.append(f"- {what}, {name} (V = {v}): {n} tokens over {size} bytes; cross-entropy {h} nats/token, "
                    f"perplexity {ppl}, {bpb} bits per byte (uniform: {uh} nats/token, {ubpb} bits per byte)")
    # Two narrow tables rather than one wide one, so that both fit the text column.
    parts.append('<table class="llmfs-table"><caption>What each model was scored on</caption><thead><tr>'
                 '<th scope="col">text</th><th scope="col">tokenizer</th><th scope="col">V</th>'
                 '<th scope="col">tokens</th><th scope="col">bytes</th></tr></thead><tbody>'
                 + "".join(sizes) + "</tbody></table>")
    parts.append('<table class="llmfs-table"><caption>The three metrics, in the same row order; the '
                 'uniform model in muted columns. Only bits per byte (bold) compares tokenizers.</caption>'
                 '<thead><tr><th scope="col">tokenizer</th><th scope="col">nats/token</th>'
                 '<th scope="col">perplexity</th><th scope="col">bits/byte</th>'
                 '<th scope="col">uniform nats/token</th><th scope="col">uniform bits/byte</th></tr></thead><tbody>'
                 + "".join(metrics) + "</tbody></table>")
    return "".join(parts), "\n".join(text)


# The figure's title (a chapter's :caption: replaces it).
TITLE = "One text, two tokenizers: surprisal per token, and the metrics that compare them"
