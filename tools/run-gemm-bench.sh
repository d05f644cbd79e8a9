#!/usr/bin/env bash
# Usage: tools/run-gemm-bench.sh BUILD_DIR [OUT_FILE]
# Chapter 42's benchmark, one run on one machine (bench/gemm_bench.cpp): the register-only
# ceilings of vmulpd+vaddpd and of vfmadd231pd on one core, the library's matmul (default
# path, one thread) and OpenBLAS's cblas_dgemm (one thread; its core chosen by
# bench_openblas_env in tools/bench-common.sh) at n = 1024 and 2048, and the teaching loop at
# 1024. The ceilings are of the instructions the kernel's path uses on this processor (ymm on
# AVX2, zmm on AVX-512; the benchmark checks the processor at run time). Five repetitions in
# random interleaved order (the load changes during a run), medians of CPU time. Prints and writes OUT_FILE (default bench/results/ch42-gemm.txt; chapter 42
# also shows bench/results/ch42-gemm-avx512.txt, written by this script on an Intel Xeon with
# AVX-512) between region markers, so the chapter shows the file itself (a measurement, never
# a golden): GFLOP/s, each kernel's fraction of the ceiling of its own instructions, and
# ours/OpenBLAS.
set -euo pipefail

source "$(dirname "$0")/bench-common.sh"
bench_setup run-gemm-bench llmfs_gemm_bench "$1"  # build_dir, root, bench, work
out=${2:-$root/bench/results/ch42-gemm.txt}
min_seconds=${LLMFS_BENCH_MIN_SECONDS:-0.5}
bench_openblas_env
env "${openblas_env[@]}" OPENBLAS_NUM_THREADS=1 LLMFS_MATMUL_THREADS=1 "$bench" \
  --benchmark_min_time="$min_seconds" --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true \
  --benchmark_report_aggregates_only=true --benchmark_format=console \
  --benchmark_out="$work/gemm.json" --benchmark_out_format=json
mkdir -p "$root/bench/results"
/usr/bin/python3 - "$work/gemm.json" "$out" "$build_dir" <<'PY'
import datetime, json, os, sys

runs = json.load(open(sys.argv[1]))
target, build_dir = sys.argv[2], sys.argv[3]
rate, label = {}, {}
for b in runs["benchmarks"]:
    if b.get("aggregate_name") == "median" and "GFLOPs" in b:
        rate[b["run_name"]] = b["GFLOPs"]
        label[b["run_name"]] = b.get("label", "")
ctx = runs["context"]
caches = ", ".join(f"L{c['level']} {c['type'].lower()} {c['size'] // 1024} KiB" for c in ctx["caches"])
cpu = {}
for line in open("/proc/cpuinfo"):
    key, _, value = line.partition(":")
    cpu.setdefault(key.strip(), value.strip())
flags = set(cpu.get("flags", "").split())
features = " ".join(f for f in ("avx2", "fma", "avx512f") if f in flags) or "none of avx2, fma, avx512f"
mul_add, fma = rate.get("ceiling/mul_add"), rate.get("ceiling/fma")
regs = label.get("ceiling/mul_add", "?")


def of(x, ceiling):
    return f"{x / ceiling:13.0%}" if ceiling else f"{'-':>13}"


out = [
    "# Chapter 42 benchmark: the kernel against the ceiling of its instructions, beside OpenBLAS",
    "# (regenerate: tools/run-gemm-bench.sh build/bench; written by that script, shown by",
    "# chapters/42-making-it-fast.md, never typed by hand)",
    "# region: gemm-results",
    f"# date: {datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds')}",
    f"# processor: {cpu.get('model name', '?')} (family {cpu.get('cpu family', '?')}, "
    f"model {cpu.get('model', '?')}); {features}",
    f"# machine: {ctx['num_cpus']} CPUs at {ctx['mhz_per_cpu']} MHz; {caches}; "
    f"load average {', '.join(f'{x:.2f}' for x in ctx.get('load_avg', []))}",
    f"# build: {os.path.basename(os.path.normpath(build_dir))} preset (-O2, no -march=native, "
    "-ffp-contract=off); one thread; medians of 5 interleaved repetitions of CPU time",
    f"# openblas: {label.get('matmul/openblas/1024', '?')}",
    "",
]
if mul_add:
    out.append(f"ceiling, vmulpd+vaddpd (12 chains, {regs}):  {mul_add:7.2f} GFLOP/s")
else:
    out.append("ceiling, vmulpd+vaddpd: not measured (the kernel path has no ceiling loop here)")
if fma:
    ratio = f"   ({fma / mul_add:.2f}x the above)" if mul_add else ""
    out.append(f"ceiling, vfmadd231pd  (12 chains, {label.get('ceiling/fma', '?')}):  "
               f"{fma:7.2f} GFLOP/s{ratio}")
else:
    out.append("ceiling, vfmadd231pd: not measured (no FMA ceiling for this path or processor)")
out += [
    "",
    "| n    | ours GFLOP/s | of its ceiling | OpenBLAS GFLOP/s | of its ceiling | ours/OpenBLAS time |",
    "|------|--------------|----------------|------------------|----------------|--------------------|",
]
for n in (1024, 2048):
    ours, blas = rate[f"matmul/ours/{n}"], rate[f"matmul/openblas/{n}"]
    out.append(f"| {n} | {ours:12.2f} | {of(ours, mul_add)} | {blas:16.2f} | "
               f"{of(blas, fma)} | {blas / ours:18.2f} |")
teach = rate["matmul/teaching/1024"]
out += ["",
        f"teaching loop at n = 1024: {teach:.2f} GFLOP/s; the blocked kernel is "
        f"{rate['matmul/ours/1024'] / teach:.1f}x faster, with the same bits",
        f"kernel path: {label.get('matmul/ours/1024', '?')}",
        "# endregion: gemm-results"]
text = "\n".join(out) + "\n"
tmp = target + ".tmp"
open(tmp, "w").write(text)
os.replace(tmp, target)
print(text)
PY
