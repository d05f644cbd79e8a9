"""Chapter 36 diagram: the five-logit fixture through the four stages of sampling, a bar per
token and stage (tempered softmax, the top-k cut, the renormalised distribution, the cumulative
distribution with the uniform u drawn across it), then a table of the temperature sweep.

Records (snippets/ch36-temperature-and-top-k-sampling/trace.txt):
  CONFIG|temperature=τ|top_k=k|seed=s|u=u|token=id        the settings and the draw
  TOKEN|id=i|logit=z|tempered=p|kept=0/1|probability=p|cdf=c   one per token, in id order
  SWEEP|tau=τ|probabilities=[p0,...]                      one per temperature, no cut
Everything drawn is read from the records; nothing is recomputed. A token the cut drops is a
hatched box marked ✕ (never colour alone); the drawn token's bar is outlined and marked ◀.
"""

from trace_records import TraceFormatError

from diagrams.common import esc, items, need, number, of_kind, single

TITLE = "Sampling the fixture: temperature, top-k, renormalise, then the inverse CDF at u"

BAR_W, BAR_H, GAP = 46.0, 48.0, 12.0
ROW_H = BAR_H + 34.0
LEFT = 150.0


def _outline(x, top):
    return (f'<rect x="{x:.1f}" y="{top:.1f}" width="{BAR_W}" height="{BAR_H}" fill="none" '
            f'stroke="currentColor" stroke-width="0.6" opacity="0.6"/>')


def _filled(x, top, value, label, strong=False, base=0.0):
    """A bar from `base` up to `value` (both in [0, 1] of the outline's height)."""
    low, high = (BAR_H * min(max(v, 0.0), 1.0) for v in (base, value))
    stroke = ' stroke="currentColor" stroke-width="3"' if strong else ""
    return (f'<rect x="{x:.1f}" y="{top + BAR_H - high:.1f}" width="{BAR_W}" '
            f'height="{high - low:.2f}" fill="currentColor" opacity="0.75"{stroke}>'
            f'<title>{esc(label)}</title></rect>')


def _dropped(x, top, label):
    return (f'<rect x="{x:.1f}" y="{top:.1f}" width="{BAR_W}" height="{BAR_H}" '
            f'fill="url(#ch36-hatch)"><title>{esc(label)}</title></rect>'
            f'<text x="{x + BAR_W / 2:.1f}" y="{top + BAR_H / 2 + 4:.1f}" font-size="12" '
            f'text-anchor="middle" fill="currentColor">✕</text>')


def _text(x, y, body, size=9, anchor="middle"):
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
            f'fill="currentColor">{esc(body)}</text>')


