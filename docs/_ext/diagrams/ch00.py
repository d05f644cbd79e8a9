"""Chapter 0 diagram: the parts of an LLM as a flow of boxes, then the next-token choice.

Records (snippets/ch00-the-parts-of-an-llm/trace.txt):
  PART|stage=...|input=...|output=...|shape=[..]|chapters=...   one per stage, in order
  TOKEN|position=t|text=c|id=n                                   the prompt's tokens
  PROB|token=c|logit=x|p=x                                       one per vocabulary token
  PICK|token=c|rule=greedy|p=x|chapters=...                      the chosen next token
Everything drawn is read from the records; nothing is recomputed.
"""


from html import escape

from trace_records import TraceFormatError

from diagrams.common import need




def render(records):
    parts = [r for r in records if r.kind == "PART"]
    tokens = [r for r in records if r.kind == "TOKEN"]
    probs = [r for r in records if r.kind == "PROB"]
    picks = [r for r in records if r.kind == "PICK"]
    if not parts or not probs or len(picks) != 1:
        raise TraceFormatError("trace.txt", records[-1].line, "expected PART, PROB and exactly one PICK record")
    pick_token, rule, pick_p, pick_chapters = need(picks[0], "token", "rule", "p", "chapters")

    boxes, text = [], ["The parts of the toy model, in the order the data flows:"]
    prompt = "".join(need(t, "text")[0] for t in tokens)
    ids = ",".join(need(t, "id")[0] for t in tokens)
    boxes.append('<div class="llmfs-box"><div class="llmfs-box-title">prompt</div>'
                 f'<div class="llmfs-mono">"{escape(prompt)}"</div></div>')
    for part in parts:
        stage, output, shape, chapters = need(part, "stage", "output", "shape", "chapters")
        note = f"ids {ids}" if stage == "tokenizer" else output
        boxes.append('<span class="llmfs-arrow" aria-hidden="true"></span>'
                     f'<div class="llmfs-box"><div class="llmfs-box-title">{escape(stage)}</div>'
                     f'<div class="llmfs-shape">{escape(shape)}</div>'
                     f'<div class="llmfs-box-note">{escape(note)} · ch. {escape(chapters)}</div></div>')
        text.append(f"- {stage}: {part.fields['input']} -> {output}, shape {shape} (chapters {chapters})")
    boxes.append('<span class="llmfs-arrow" aria-hidden="true"></span>'
                 f'<div class="llmfs-box"><div class="llmfs-box-title">pick ({escape(rule)})</div>'
                 f'<div class="llmfs-mono">"{escape(pick_token)}"</div>'
                 f'<div class="llmfs-box-note">ch. {escape(pick_chapters)}</div></div>')
    text.insert(1, f'- prompt "{prompt}" -> token ids [{ids}]')

    rows = []
    text.append("Scores for the next token after the last position:")
    for prob in probs:
        token, logit, p = need(prob, "token", "logit", "p")
        chosen = token == pick_token
        mark = ' class="llmfs-highlight"' if chosen else ""
        rows.append(f"<tr{mark}><th scope=\"row\">{escape(token)}{' ✓ picked' if chosen else ''}</th>"
                    f'<td class="llmfs-num">{escape(logit)}</td><td class="llmfs-num">{escape(p)}</td>'
                    f'<td><span class="llmfs-bar" style="--llmfs-value: {float(p):.6f}"></span></td></tr>')
        text.append(f"- token {token}: logit {logit}, probability {p}" + (" (picked)" if chosen else ""))
    text.append(f"The {rule} rule picks {pick_token} with probability {pick_p}.")
    table = ('<table class="llmfs-table"><caption>Next-token scores at the last position</caption>'
             '<thead><tr><th scope="col">token</th><th scope="col">logit</th><th scope="col">probability</th>'
             '<th scope="col">bar</th></tr></thead><tbody>' + "".join(rows) + "</tbody></table>")
    return f'<div class="llmfs-flow">{"".join(boxes)}</div>{table}', "\n".join(text)


# The figure's title (a chapter's :caption: replaces it).
TITLE = 'The parts of the toy model, and its choice of the next token'
