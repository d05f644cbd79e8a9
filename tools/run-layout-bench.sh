#!/usr/bin/env bash
# Usage: tools/run-layout-bench.sh BUILD_DIR
# Chapter 9's benchmark: times a materialised transpose (the head split and Kᵀ of
# multi-head attention) beside a plain copy of the same tensor, reshape by copy and by
# move, and the scores matmul, at the shapes of bench/shapes.hpp; writes CPU microseconds
# per call, the bandwidth and the ratios, with the run's environment, to
# bench/results/ch09-layout.txt (a measurement, never a golden: the chapter quotes it,
# nothing compares against it).
set -euo pipefail

source "$(dirname "$0")/bench-common.sh"
bench_setup run-layout-bench llmfs_layout_bench "$@"  # build_dir, root, bench, work
"$bench" --benchmark_format=console --benchmark_repetitions=3 \
  --benchmark_report_aggregates_only=true --benchmark_out="$work/layout.json" \
  --benchmark_out_format=json
mkdir -p "$root/bench/results"
/usr/bin/python3 - "$work/layout.json" "$root/bench/results/ch09-layout.txt" <<'PY'
import json, os, sys

runs = json.load(open(sys.argv[1]))
to_us = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
median = {}
rate = {}
for b in runs["benchmarks"]:
    if b.get("aggregate_name") != "median":
        continue
    name = b["run_name"]
    median[name] = b["cpu_time"] * to_us[b["time_unit"]]
    rate[name] = b.get("bytes_per_second")
ctx = runs["context"]
out = [
    "# Chapter 9 benchmark: materialised transposes (regenerate: tools/run-layout-bench.sh build/bench)",
    f"# date: {ctx.get('date')}",
    f"# machine: {ctx.get('num_cpus')} CPUs at {ctx.get('mhz_per_cpu')} MHz, load average "
    + ", ".join(f"{x:.2f}" for x in ctx.get("load_avg", [])),
    "# llmfs, one thread, -O2; CPU microseconds per call, median of 3 repetitions (the machine is shared)",
    "# GB/s counts each element read once and written once (16 bytes)",
    "case\tcpu_us\tGB_s",
]
tags = sorted({n.split("/")[-1] for n in median})
for tag in tags:
    for op in ("copy", "reshape_copy", "reshape_move", "transpose_heads", "transpose_keys", "scores_matmul"):
        name = f"layout/{op}/{tag}"
        gbs = rate.get(name)
        out.append(f"{name}\t{median[name]:.2f}\t{gbs / 1e9:.2f}" if gbs else f"{name}\t{median[name]:.3f}\t-")
    base = median[f"layout/copy/{tag}"]
    out.append(f"ratio transpose_heads/copy {tag}\t{median[f'layout/transpose_heads/{tag}'] / base:.2f}")
    out.append(f"ratio transpose_keys/copy {tag}\t{median[f'layout/transpose_keys/{tag}'] / base:.2f}")
    out.append(f"ratio transpose_keys/scores_matmul {tag}\t"
               f"{median[f'layout/transpose_keys/{tag}'] / median[f'layout/scores_matmul/{tag}']:.3f}")
text = "\n".join(out) + "\n"
tmp = sys.argv[2] + ".tmp"
open(tmp, "w").write(text)
os.replace(tmp, sys.argv[2])
print()
print(text, end="")
PY
