#!/usr/bin/env bash
# Usage: tools/run-loop-order-bench.sh BUILD_DIR
# Chapter 11's benchmark, one run on one machine: n×n·n×n products of doubles at n = 128,
# 256, 512, 1024 by
#   - the i-j-k and i-k-j loop orders on raw arrays (i-j-k up to n = 512 only: it is slow),
#   - the library's matmul on its teaching path (the chapter's i-p-j loop) and on its fast
#     path (blocked and vectorised; the instruction set chosen at run time) on 1 and 2 threads,
#   - PyTorch float64 torch.matmul on 1 and 2 threads, with the BLAS libblas.so.3 points to
#     (named in the output), and again with OpenBLAS (its core chosen by bench_openblas_env in
#     tools/bench-common.sh) if the
#     Debian package libopenblas0-pthread is installed (LLMFS_OPENBLAS_DIR overrides its folder).
# Prints and writes to bench/results/ch11-loop-order.txt (between region markers, so chapter 11
# shows the file itself; a measurement, never a golden) the times, GFLOP/s (2·n³ / time) and
# the ratios. One-thread figures are CPU time; two-thread figures are wall time (CPU time adds
# up the threads), which means something only when the load average is low; 2t/1t_wall is the
# two-thread wall rate over the one-thread wall rate of the same run.
set -euo pipefail

source "$(dirname "$0")/bench-common.sh"
bench_setup run-loop-order-bench llmfs_loop_order_bench "$@"  # build_dir, root, bench, work
sizes=128,256,512,1024
min_seconds=${LLMFS_BENCH_MIN_SECONDS:-0.5}
"$bench" --benchmark_min_time="$min_seconds" --benchmark_repetitions=3 \
  --benchmark_report_aggregates_only=true --benchmark_format=console \
  --benchmark_out="$work/loop.json" --benchmark_out_format=json
echo "== PyTorch float64, the system BLAS"
LLMFS_BENCH_MIN_SECONDS="$min_seconds" /usr/bin/python3 "$root/bench/torch_reference.py" \
  --square "$sizes" > "$work/torch.json"
openblas=${LLMFS_OPENBLAS_DIR:-/usr/lib/x86_64-linux-gnu/openblas-pthread}
if [[ -e "$openblas/libblas.so.3" ]]; then
  bench_openblas_env "$openblas/libopenblas.so.0"
  echo "== PyTorch float64, OpenBLAS from $openblas, core $openblas_core"
  env "${openblas_env[@]}" LD_LIBRARY_PATH="$openblas" LLMFS_BENCH_MIN_SECONDS="$min_seconds" \
    /usr/bin/python3 "$root/bench/torch_reference.py" --square "$sizes" > "$work/openblas.json"
else
  echo "== OpenBLAS: $openblas/libblas.so.3 not found (install libopenblas0-pthread); its column stays empty"
  echo '{"env": {}, "cases": {}}' > "$work/openblas.json"
fi
mkdir -p "$root/bench/results"
/usr/bin/python3 - "$work" "$root/bench/results/ch11-loop-order.txt" "$build_dir" "$sizes" <<'PY'
import json, os, sys

work, target, build_dir, sizes = sys.argv[1], sys.argv[2], sys.argv[3], [int(x) for x in sys.argv[4].split(",")]
runs = json.load(open(f"{work}/loop.json"))
to_ms = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
cpu, wall, label = {}, {}, {}
for b in runs["benchmarks"]:
    if b.get("aggregate_name") == "median":
        name = b["run_name"].removesuffix("/real_time")
        cpu[name] = b["cpu_time"] * to_ms[b["time_unit"]]
        wall[name] = b["real_time"] * to_ms[b["time_unit"]]
        label[name] = b.get("label", "")
torch = json.load(open(f"{work}/torch.json"))
openblas = json.load(open(f"{work}/openblas.json"))
ctx = runs["context"]
caches = ", ".join(f"L{c['level']} {c['type'].lower()} {c['size'] // 1024} KiB"
                   for c in ctx.get("caches", []))


