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

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from long_run import (eval_lines, loss_figure, read_records, run_main, sample_lines,  # noqa: E402
                      training_lines)


def tables(config, evals, summary, samples, ngram_bpb, bigram_bpb):
    n = summary["parameters"]
    lines = ["# Chapter 39's long run: written by tools/plot-ch39-run.py from ch39-train.jsonl,",
             "# ch39-summary.json and ch39-samples.tsv; shown by chapters/39-the-end-to-end-llm.md,",
             "# never typed by hand",
             "# region: long-run-results",
             "model: V = %d, d = %d, h = %d, N = %d, d_ff = %d, T = %d: %d parameters"
             % (config["V"], config["d"], config["h"], config["N"], config["d_ff"], config["T"], n)]
    lines += training_lines(config, summary)
    lines += ["time: %.0f s wall (%.0f tokens/s), %.0f s of CPU, for the training loop with its validations"
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


def render(run, ngram_log):
    """The figure and the tables, the n-gram's and the bigram's scores from chapter 23's log."""
    config, steps, evals, summary, samples = run
    final = next(r for r in read_records(ngram_log) if r["kind"] == "final")
    return (loss_figure(config, steps, evals, summary["selected_step"], "the chapter 39 model"),
            tables(config, evals, summary, samples, final["validation_bpb"], final["bigram_bpb"]))


def main(argv):
    return run_main(argv, __doc__.strip().splitlines()[2].strip(), "plot-ch39-run",
                    "ch23-train-ngram.jsonl", render)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
