#!/usr/bin/env bash
# Usage: tools/run-mha-bench.sh BUILD_DIR [OUT_FILE]
# Chapter 42's attention comparison, one run on one machine: multi-head attention forward and
# forward+backward (bench/multi_head_bench.cpp) at (B,T,d_model,h) = (4,128,128,4) and
# (8,256,256,8), the library on one thread (LLMFS_MATMUL_THREADS=1), beside the same
# computation in PyTorch float64 on one thread (bench/torch_reference.py) with OpenBLAS:
# Debian's torch calls libblas.so.3, and LD_LIBRARY_PATH puts OpenBLAS's libblas.so.3
# (libopenblas0-pthread) first for that process only (the system's alternative is left as
# it is). The BLAS torch really loaded is read from /proc/self/maps and printed.
# Both processes run with the same glibc allocator setting (LLMFS_MHA_MALLOC_TUNABLES,
# default: never mmap a block, keep up to 4 GiB of freed heap): a [B,h,T,T] tensor at
# (8,256,256,8) is 32 MiB, past the largest mmap threshold glibc allows, so without it
# every such tensor is fresh memory that the kernel maps and zeroes page by page, on both
# sides. The setting moves no bit of any result; LLMFS_MHA_MALLOC_TUNABLES= turns it off.
# Our rows: mha/ the default layer (stored weights), mha_fused/ chapter 42's fused kernel,
# mha_streaming64/ chapter 41's streaming kernel at 64 keys a block; each is paired with
# PyTorch's row of the same case (torch runs the stored-weights layer: the same function).
# Medians of CPU time. Prints and writes OUT_FILE (default bench/results/ch42-attention.txt;
# region markers; a measurement, never a golden).
set -euo pipefail

source "$(dirname "$0")/bench-common.sh"
bench_setup run-mha-bench llmfs_bench "$1"  # build_dir, root, bench, work
out=${2:-$root/bench/results/ch42-attention.txt}
min_seconds=${LLMFS_BENCH_MIN_SECONDS:-0.5}
openblas=${LLMFS_OPENBLAS_DIR:-/usr/lib/x86_64-linux-gnu/openblas-pthread}
tunables=${LLMFS_MHA_MALLOC_TUNABLES-glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=4294967296}
[[ -e "$openblas/libblas.so.3" ]] || { echo "run-mha-bench: $openblas/libblas.so.3 not found (install libopenblas0-pthread)" >&2; exit 2; }
echo "== llmfs, one thread"
GLIBC_TUNABLES="$tunables" LLMFS_MATMUL_THREADS=1 "$bench" --benchmark_filter='^mha(_fused|_streaming64)?/' --benchmark_min_time="$min_seconds" \
  --benchmark_repetitions=3 --benchmark_report_aggregates_only=true --benchmark_format=console \
  --benchmark_out="$work/ours.json" --benchmark_out_format=json
bench_openblas_env "$openblas/libopenblas.so.0"
echo "== PyTorch float64, one thread, OpenBLAS from $openblas (core $openblas_core)"
env "${openblas_env[@]}" GLIBC_TUNABLES="$tunables" LD_LIBRARY_PATH="$openblas" OPENBLAS_NUM_THREADS=1 \
  LLMFS_BENCH_MIN_SECONDS="$min_seconds" /usr/bin/python3 "$root/bench/torch_reference.py" \
  --attention > "$work/torch.json"
mkdir -p "$root/bench/results"
/usr/bin/python3 - "$work" "$out" "$build_dir" "$tunables" <<'PY'
import datetime, json, os, re, sys

work, target, build_dir, tunables = sys.argv[1:5]
ours = json.load(open(f"{work}/ours.json"))
torch = json.load(open(f"{work}/torch.json"))
to_ms = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
mine = {b["run_name"]: b["cpu_time"] * to_ms[b["time_unit"]]
        for b in ours["benchmarks"] if b.get("aggregate_name") == "median"}
env, ctx = torch["env"], ours["context"]
out = [
    "# Chapter 42 benchmark: multi-head attention beside PyTorch float64 on OpenBLAS, one thread",
    "# (regenerate: tools/run-mha-bench.sh build/bench; written by that script, shown by",
    "# chapters/42-making-it-fast.md, never typed by hand)",
    f"# region: {os.path.basename(target).removesuffix('.txt')}",
    f"# date: {datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds')}",
    f"# machine: {ctx['num_cpus']} CPUs at {ctx['mhz_per_cpu']} MHz; load average "
    f"{', '.join(f'{x:.2f}' for x in ctx.get('load_avg', []))}",
    f"# torch {env['torch']}, threads={env['threads']}, BLAS_INFO={env['blas_info']}, "
    f"loaded: {', '.join(env['blas_loaded']) or '(none found)'}; "
    f"OPENBLAS_CORETYPE {env.get('OPENBLAS_CORETYPE', '(unset)')}",
    f"# ours: {os.path.basename(os.path.normpath(build_dir))} preset, LLMFS_MATMUL_THREADS=1; CPU time, medians",
    f"# both: GLIBC_TUNABLES={tunables or '(unset)'}",
    "",
    "| case (B,T,d_model,h)                             | ours ms | torch ms | ours/torch |",
    "|--------------------------------------------------|---------|----------|------------|",
]
for name, t in sorted(mine.items(), key=lambda kv: (kv[0].split("/", 1)[1], kv[0])):
    case = re.sub(r"^mha_[a-z0-9]+/", "mha/", name)  # torch's row of the same case
    if case in torch["cases"]:
        ref = torch["cases"][case]["cpu_ms"]
        out.append(f"| {name:<48} | {t:7.2f} | {ref:8.2f} | {t / ref:10.2f} |")
out.append(f"# endregion: {os.path.basename(target).removesuffix('.txt')}")
text = "\n".join(out) + "\n"
open(target + ".tmp", "w").write(text)
os.replace(target + ".tmp", target)
print(text)
PY
