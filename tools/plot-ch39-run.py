#!/usr/bin/python3
"""Redraw Chapter 39's long-run figure and tables from what `make train` wrote.

    /usr/bin/python3 tools/plot-ch39-run.py docs/_static/ch39-train.jsonl docs/_static/ch39-run

Reads the training log (JSON lines: `config`, a `step` per step, an `eval` per
validation), and beside it the run's summary (`ch39-summary.json`: sizes, times, the
selected step, every validation token scored, the sealed test table) and samples
(`ch39-samples.tsv`: prompt, temperature, top-k, continuation, JSON-quoted), and
chapter 23's n-gram log (docs/_static/ch23-train-ngram.jsonl) for its validation score and
the bigram's beside it.
Writes OUT.svg (training loss, mean of 50 steps, and validation loss in nats per token by
step, the selected step marked; currentColor only) and OUT.txt (the results, the test
table and the samples as regions the chapter shows). Wall-clock values appear in the
text only, never in a drawn value. Both files are written atomically.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_axes import LEFT, TOP, WIDTH, axes  # noqa: E402
WINDOW = 50


def write(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def figure(config, steps, evals, selected, model="the chapter 39 model"):
    means = []
    for first in range(0, len(steps), WINDOW):
        chunk = steps[first:first + WINDOW]
        means.append((chunk[-1]["step"], sum(r["loss"] for r in chunk) / len(chunk)))
    best_loss = dict(evals)[selected]
    values = [v for _, v in evals[1:]] + [v for _, v in means]
    lo, hi = min(values) - 0.2, max(values) + 0.2
    last = max(config["steps"], evals[-1][0])
    title = ("Training and validation loss of %s (%d steps of %d tokens)"
             % (model, config["steps"], config["B"] * config["T"]))
    shown = evals[1:]  # step 0 (ln V and above) would flatten the curve: its value is in the table
    out, X, Y = axes(title, [s for s, _ in shown], last, lo, hi, 0.5,
                     "AdamW steps (B = %d, T = %d tokens)" % (config["B"], config["T"]), 170)
    out.append('<polyline points="%s" fill="none" stroke="currentColor" stroke-width="1" stroke-dasharray="2 2"/>'
               % " ".join("%.1f,%.1f" % (X(s), Y(min(max(v, lo), hi))) for s, v in means))
    out.append('<polyline points="%s" fill="none" stroke="currentColor" stroke-width="2"/>'
               % " ".join("%.1f,%.1f" % (X(s), Y(v)) for s, v in shown))
    for s, v in shown:
        out.append('<circle cx="%.1f" cy="%.1f" r="3" fill="currentColor"><title>step %d: validation %.4f'
                   '</title></circle>' % (X(s), Y(v), s, v))
    out.append('<circle cx="%.1f" cy="%.1f" r="7" fill="none" stroke="currentColor"/>'
               '<text x="%.1f" y="%.1f" font-size="10" fill="currentColor">selected: step %d, %.3f</text>'
               % (X(selected), Y(best_loss), X(selected) - 60, Y(best_loss) - 12, selected, best_loss))
    # The legend in the right margin, where no curve runs (the curves start high on the left).
    for i, line in enumerate(("thick: validation loss", "dotted: training loss,",
                              "mean of %d steps" % WINDOW, "(nats per token)")):
        out.append('<text x="%d" y="%d" font-size="10" fill="currentColor">%s</text>'
                   % (LEFT + WIDTH + 12, TOP + 40 + 13 * i, line))
    out.append("</svg>\n")
    return "".join(out)


def sample_lines(samples):
    """One line per sample: `[how] prompt|continuation`, newlines shown as ` / `."""
    out = []
    for prompt, temperature, top_k, text in samples:
        how = "greedy" if temperature == "greedy" else "tau %s, top-k %s" % (temperature, top_k)
        out.append("[%s] %s|%s" % (how, prompt, text.replace("\n", " / ")))
    return out


def read_run(log, name):
    """The log's config, steps and (step, validation loss) pairs, and beside it the run's
    summary and samples; None (the problem on stderr) when the log is misnamed or holds
    fewer than two validations. Samples that are not whole UTF-8 show U+FFFD."""
    if not log.endswith("-train.jsonl"):
        print("%s: the log's name must end in -train.jsonl" % name, file=sys.stderr)
        return None
    base = log[:-len("-train.jsonl")]
    records = [json.loads(line) for line in open(log, encoding="utf-8") if line.strip()]
    config = next(r for r in records if r["kind"] == "config")
    steps = [r for r in records if r["kind"] == "step"]
    evals = [(r["step"], r["val_loss"]) for r in records if r["kind"] == "eval"]
    summary = json.load(open(base + "-summary.json", encoding="utf-8"))
    samples = []
    for line in open(base + "-samples.tsv", encoding="utf-8", errors="replace"):
        prompt, temperature, top_k, text = line.rstrip("\n").split("\t")
        samples.append((json.loads(prompt), temperature, top_k, json.loads(text)))
    if len(evals) < 2:
        print("%s: fewer than two eval records in %s" % (name, log), file=sys.stderr)
        return None
    return config, steps, evals, summary, samples


def eval_lines(evals, summary):
    """The validations by step, the selected one marked, and the every-token line's head."""
    lines = ["  step  validation loss (nats/token, every window)"]
    for s, v in evals:
        lines.append("%6d  %.6f%s" % (s, v, "  <- selected" if s == summary["selected_step"] else ""))
    return lines + ["", "selected step %d, on every one of the %d validation tokens (%d bytes):"
                    % (summary["selected_step"], summary["validation_tokens"], summary["validation_bytes"])]


