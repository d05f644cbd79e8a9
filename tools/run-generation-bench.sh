#!/usr/bin/env bash
# Usage: tools/run-generation-bench.sh BUILD_DIR
# Chapter 38's benchmark, one run on one machine: a 1-token prompt continued greedily to
# the context's end T = 32, 64, 128, 256 by generation::generate() with the key/value cache
# and without it (the whole sequence again every step), on one thread (LLMFS_MATMUL_THREADS=1),
# and beside it the same loops in PyTorch float64 (bench/torch_generation.py: Chapter 32's
# reference decoder, with the reference's own cache and without one), one thread.
# Prints and writes to bench/results/ch38-generation.txt (between region markers, so chapter
# 38 shows the file itself; a measurement, never a golden) CPU ms per generation, new tokens
# per second and the ratio cached/uncached, with the run's environment.
set -euo pipefail

source "$(dirname "$0")/bench-common.sh"
bench_setup run-generation-bench llmfs_generation_bench "$@"  # build_dir, root, bench, work
LLMFS_MATMUL_THREADS=1 "$bench" --benchmark_repetitions=3 \
  --benchmark_report_aggregates_only=true --benchmark_format=console \
  --benchmark_out="$work/generation.json" --benchmark_out_format=json
echo "== PyTorch float64, the same loops"
/usr/bin/python3 "$root/bench/torch_generation.py" > "$work/torch.json"
mkdir -p "$root/bench/results"
/usr/bin/python3 - "$work/generation.json" "$root/bench/results/ch38-generation.txt" "$work/torch.json" <<'PY'
import json, os, sys

runs = json.load(open(sys.argv[1]))
to_ms = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
cpu, rate = {}, {}
for b in runs["benchmarks"]:
    if b.get("aggregate_name") != "median":
        continue
    name = b["run_name"]
    cpu[name] = b["cpu_time"] * to_ms[b["time_unit"]]
    rate[name] = b["tokens_per_s"]
torch = json.load(open(sys.argv[3]))
tc = {k: v["cpu_ms"] for k, v in torch["cases"].items()}
ctx = runs["context"]
out = [
    "# Chapter 38 benchmark: generation with and without the cache (regenerate: tools/run-generation-bench.sh build/bench;",
    "# written by that script, shown by chapters/38-cached-generation.md, never typed by hand)",
    "# region: generation-results",
    f"# date: {ctx.get('date')}",
    f"# machine: {ctx.get('num_cpus')} CPUs at {ctx.get('mhz_per_cpu')} MHz; load average "
    + ", ".join(f"{x:.2f}" for x in ctx.get("load_avg", [])),
    "# model: V 256, d 32, h 4, N 2, d_ff 88; prompt 1 token, greedy to T (T - 1 new tokens), B 1",
    "# llmfs: bench preset (-O2), one matmul thread; CPU ms per generation, median of 3 repetitions",
    f"# PyTorch {torch['env']['torch']} float64, {torch['env']['threads']} thread, torch.no_grad(),"
    " the reference decoder (tests/reference/) with and without its cache; CPU ms, median of 3",
    "T\tcached_ms\tuncached_ms\tcached_tok_s\tuncached_tok_s\tspeed_up"
    "\ttorch_cached_ms\ttorch_uncached_ms\ttorch_speed_up\ttorch/llmfs_cached",
]
for t in sorted({int(n.split("/")[-1]) for n in cpu}):
    c, u = cpu[f"generation/cached/{t}"], cpu[f"generation/uncached/{t}"]
    tcm, tum = tc[f"torch/cached/{t}"], tc[f"torch/uncached/{t}"]
    out.append(f"{t}\t{c:.2f}\t{u:.2f}\t{rate[f'generation/cached/{t}']:.0f}\t"
               f"{rate[f'generation/uncached/{t}']:.0f}\t{u / c:.2f}"
               f"\t{tcm:.2f}\t{tum:.2f}\t{tum / tcm:.2f}\t{tcm / c:.2f}")
out.append("# endregion: generation-results")
text = "\n".join(out) + "\n"
tmp = sys.argv[2] + ".tmp"
open(tmp, "w").write(text)
os.replace(tmp, sys.argv[2])
print()
print(text, end="")
PY
