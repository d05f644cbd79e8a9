#!/usr/bin/env bash
# Usage: tools/run-bench.sh BUILD_DIR
# Runs the llmfs Google Benchmark target and the PyTorch float64 reference (same shapes, one
# thread) in one go, then prints a table of CPU time per iteration and the ratio ours/torch,
# with the BLAS torch loaded. Timings are CPU time (the machine may be shared); wall times are
# printed alongside. LLMFS_BENCH_MIN_SECONDS (default 0.5) sets the minimum time per case.
set -euo pipefail

source "$(dirname "$0")/bench-common.sh"
bench_setup run-bench llmfs_bench "$@"  # build_dir, root, bench, work
python=/usr/bin/python3
min_seconds=${LLMFS_BENCH_MIN_SECONDS:-0.5}

echo "== llmfs ($bench, single thread, -O2 without -march=native)"
"$bench" --benchmark_min_time="$min_seconds" --benchmark_min_warmup_time=0.1 --benchmark_format=console \
  --benchmark_out="$work/ours.json" --benchmark_out_format=json
echo "== PyTorch float64 reference (torch.set_num_threads(1))"
LLMFS_BENCH_MIN_SECONDS="$min_seconds" "$python" "$root/bench/torch_reference.py" > "$work/torch.json"

"$python" - "$work/ours.json" "$work/torch.json" <<'PY'
import json, os, sys

ours = json.load(open(sys.argv[1]))
torch = json.load(open(sys.argv[2]))
to_ms = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
mine = {b["name"]: (b["cpu_time"] * to_ms[b["time_unit"]], b["real_time"] * to_ms[b["time_unit"]])
        for b in ours["benchmarks"] if b.get("run_type", "iteration") == "iteration"}
env = torch["env"]
ctx = ours["context"]
print()
print(f"machine: {ctx.get('num_cpus')} CPUs at {ctx.get('mhz_per_cpu')} MHz, "
      f"load average {', '.join(f'{x:.2f}' for x in ctx.get('load_avg', []))}")
print(f"torch {env['torch']}, threads={env['threads']}, BLAS_INFO={env['blas_info']}, "
      f"BLAS loaded: {', '.join(env['blas_loaded']) or '(none found)'}, "
      f"OPENBLAS_CORETYPE={env['OPENBLAS_CORETYPE']}")
print("ours: llmfs naive loops (i-p-j matmul), one thread, double, no BLAS")
print()
header = f"| {'case':<40} | {'ours CPU ms':>12} | {'torch CPU ms':>12} | {'ours/torch':>10} | {'ours wall ms':>12} | {'torch wall ms':>13} |"
print(header)
print("|" + "|".join("-" * (len(col) + 0) for col in header.split("|")[1:-1]) + "|")
for name, case in torch["cases"].items():
    if name not in mine:
        print(f"| {name:<40} | {'missing':>12} | {case['cpu_ms']:>12.2f} | {'':>10} | {'':>12} | {case['wall_ms']:>13.2f} |")
        continue
    cpu, wall = mine[name]
    ratio = cpu / case["cpu_ms"]
    print(f"| {name:<40} | {cpu:>12.2f} | {case['cpu_ms']:>12.2f} | {ratio:>10.2f} | {wall:>12.2f} | {case['wall_ms']:>13.2f} |")
PY
