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

import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("plot_ch39_run", os.path.join(HERE, "plot-ch39-run.py"))
ch39 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ch39)


def tables(config, evals, summary, samples, ch39_summary):
    lines = ["# Chapter 42's run: written by tools/plot-ch42-run.py from ch42-train.jsonl,",
             "# ch42-summary.json and ch42-samples.tsv; shown by chapters/42-making-it-fast.md,",
             "# never typed by hand",
             "# region: fast-run-results",
             "model: V = %d, d = %d, h = %d, N = %d, d_ff = %d, T = %d: %d parameters (%s attention)"
             % (config["V"], config["d"], config["h"], config["N"], config["d_ff"], config["T"],
                summary["parameters"], config["attention"]),
             "training: %d steps of B = %d (%d tokens, %.2f epochs of %d), AdamW peak %g, floor %g,"
             % (config["steps"], config["B"], summary["train_tokens_seen"],
                summary["train_tokens_seen"] / config["train_tokens"], config["train_tokens"],
                config["peak"], config["floor"]),
             "          warmup %d, clip %g, seed %d; %d matmul threads"
             % (config["warmup"], config["clip"], config["seed"], summary["matmul_threads"]),
             "time: %.0f s wall (%.0f tokens/s) for the training loop with its validations"
             % (summary["train_wall_s"], summary["tokens_per_wall_s"]),
             ""] + ch39.eval_lines(evals, summary)
    lines += ["  %.6f bits per byte (chapter 39's model, %d parameters: %.6f)"
              % (summary["validation_bpb"], ch39_summary["parameters"], ch39_summary["validation_bpb"]),
              "# endregion: fast-run-results",
              "# region: fast-run-samples"]
    lines += ch39.sample_lines(samples)
    lines.append("# endregion: fast-run-samples")
    return "\n".join(lines) + "\n"


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    log = argv[0]
    run = ch39.read_run(log, "plot-ch42-run")
    if run is None:
        return 1
    config, steps, evals, summary, samples = run
    other = os.path.join(os.path.dirname(os.path.abspath(log)), "ch39-summary.json")
    ch39_summary = json.load(open(other, encoding="utf-8"))
    ch39.write(argv[1] + ".svg", ch39.figure(config, steps, evals, summary["selected_step"],
                                             "the chapter 42 run"))
    ch39.write(argv[1] + ".txt", tables(config, evals, summary, samples, ch39_summary))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