def blas_name(env):
    if not env:
        return "not installed"
    loaded = ", ".join(os.path.basename(p) for p in env["blas_loaded"]) or "none found"
    return f"{loaded} (OPENBLAS_CORETYPE={env['OPENBLAS_CORETYPE']})"


def gf(n, ms):
    return 2.0 * n ** 3 / (ms * 1e-3) * 1e-9 if ms else None


def cell(x, fmt="{:.2f}"):
    return fmt.format(x) if x is not None else "-"


fast_path = label.get(f"loop_order/fast_1_thread/{sizes[0]}", "?")
out = [
    "# Chapter 11 benchmark: loop order and the fast path (regenerate: tools/run-loop-order-bench.sh build/bench;",
    "# written by that script, shown by chapters/11-matrix-multiplication.md, never typed by hand)",
    "# region: loop-order-results",
    f"# date: {ctx.get('date')}",
    f"# machine: {ctx.get('num_cpus')} CPUs at {ctx.get('mhz_per_cpu')} MHz; {caches}",
    "# load average: " + ", ".join(f"{x:.2f}" for x in ctx.get("load_avg", [])),
    f"# build: {os.path.basename(build_dir.rstrip('/'))} preset, -O2, no -march=native, no FMA, double;"
    f" fast path chosen at run time: {fast_path}",
    f"# PyTorch {torch['env']['torch']} float64: system BLAS {blas_name(torch['env'])};"
    f" OpenBLAS {blas_name(openblas['env'])}",
    "# times: median over 3 repetitions of CPU ms per n×n·n×n product (2-thread columns: wall ms);"
    " GFLOP/s = 2·n³ / time",
    "# loop order, one thread: the same sums, two walks through memory",
    "n\tijk_ms\tikj_ms\tteaching_ms\tijk_GFLOPs\tikj_GFLOPs\tratio_ijk/ikj",
]
for n in sizes:
    ijk, ikj, teach = (cpu.get(f"loop_order/{k}/{n}") for k in ("ijk", "ikj", "teaching"))
    out.append(f"{n}\t{cell(ijk, '{:.3f}')}\t{cell(ikj, '{:.3f}')}\t{cell(teach, '{:.3f}')}\t"
               f"{cell(gf(n, ijk))}\t{cell(gf(n, ikj))}\t{cell(ijk / ikj if ijk else None)}")
out += [
    "# the fast path against the teaching loop and PyTorch, GFLOP/s (same bits as teaching; torch's differ)",
    "n\tteaching\tfast_1t\tfast/teaching\tfast_2t_wall\t2t/1t_wall\ttorch_sys_1t\topenblas_1t\topenblas_2t_wall\tfast/openblas_1t",
]
for n in sizes:
    teach = gf(n, cpu.get(f"loop_order/teaching/{n}"))
    fast1 = gf(n, cpu.get(f"loop_order/fast_1_thread/{n}"))
    fast2 = gf(n, wall.get(f"loop_order/fast_2_threads/{n}"))
    fast1_wall = gf(n, wall.get(f"loop_order/fast_1_thread/{n}"))
    sys1 = gf(n, torch["cases"].get(f"torch/1/{n}", {}).get("cpu_ms"))
    ob1 = gf(n, openblas["cases"].get(f"torch/1/{n}", {}).get("cpu_ms"))
    ob2 = gf(n, openblas["cases"].get(f"torch/2/{n}", {}).get("wall_ms"))
    out.append(f"{n}\t{cell(teach)}\t{cell(fast1)}\t{cell(fast1 / teach if fast1 and teach else None)}\t"
               f"{cell(fast2)}\t{cell(fast2 / fast1_wall if fast2 and fast1_wall else None)}\t{cell(sys1)}\t{cell(ob1)}\t{cell(ob2)}\t"
               f"{cell(fast1 / ob1 if fast1 and ob1 else None)}")
out.append("# endregion: loop-order-results")
text = "\n".join(out) + "\n"
tmp = target + ".tmp"
open(tmp, "w").write(text)
os.replace(tmp, target)
print()
print(text, end="")
PY
