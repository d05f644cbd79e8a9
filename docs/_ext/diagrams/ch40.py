"""Appendix (chapter 40) diagram: the seed-123 shape trace with both libraries' names for each
step, where each failure mode strikes and how it is caught, the float64 parity results and the
float32 finding.

Records (snippets/ch40-pytorch-parity/trace.txt, printed by `ch40-pytorch-parity --trace`):
  CONFIG|batch|tokens|heads|head_width|model_width|seed|torch
  STAGE|step|name|shape|library|torch|mistakes            one per pipeline step, in order
  FAILURE|mistake|stage|[bias]|caught_by|library_error or output_relative,parameters|torch_error
  PARITY|case|against|shape|rope|output|weights|grad_x|grad_w_in|grad_w_o
  FLOAT32|lesson_claim|measured|output_max|criterion_factor|factor.<tensor>...
Everything drawn is copied from the records; nothing is recomputed (the bar lengths are the
recorded factor over the recorded criterion). Failure modes are marked with a written "⚠" tag
and their name, never by colour alone. Parity results carry no verdict: the demo prints no trace
at all when a tensor misses its criterion (it fails instead), so every recorded case is within it.
"""


from html import escape

from trace_records import TraceFormatError

from diagrams.common import need

PARITY_COLUMNS = [("output", "output"), ("weights", "weights"), ("grad_x", "∂/∂X"),
                  ("grad_w_in", "∂/∂W_in"), ("grad_w_o", "∂/∂W_O")]




def _of(records, kind):
    return [r for r in records if r.kind == kind]


def _failure_label(failure):
    name = failure.fields["mistake"]
    if "bias" in failure.fields:
        name += f" (bias {failure.fields['bias']})"
    return name


def _failure_evidence(failure):
    if "library_error" in failure.fields:
        return f"typed error: {failure.fields['library_error']}"
    relative, parameters = need(failure, "output_relative", "parameters")
    return f"largest output error {relative} × largest torch output; {parameters} parameters"


def _verdict(failure):
    """"caught by output", or "not caught: <note>" (the note, when the trace gives one)."""
    (caught_by,) = need(failure, "caught_by")
    if caught_by != "not caught":
        return f"caught by {caught_by}"
    note = failure.fields.get("note")
    return f"not caught: {note}" if note else "not caught"


