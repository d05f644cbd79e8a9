"""What the long-run plot scripts share (tools/plot-ngram-log.py, plot-training-log.py,
plot-ch39-run.py, plot-ch42-run.py).

read_records() reads a run's JSON-lines log; write() replaces a file atomically;
window_means() is the training loss averaged over each WINDOW steps. The rest serves the runs
`make train` and `make train-fast` write alike (a log, a summary and samples side by side):
read_run() reads the three, loss_figure() draws training and validation loss by step with
the selected step marked, and eval_lines(), training_lines() and sample_lines() are the
table lines both chapters show. run_main() is their command line: LOG OUT, with one more
file read from beside the log, writing OUT.svg and OUT.txt.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_axes import LEFT, TOP, WIDTH, axes  # noqa: E402

WINDOW = 50


def read_records(path):
    """The JSON records of a log, one a line (blank lines skipped)."""
    with open(path, encoding="utf-8") as log:
        return [json.loads(line) for line in log if line.strip()]


def write(path, text):
    """Writes `text` to path + ".tmp", flushed to disk, then renames it over `path`."""
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def window_means(steps):
    """(last step, mean loss) of each WINDOW consecutive `step` records (the last may be short)."""
    means = []
    for first in range(0, len(steps), WINDOW):
        chunk = steps[first:first + WINDOW]
        means.append((chunk[-1]["step"], sum(r["loss"] for r in chunk) / len(chunk)))
    return means


def loss_curves(X, Y, lo, hi, means, evals, selected, label_offset):
    """The SVG pieces of both curves: the training means dotted (clamped to [lo, hi]), the
    validations thick with a point each, and the `selected` (step, loss) circled with its
    label moved by `label_offset` (dx, dy) from the circle."""
    step, loss = selected
    return ['<polyline points="%s" fill="none" stroke="currentColor" stroke-width="1" stroke-dasharray="2 2"/>'
            % " ".join("%.1f,%.1f" % (X(s), Y(min(max(v, lo), hi))) for s, v in means),
            '<polyline points="%s" fill="none" stroke="currentColor" stroke-width="2"/>'
            % " ".join("%.1f,%.1f" % (X(s), Y(v)) for s, v in evals)] + [
        '<circle cx="%.1f" cy="%.1f" r="3" fill="currentColor"><title>step %d: validation %.4f'
        '</title></circle>' % (X(s), Y(v), s, v) for s, v in evals] + [
        '<circle cx="%.1f" cy="%.1f" r="7" fill="none" stroke="currentColor"/>'
        '<text x="%.1f" y="%.1f" font-size="10" fill="currentColor">selected: step %d, %.3f</text>'
        % (X(step), Y(loss), X(step) + label_offset[0], Y(loss) + label_offset[1], step, loss)]


def loss_figure(config, steps, evals, selected, model):
    """Training loss (dotted, the mean of each WINDOW steps) and validation loss (thick, with
    points) in nats per token by step, `selected` circled; step 0 is left out (ln V and
    above would flatten the curve: its value is in the table)."""
    means = window_means(steps)
    best_loss = dict(evals)[selected]
    values = [v for _, v in evals[1:]] + [v for _, v in means]
    lo, hi = min(values) - 0.2, max(values) + 0.2
    last = max(config["steps"], evals[-1][0])
    title = ("Training and validation loss of %s (%d steps of %d tokens)"
             % (model, config["steps"], config["B"] * config["T"]))
    shown = evals[1:]
    out, X, Y = axes(title, [s for s, _ in shown], last, lo, hi, 0.5,
                     "AdamW steps (B = %d, T = %d tokens)" % (config["B"], config["T"]), 170)
    out += loss_curves(X, Y, lo, hi, means, shown, (selected, best_loss), (-60, -12))
    # The legend in the right margin, where no curve runs (the curves start high on the left).
    for i, line in enumerate(("thick: validation loss", "dotted: training loss,",
                              "mean of %d steps" % WINDOW, "(nats per token)")):
        out.append('<text x="%d" y="%d" font-size="10" fill="currentColor">%s</text>'
                   % (LEFT + WIDTH + 12, TOP + 40 + 13 * i, line))
    out.append("</svg>\n")
    return "".join(out)


def read_run(log, name):
    """The log's config, steps and (step, validation loss) pairs, and beside it the run's
    summary (BASE-summary.json) and samples (BASE-samples.tsv); None (the problem on stderr)
    when the log is not named BASE-train.jsonl or holds fewer than two validations. Samples
    that are not whole UTF-8 show U+FFFD."""
    if not log.endswith("-train.jsonl"):
        print("%s: the log's name must end in -train.jsonl" % name, file=sys.stderr)
        return None
    base = log[:-len("-train.jsonl")]
    records = read_records(log)
    config = next(r for r in records if r["kind"] == "config")
    steps = [r for r in records if r["kind"] == "step"]
    evals = [(r["step"], r["val_loss"]) for r in records if r["kind"] == "eval"]
    with open(base + "-summary.json", encoding="utf-8") as f:
        summary = json.load(f)
    samples = []
    with open(base + "-samples.tsv", encoding="utf-8", errors="replace") as f:
        for line in f:
            prompt, temperature, top_k, text = line.rstrip("\n").split("\t")
            samples.append((json.loads(prompt), temperature, top_k, json.loads(text)))
    if len(evals) < 2:
        print("%s: fewer than two eval records in %s" % (name, log), file=sys.stderr)
        return None
    return config, steps, evals, summary, samples


def training_lines(config, summary):
    """The run's schedule: steps, tokens, epochs and AdamW's settings, two lines."""
    return ["training: %d steps of B = %d (%d tokens, %.2f epochs of %d), AdamW peak %g, floor %g,"
            % (config["steps"], config["B"], summary["train_tokens_seen"],
               summary["train_tokens_seen"] / config["train_tokens"], config["train_tokens"],
               config["peak"], config["floor"]),
            "          warmup %d, clip %g, seed %d; %d matmul threads"
            % (config["warmup"], config["clip"], config["seed"], summary["matmul_threads"])]


def eval_lines(evals, summary):
    """The validations by step, the selected one marked, and the every-token line's head."""
    lines = ["  step  validation loss (nats/token, every window)"]
    for s, v in evals:
        lines.append("%6d  %.6f%s" % (s, v, "  <- selected" if s == summary["selected_step"] else ""))
    return lines + ["", "selected step %d, on every one of the %d validation tokens (%d bytes):"
                    % (summary["selected_step"], summary["validation_tokens"], summary["validation_bytes"])]


def sample_lines(samples):
    """One line per sample: `[how] prompt|continuation`, newlines shown as ` / `."""
    out = []
    for prompt, temperature, top_k, text in samples:
        how = "greedy" if temperature == "greedy" else "tau %s, top-k %s" % (temperature, top_k)
        out.append("[%s] %s|%s" % (how, prompt, text.replace("\n", " / ")))
    return out


def run_main(argv, usage, name, beside, render):
    """`LOG OUT`: reads the run (read_run) and the file named `beside` in the log's folder,
    then writes OUT.svg and OUT.txt, the pair render(run, path of `beside`) returns."""
    if len(argv) != 2:
        print(usage, file=sys.stderr)
        return 2
    run = read_run(argv[0], name)
    if run is None:
        return 1
    svg, txt = render(run, os.path.join(os.path.dirname(os.path.abspath(argv[0])), beside))
    write(argv[1] + ".svg", svg)
    write(argv[1] + ".txt", txt)
    return 0
