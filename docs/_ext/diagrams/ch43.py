"""Appendix "Outgrowing one machine" (chapter 43) diagram: the checkpoint's round trip.
Chapter 35's C++ run writes the file after step s; PyTorch continues it on P gloo processes
with DistributedDataParallel and writes the book's format again; the C++ program reads it,
writes it back byte for byte, and generates greedily from it.

Records (snippets/ch43-outgrowing-one-machine/trace.txt):
  HOP|stage=cpp|step=s                                              the starting file
  HOP|stage=pytorch_ddp|processes=P|step=s'|losses=l_1,...          the continued run
  HOP|stage=cpp_same_steps|losses=..|max_difference=x              C++ alone, same steps
  HOP|stage=cpp_again|bytes=N|bytes_equal=n                         read and written back
  GREEDY|step=i|id=k|logit=z                                        one per generated token
Everything drawn is read from the records.
"""

from trace_records import TraceFormatError

from diagrams.common import esc, need, of_kind

TITLE = "One file format, two programs: C++ → PyTorch on two processes → C++"


def box(title, note):
    return (f'<div class="llmfs-box"><div class="llmfs-box-title">{esc(title)}</div>'
            f'<div class="llmfs-box-note">{esc(note)}</div></div>')


def render(records):
    hops = {need(r, "stage")[0]: r for r in of_kind(records, "HOP")}
    greedy = of_kind(records, "GREEDY")
    if set(hops) != {"cpp", "pytorch_ddp", "cpp_same_steps", "cpp_again"} or not greedy:
        raise TraceFormatError("trace.txt", records[-1].line if records else 1,
                               "expected HOP records cpp, pytorch_ddp, cpp_same_steps, cpp_again and GREEDY records")
    (start,) = need(hops["cpp"], "step")
    processes, step, losses = need(hops["pytorch_ddp"], "processes", "step", "losses")
    size, equal = need(hops["cpp_again"], "bytes", "bytes_equal")
    cpp_losses, difference = need(hops["cpp_same_steps"], "losses", "max_difference")
    tokens = ", ".join(f"{need(g, 'id')[0]} (logit {need(g, 'logit')[0]})" for g in greedy)
    parts = [box("C++ (Chapter 35)", f"checkpoint after step {start}"),
             box(f"PyTorch DDP, {processes} gloo processes",
                 f"steps {int(start) + 1}..{step}, mean losses {losses.replace(',', ', ')}"),
             box("C++ reads it back", f"{equal}/{size} bytes equal when written again"),
             box("C++ greedy decoding", f"next ids {tokens}")]
    arrow = '<span class="llmfs-arrow" aria-hidden="true"></span>'
    html = ('<div class="llmfs-flow">' + arrow.join(parts) + "</div>" +
            f'<p class="llmfs-muted">C++ alone, the same steps on one process: losses '
            f'{esc(cpp_losses.replace(",", ", "))}; largest difference from PyTorch\'s θ, m, v '
            f'{esc(difference)}</p>')
    text = [f"1. C++ (Chapter 35) writes the checkpoint after step {start}.",
            f"2. PyTorch continues it with DistributedDataParallel on {processes} gloo processes to step "
            f"{step} (mean losses {losses}) and writes the same format.",
            f"3. The C++ program reads the file and writes it again: {equal} of {size} bytes equal.",
            f"4. Greedy decoding with Chapter 32's forward appends ids {tokens}.",
            f"Check: chapter 35's C++ run continued the same steps on one process has losses {cpp_losses} "
            f"and differs from PyTorch's θ, m, v by at most {difference}."]
    return html, "\n".join(text)