def _stages(config, tokens):
    tau, k, u = need(config, "temperature", "top_k", "u")
    drawn = int(need(config, "token")[0])
    uv = number(config, "u")
    names = [f"1 · softmax(z/τ), τ = {float(tau):g}", f"2 · top-k cut, k = {k}",
             "3 · renormalised", f"4 · CDF intervals, u = {u}"]
    width = LEFT + len(tokens) * (BAR_W + GAP) + 20
    parts = [f'<svg viewBox="0 0 {width:.0f} {ROW_H * 4 + 30:.0f}" role="img" '
             f'style="max-width: 100%; height: auto" aria-label="{esc(TITLE)}">',
             '<defs><pattern id="ch36-hatch" width="6" height="6" patternUnits="userSpaceOnUse" '
             'patternTransform="rotate(45)"><line x1="0" y1="0" x2="0" y2="6" '
             'stroke="currentColor" stroke-width="1" opacity="0.5"/></pattern></defs>']
    for j, t in enumerate(tokens):
        x = LEFT + j * (BAR_W + GAP)
        parts.append(_text(x + BAR_W / 2, 12, f"token {need(t, 'id')[0]}", 10))
        parts.append(_text(x + BAR_W / 2, 24, f"z = {need(t, 'logit')[0]}", 8))
    for row, name in enumerate(names):
        top = 34 + row * ROW_H
        below = 0.0  # row 4: the CDF of the token before, where this token's interval starts
        parts.append(_text(4, top + BAR_H / 2, name, 10, "start"))
        for j, t in enumerate(tokens):
            x = LEFT + j * (BAR_W + GAP)
            tid = int(need(t, "id")[0])
            kept = need(t, "kept")[0] == "1"
            key = ["tempered", "tempered", "probability", "cdf"][row]
            value = need(t, key)[0]
            parts.append(_outline(x, top))
            if row == 1 and not kept:
                parts.append(_dropped(x, top, f"token {tid}: dropped by the cut"))
                label = "dropped"
            else:
                strong = row == 3 and tid == drawn
                base = below if row == 3 else 0.0
                parts.append(_filled(x, top, number(t, key), f"token {tid}: {key} {value}",
                                     strong, base))
                label = (f"{base:.2f}–{float(value):.2f}" if row == 3 else
                         f"{float(value):.4f}") + (" ◀" if strong else "")
                below = number(t, key) if row == 3 else below
            parts.append(_text(x + BAR_W / 2, top + BAR_H + 12, label))
        if row == 3:
            y = top + BAR_H - BAR_H * min(max(uv, 0.0), 1.0)
            parts.append(f'<line x1="{LEFT - 6:.1f}" y1="{y:.1f}" x2="{width - 10:.1f}" '
                         f'y2="{y:.1f}" stroke="currentColor" stroke-width="1.2" '
                         f'stroke-dasharray="5 3"><title>u = {esc(u)}</title></line>')
            parts.append(_text(LEFT - 8, y + 3, "u", 10, "end"))
    parts.append("</svg>")
    return "".join(parts)


def _sweep_table(sweeps):
    rows, text = [], []
    for s in sweeps:
        tau, probs = need(s, "tau", "probabilities")
        values = items(probs)
        top = max(range(len(values)), key=lambda i: float(values[i]))
        cells = "".join(
            f'<td class="llmfs-num{" llmfs-highlight" if i == top else ""}">{esc(v)}</td>'
            for i, v in enumerate(values))
        rows.append(f'<tr><th scope="row">τ = {esc(tau)}</th>{cells}</tr>')
        text.append(f"- τ = {tau}: " + ", ".join(values) + f" (largest: token {top})")
    width = len(items(need(sweeps[0], "probabilities")[0]))
    head = "".join(f'<th scope="col">token {i}</th>' for i in range(width))
    table = (f'<table class="llmfs-table"><caption>The same logits at six temperatures, no '
             f'cut (the largest of each row outlined)</caption><tr><th></th>{head}</tr>'
             f'{"".join(rows)}</table>')
    return table, text


def render(records):
    config = single(records, "CONFIG")
    tokens = of_kind(records, "TOKEN")
    sweeps = of_kind(records, "SWEEP")
    if not tokens or not sweeps:
        raise TraceFormatError("trace.txt", config.line, "expected TOKEN and SWEEP records")
    tau, k, seed, u, drawn = need(config, "temperature", "top_k", "seed", "u", "token")
    table, sweep_text = _sweep_table(sweeps)
    text = [f"The fixture at τ = {tau}, k = {k}, one draw u = {u} from SplitMix64({seed}); "
            "per token: logit z, tempered softmax, kept by the cut, renormalised p, CDF."]
    for t in tokens:
        tid, z, tp, kept, p, c = need(t, "id", "logit", "tempered", "kept", "probability", "cdf")
        text.append(f"- token {tid}: z = {z}, softmax(z/τ) = {tp}, "
                    f"{'kept' if kept == '1' else 'dropped by the cut'}, p = {p}, CDF = {c}")
    text.append(f"The draw: the first token whose CDF exceeds u = {u} is token {drawn}.")
    text.append("The same logits with no cut at each temperature (probabilities by token):")
    text.extend(sweep_text)
    text.append("Drawn as bars of height p in an outline of height 1, one row per stage; a "
                "dropped token is a hatched box marked ✕; the drawn token's CDF bar is "
                "outlined and marked ◀; in the last row each token's bar spans its interval of the CDF, "
                "from the previous token's cumulative sum to its own, and u is a dashed line "
                "across it.")
    return _stages(config, tokens) + table, "\n".join(text)
