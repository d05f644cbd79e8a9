"""Chapter 31 diagram: the pre-norm block as a flow of its stages, each box with token 0's
row and every token's RMS, for X and for 10·X; stream stages (solid border) and branch
stages (dashed, a ⤷ mark) are told apart by border style and symbol, not by colour.

Records (snippets/ch31-decoder-block/trace.txt):
  CONFIG|batch=..|tokens=..|model_width=..|heads=..|hidden_width=..|parameters=..   one
  STAGE|input=X|stage=..|path=stream|branch|shape=[..]|token_0=[..]|rms=[..]        per stage and input
  IDENTITY|branches=zero|mismatches=n|post_norm_token_0=[..]                       one
Everything drawn is read from the records.
"""

from trace_records import TraceFormatError

from diagrams.common import esc, need, of_kind, pretty, single

TITLE = "The pre-norm block, stage by stage: the stream carries the scale, the branches do not"

LABELS = {"input": "x", "attention_input": "a = RMSNorm₁(x)", "attention_output": "MHA(a)",
          "hidden": "h = x + MHA(a)", "ffn_input": "f = RMSNorm₂(h)",
          "ffn_output": "SwiGLU(f)", "output": "y = h + SwiGLU(f)"}


def render(records):
    config = single(records, "CONFIG")
    d, parameters = need(config, "model_width", "parameters")
    stages = of_kind(records, "STAGE")
    if not stages:
        raise TraceFormatError("trace.txt", config.line, "no STAGE records")
    identity = single(records, "IDENTITY")
    mismatches, post = need(identity, "mismatches", "post_norm_token_0")
    text = [f"d_model = {d}; {parameters} parameters. Stream stages carry x forward; "
            "branch stages (marked ⤷) are computed from a normalised copy and added back."]
    sections = []
    for source in ("X", "10X"):
        boxes, rows = [], [r for r in stages if r.fields.get("input") == source]
        text.append(f"Input {source}:")
        for r in rows:
            stage, path, shape, token0, rms = need(r, "stage", "path", "shape", "token_0", "rms")
            if stage not in LABELS or path not in ("stream", "branch"):
                raise TraceFormatError("trace.txt", r.line, f"unknown stage {stage!r} or path {path!r}")
            mark = "⤷ " if path == "branch" else ""
            style = ' style="border-style: dashed"' if path == "branch" else ""
            boxes.append(
                f'<div class="llmfs-box"{style}><div class="llmfs-box-title">{esc(mark + LABELS[stage])}</div>'
                f'<div class="llmfs-mono">token 0: {esc(pretty(token0))}</div>'
                f'<div class="llmfs-box-note">RMS per token {esc(pretty(rms))} · {esc(shape)}</div></div>')
            text.append(f"- {mark}{LABELS[stage]} ({path}): token 0 {pretty(token0)}, "
                        f"RMS per token {pretty(rms)}")
        arrows = '<span class="llmfs-arrow" aria-hidden="true"></span>'.join(boxes)
        sections.append(f'<p class="llmfs-muted">Input {esc(source)}</p>'
                        f'<div class="llmfs-flow">{arrows}</div>')
    text.append(f"Both branches zero: the block's output differs from x in {mismatches} "
                f"coordinates; the post-norm arrangement returns {pretty(post)} for token 0.")
    sections.append(f'<p class="llmfs-muted">Branches switched off (W_O = W₂ = 0): output ≠ x in '
                    f'{esc(mismatches)} coordinates; post-norm would give token 0 '
                    f'{esc(pretty(post))}.</p>')
    return "".join(sections), "\n".join(text)
