#!/usr/bin/python3
"""Redraw chapter 42's run (`make train-fast`) from what it wrote.

    /usr/bin/python3 tools/plot-ch42-run.py docs/_static/ch42-train.jsonl docs/_static/ch42-run

Reads the training log (JSON lines: `config`, a `step` per step, an `eval` per validation)
and beside it the run's summary (`ch42-summary.json`) and samples (`ch42-samples.tsv`), and
chapter 39's summary (docs/_static/ch39-summary.json) for the model it is compared with.
Writes OUT.svg (chapter 39's figure: training loss, mean of 50 steps, and validation loss
by step, the selected step marked) and OUT.txt (the results and the samples as regions the
chapter shows). Wall-clock values appear in the text only. Both written atomically.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from long_run import eval_lines, loss_figure, run_main, sample_lines, training_lines  # noqa: E402


def tables(config, evals, summary, samples, ch39_summary):
    lines = ["# Chapter 42's run: written by tools/plot-ch42-run.py from ch42-train.jsonl,",
             "# ch42-summary.json and ch42-samples.tsv; shown by chapters/42-making-it-fast.md,",
             "# never typed by hand",
             "# region: fast-run-results",
             "model: V = %d, d = %d, h = %d, N = %d, d_ff = %d, T = %d: %d parameters (%s attention)"
             % (config["V"], config["d"], config["h"], config["N"], config["d_ff"], config["T"],
                summary["parameters"], config["attention"])]
    lines += training_lines(config, summary)
    lines += ["time: %.0f s wall (%.0f tokens/s) for the training loop with its validations"
              % (summary["train_wall_s"], summary["tokens_per_wall_s"]),
              ""] + eval_lines(evals, summary)
    lines += ["  %.6f bits per byte (chapter 39's model, %d parameters: %.6f)"
              % (summary["validation_bpb"], ch39_summary["parameters"], ch39_summary["validation_bpb"]),
              "# endregion: fast-run-results",
              "# region: fast-run-samples"]
    lines += sample_lines(samples)
    lines.append("# endregion: fast-run-samples")
    return "\n".join(lines) + "\n"


def render(run, ch39_summary_path):
    """The figure and the tables, chapter 39's model from its summary."""
    config, steps, evals, summary, samples = run
    with open(ch39_summary_path, encoding="utf-8") as f:
        ch39_summary = json.load(f)
    return (loss_figure(config, steps, evals, summary["selected_step"], "the chapter 42 run"),
            tables(config, evals, summary, samples, ch39_summary))


def main(argv):
    return run_main(argv, __doc__.strip().splitlines()[2].strip(), "plot-ch42-run",
                    "ch39-summary.json", render)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
