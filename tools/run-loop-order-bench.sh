#!/usr/bin/env bash
# Usage: tools/run-loop-order-bench.sh BUILD_DIR
# Chapter 11's benchmark: the i-j-k and i-k-j loop orders of one n×n matrix product of
# doubles, and the library's matmul, at n = 128, 256, 512, on the same machine in one run.
# Prints CPU time per product, GFLOP/s (2·n³ operations) and the ratio i-j-k / i-k-j, and
# writes them with the run's environment to bench/results/ch11-loop-order.txt, between
# region markers, so chapter 11 shows the file itself (a measurement, never a golden:
# nothing compares against it).
set -euo pipefail

source "$(dirname "$0")/bench-common.sh"
bench_setup run-loop-order-bench llmfs_loop_order_bench "$@"  # build_dir, root, bench, work
"$bench" --benchmark_min_time="${LLMFS_BENCH_MIN_SECONDS:-0.5}" --benchmark_repetitions=3 \
  --benchmark_report_aggregates_only=true --benchmark_format=console \
  --benchmark_out="$work/loop.json" --benchmark_out_format=json
mkdir -p "$root/bench/results"
/usr/bin/python3 - "$work/loop.json" "$root/bench/results/ch11-loop-order.txt" "$build_dir" <<'PY'
import json, os, sys

runs = json.load(open(sys.argv[1]))
to_ms = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
cpu = {}
for b in runs["benchmarks"]:
    if b.get("aggregate_name") == "median":
        cpu[b["run_name"]] = b["cpu_time"] * to_ms[b["time_unit"]]
ctx = runs["context"]
caches = ", ".join(f"L{c['level']} {c['type'].lower()} {c['size'] // 1024} KiB"
                   for c in ctx.get("caches", []))
out = [
    "# Chapter 11 benchmark: loop order (regenerate: tools/run-loop-order-bench.sh build/bench;",
    "# written by that script, shown by chapters/11-matrix-multiplication.md, never typed by hand)",
    "# region: loop-order-results",
    f"# date: {ctx.get('date')}",
    f"# machine: {ctx.get('num_cpus')} CPUs at {ctx.get('mhz_per_cpu')} MHz; {caches}",
    "# load average: " + ", ".join(f"{x:.2f}" for x in ctx.get("load_avg", [])),
    f"# build: {os.path.basename(sys.argv[3].rstrip('/'))} preset, -O2, one thread, double",
    "# times: median CPU ms per n×n·n×n product over 3 repetitions; GFLOP/s = 2·n³ / time",
    "n\tijk_ms\tikj_ms\tlibrary_ms\tijk_GFLOPs\tikj_GFLOPs\tratio_ijk/ikj",
]
for n in (128, 256, 512):
    ijk, ikj, lib = (cpu[f"loop_order/{k}/{n}"] for k in ("ijk", "ikj", "library"))
    gf = lambda ms: 2.0 * n ** 3 / (ms * 1e-3) * 1e-9
    out.append(f"{n}\t{ijk:.3f}\t{ikj:.3f}\t{lib:.3f}\t{gf(ijk):.2f}\t{gf(ikj):.2f}\t{ijk / ikj:.2f}")
out.append("# endregion: loop-order-results")
text = "\n".join(out) + "\n"
tmp = sys.argv[2] + ".tmp"
open(tmp, "w").write(text)
os.replace(tmp, sys.argv[2])
print()
print(text, end="")
PY