def tables(config, evals, summary, samples, ngram_bpb, bigram_bpb):
    n = summary["parameters"]
    lines = ["# Chapter 39's long run: written by tools/plot-ch39-run.py from ch39-train.jsonl,",
             "# ch39-summary.json and ch39-samples.tsv; shown by chapters/39-the-end-to-end-llm.md,",
             "# never typed by hand",
             "# region: long-run-results",
             "model: V = %d, d = %d, h = %d, N = %d, d_ff = %d, T = %d: %d parameters"
             % (config["V"], config["d"], config["h"], config["N"], config["d_ff"], config["T"], n),
             "training: %d steps of B = %d (%d tokens, %.2f epochs of %d), AdamW peak %g, floor %g,"
             % (config["steps"], config["B"], summary["train_tokens_seen"],
                summary["train_tokens_seen"] / config["train_tokens"], config["train_tokens"],
                config["peak"], config["floor"]),
             "          warmup %d, clip %g, seed %d; %d matmul threads"
             % (config["warmup"], config["clip"], config["seed"], summary["matmul_threads"]),
             "time: %.0f s wall (%.0f tokens/s), %.0f s of CPU, for the training loop with its validations"
             % (summary["train_wall_s"], summary["tokens_per_wall_s"], summary["train_cpu_s"]),
             ""] + eval_lines(evals, summary)
    lines += ["  %.6f bits per byte (chapter 23's n-gram: %.6f; chapter 6's bigram: %.6f)"
              % (summary["validation_bpb"], ngram_bpb, bigram_bpb),
              "# endregion: long-run-results",
              "# region: test-table",
              "the sealed test partition, scored once: %d windows of %d tokens (%d tokens, %d bytes)"
              % (summary["test_examples"], config["T"], summary["test_tokens"], summary["test_bytes"]),
              "",
              "model      cross-entropy  perplexity  bits/byte"]
    for row in summary["test"]:
        lines.append("%-9s  %13.6f  %10.3f  %9.6f" % (row["name"], row["cross_entropy"],
                                                       row["perplexity"], row["bits_per_byte"]))
    lines += ["(the bigram's alpha, chosen on validation: %g)" % summary["bigram_alpha"],
              "# endregion: test-table",
              "# region: samples"]
    lines += sample_lines(samples)
    lines.append("# endregion: samples")
    return "\n".join(lines) + "\n"


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    log = argv[0]
    run = read_run(log, "plot-ch39-run")
    if run is None:
        return 1
    config, steps, evals, summary, samples = run
    ngram_log = os.path.join(os.path.dirname(os.path.abspath(log)), "ch23-train-ngram.jsonl")
    ngram = [json.loads(line) for line in open(ngram_log, encoding="utf-8") if line.strip()]
    final = next(r for r in ngram if r["kind"] == "final")
    ngram_bpb, bigram_bpb = final["validation_bpb"], final["bigram_bpb"]
    write(argv[1] + ".svg", figure(config, steps, evals, summary["selected_step"]))
    write(argv[1] + ".txt", tables(config, evals, summary, samples, ngram_bpb, bigram_bpb))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