def render(records):
    configs, stages = _of(records, "CONFIG"), _of(records, "STAGE")
    failures, parities, float32 = _of(records, "FAILURE"), _of(records, "PARITY"), _of(records, "FLOAT32")
    if len(configs) != 1 or not stages or not failures or not parities or len(float32) != 1:
        raise TraceFormatError("trace.txt", records[-1].line if records else 1,
                               "expected one CONFIG, STAGE, FAILURE and PARITY records, and one FLOAT32")
    batch, tokens, heads, head_width, width, seed, torch = need(
        configs[0], "batch", "tokens", "heads", "head_width", "model_width", "seed", "torch")
    by_stage = {}
    for failure in failures:
        by_stage.setdefault(need(failure, "stage")[0], []).append(failure)

    html, text = [], [
        f"Seed-{seed} example: B={batch}, T={tokens}, h={heads}, d_head={head_width}, d={width}; "
        f"reference data from torch {torch}.",
        "The pipeline, step by step (shape, this library's operation, PyTorch's operation, mistakes made there):",
    ]

    # The shape trace as a flow of boxes, each with both names and its failure modes.
    boxes = []
    for index, stage in enumerate(stages):
        step, name, shape, library, torch_op, mistakes = need(
            stage, "step", "name", "shape", "library", "torch", "mistakes")
        stage_failures = by_stage.get(name, [])
        tags = "".join(
            f'<div class="llmfs-box-note"><strong>⚠ {escape(_failure_label(f))}</strong>: '
            f'{escape(_verdict(f))}</div>' for f in stage_failures)
        if index:
            boxes.append('<span class="llmfs-arrow" aria-hidden="true"></span>')
        boxes.append(
            f'<div class="llmfs-box"><div class="llmfs-box-title">{escape(step)}. {escape(name)}</div>'
            f'<div class="llmfs-shape">{escape(shape)}</div>'
            f'<div class="llmfs-box-note">library: {escape(library)}</div>'
            f'<div class="llmfs-box-note">PyTorch: <span class="llmfs-mono">{escape(torch_op)}</span></div>'
            f"{tags}</div>")
        line = f"{step}. {name} {shape}: library {library}; PyTorch {torch_op}"
        if mistakes:
            line += f"; mistakes made here: {mistakes.replace(',', ', ')}"
        text.append(line)
    html.append(f'<div class="llmfs-flow">{"".join(boxes)}</div>')

    # Failure modes: what happens and what catches it.
    rows = []
    text.append("Failure modes (each a deliberately wrong variant, run on the same data):")
    for failure in failures:
        stage, caught_by, torch_error = need(failure, "stage", "caught_by", "torch_error")
        verdict = ("— " if caught_by == "not caught" else "✓ ") + _verdict(failure)
        rows.append(
            f'<tr><th scope="row">⚠ {escape(_failure_label(failure))}</th><td>{escape(stage)}</td>'
            f"<td>{escape(verdict)}</td><td>{escape(_failure_evidence(failure))}</td>"
            f'<td class="llmfs-muted">{escape(torch_error)}</td></tr>')
        text.append(f"- {_failure_label(failure)} at {stage}: {_verdict(failure)}; "
                    f"{_failure_evidence(failure)}; torch: {torch_error}")
    html.append('<table class="llmfs-table"><caption>Failure modes and what catches them</caption><thead><tr>'
                '<th scope="col">mistake</th><th scope="col">step</th><th scope="col">verdict</th>'
                '<th scope="col">evidence (this library)</th><th scope="col">PyTorch says</th></tr></thead>'
                f'<tbody>{"".join(rows)}</tbody></table>')

    # float64 parity: max-norm relative error per tensor, as decades.
    rows = []
    text.append("float64 parity (largest |library - torch| over largest |torch|, per tensor; criterion 1e-12):")
    for parity in parities:
        case, against, shape, rope = need(parity, "case", "against", "shape", "rope")
        cells = "".join(f'<td class="llmfs-num">{escape(need(parity, key)[0])}</td>' for key, _ in PARITY_COLUMNS)
        rope_note = " + RoPE" if rope == "true" else ""
        rows.append(f'<tr><th scope="row">{escape(case)}<div class="llmfs-muted">{escape(shape)}{rope_note}</div></th>'
                    f"<td>{escape(against)}</td>{cells}</tr>")
        values = ", ".join(f"{label} {parity.fields[key]}" for key, label in PARITY_COLUMNS)
        text.append(f"- {case} ({shape}{rope_note}) vs {against}: {values}")
    head = "".join(f'<th scope="col">{escape(label)}</th>' for _, label in PARITY_COLUMNS)
    html.append('<table class="llmfs-table"><caption>float64: the library against torch, largest |library − torch| over largest |torch| '
                '(criterion 10⁻¹²)</caption><thead><tr>'
                f'<th scope="col">case</th><th scope="col">against</th>{head}'
                f'</tr></thead><tbody>{"".join(rows)}</tbody></table>')

    # float32: measured error in units of u·max|reference| against the criterion.
    record = float32[0]
    claim, measured, output_max, criterion = need(
        record, "lesson_claim", "measured", "output_max", "criterion_factor")
    factors = [(key[len("factor."):], value) for key, value in record.fields.items() if key.startswith("factor.")]
    if not factors:
        raise TraceFormatError("trace.txt", record.line, "FLOAT32 record has no factor.<tensor> fields")
    rows = []
    for name, factor in factors:
        share = float(factor) / float(criterion)
        rows.append(f'<tr><th scope="row">{escape(name)}</th><td class="llmfs-num">{escape(factor)} u</td>'
                    f'<td><span class="llmfs-bar" style="--llmfs-value: {min(share, 1.0):.6f}"></span></td></tr>')
    html.append(f'<table class="llmfs-table"><caption>float32: worst error of torch float32, in units of '
                f'u·max|value| (u = 2⁻²⁴); the bar spans the criterion {escape(criterion)} u. The lesson\'s '
                f'absolute tolerance is {escape(claim)}; measured {escape(measured)} at outputs up to '
                f'{escape(output_max)}.</caption><thead><tr><th scope="col">tensor</th><th scope="col">error</th>'
                f'<th scope="col">share of the criterion</th></tr></thead><tbody>{"".join(rows)}</tbody></table>')
    text.append(f"float32: the lesson's absolute tolerance is {claim}; manual vs nn.MultiheadAttention "
                f"differ by {measured} (outputs reach {output_max}). Torch float32 against the exact answer, in "
                f"units of u·max|value| with u = 2^-24 (criterion {criterion}): "
                + ", ".join(f"{name} {factor}" for name, factor in factors) + ".")
    return "".join(html), "\n".join(text)


# The figure's title (a chapter's :caption: replaces it).
TITLE = 'The seed-123 example step by step, where each mistake strikes, and how close the library comes to PyTorch'
