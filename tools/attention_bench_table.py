#!/usr/bin/python3
"""Chapter 41: turns the JSON lines of tools/run-attention-bench.sh into the table the
chapter shows (PREFIX.txt, between region markers) and the same facts as PREFIX.json.

    attention_bench_table.py RUNS.jsonl PREFIX

The memory columns are the process's peak resident set minus its resident set before the
layer existed, in MiB; `growth` is that figure over the one at half as many tokens (4 for
a quadratic cost, 2 for a linear one). Time: the median of the repeats; ratios are
stored-weights time over the other's."""

import datetime
import json
import os
import statistics
import sys


def main() -> None:
    runs = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
    prefix = sys.argv[2]
    memory = {(r["kernel"], r["tokens"]): r for r in runs if r["mode"] == "memory"}
    times = {r["kernel"]: r for r in runs if r["mode"] == "time"}
    mib = lambda r: (r["peak_bytes"] - r["baseline_bytes"]) / 2**20
    lines = ["# Chapter 41 benchmark: attention memory and time (regenerate: make bench-attention,",
             "# i.e. tools/run-attention-bench.sh build/bench; written by tools/attention_bench_table.py,",
             "# shown by chapters/41-attention-that-never-stores-its-weights.md, never typed by hand)",
             "# region: attention-results",
             f"# date: {datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds')}",
             f"# machine: {os.cpu_count()} CPUs; B = 1, h = 8, d_model = 512, d_h = 64, "
             f"block {runs[0]['block']} keys",
             "# peak resident MiB above the process's start, forward + backward of the layer",
             "T\tstored_MiB\tgrowth\tstreaming_MiB\tgrowth\tstored/streaming"]
    tokens = sorted({t for _, t in memory})
    for t in tokens:
        row = [str(t)]
        for kernel in ("stored", "streaming"):
            r = memory.get((kernel, t))
            half = memory.get((kernel, t // 2))
            row.append(f"{mib(r):.1f}" if r else "-")
            row.append(f"{mib(r) / mib(half):.2f}" if r and half else "-")
        s, f = memory.get(("stored", t)), memory.get(("streaming", t))
        row.append(f"{mib(s) / mib(f):.1f}" if s and f else "-")
        lines.append("\t".join(row))
    lines.append("# time at T = 2048, per-head kernel forward + backward, median of "
                 f"{len(times['stored']['seconds'])} runs, {times['stored']['threads']} threads, "
                 f"library matmul path {times['stored']['path']}; PyTorch {times['torch']['torch']}")
    for kernel in ("torch", "torch_openblas"):
        if kernel in times:
            lines.append(f"# {kernel}: BLAS {times[kernel]['blas']}, "
                         f"OPENBLAS_CORETYPE {times[kernel]['coretype']}")
    lines.append("kernel\tseconds\tstored/this")
    median = {k: statistics.median(r["seconds"]) for k, r in times.items()}
    for kernel in ("stored", "streaming", "torch", "torch_openblas"):
        if kernel in median:
            lines.append(f"{kernel}\t{median[kernel]:.3f}\t{median['stored'] / median[kernel]:.2f}")
    lines.append("# endregion: attention-results")
    text = "\n".join(lines) + "\n"
    for path, body in ((prefix + ".txt", text),
                       (prefix + ".json", json.dumps({"runs": runs, "median_seconds": median},
                                                     indent=1) + "\n")):
        with open(path + ".tmp", "w") as out:
            out.write(body)
        os.replace(path + ".tmp", path)
    print(text, end="")


if __name__ == "__main__":
    main()
