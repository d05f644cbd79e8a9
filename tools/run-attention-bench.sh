#!/usr/bin/env bash
# Usage: tools/run-attention-bench.sh BUILD_DIR      (`make bench-attention` builds and runs it)
# Chapter 41's benchmark, one run on one machine, each case in a fresh process:
#   - memory: multi-head attention (B = 1, h = 8, d_model = 512, RoPE) forward + backward,
#     the stored-weights kernel and the streaming kernel at T = 512, 1024, 2048, 4096, and the
#     streaming kernel alone at T = 8192 and 16384; the process's peak resident set (VmHWM)
#     and its resident set before the layer existed (VmRSS), from /proc/self/status;
#   - time: the per-head kernels alone at T = 2048 (Q, K, V [1, 8, T, 64], forward + backward,
#     REPEATS runs, the median kept), and the same computation written by hand in PyTorch
#     float64 on the same number of threads, with the BLAS libblas.so.3 points to and, if the
#     Debian package libopenblas0-pthread is installed, again with OpenBLAS
#     (its core chosen by bench_openblas_env in tools/bench-common.sh; LLMFS_OPENBLAS_DIR
#     overrides its folder).
# Writes bench/results/ch41-attention.txt (between region markers; chapter 41 shows it) and
# bench/results/ch41-attention.json. A measurement, never a golden.
set -euo pipefail

source "$(dirname "$0")/bench-common.sh"
bench_setup run-attention-bench llmfs_attention_bench "$@"  # build_dir, root, bench, work
threads=${LLMFS_MATMUL_THREADS:-2}
block=${LLMFS_ATTENTION_BLOCK:-256}
repeats=${LLMFS_ATTENTION_REPEATS:-3}
export LLMFS_MATMUL_THREADS=$threads
: > "$work/runs.jsonl"
for tokens in 512 1024 2048 4096; do
  for kernel in stored streaming; do
    echo "== memory $kernel T=$tokens" >&2
    "$bench" memory "$kernel" "$tokens" "$block" | tee -a "$work/runs.jsonl"
  done
done
for tokens in 8192 16384; do
  echo "== memory streaming T=$tokens" >&2
  "$bench" memory streaming "$tokens" "$block" | tee -a "$work/runs.jsonl"
done
for kernel in stored streaming; do
  echo "== time $kernel T=2048" >&2
  "$bench" time "$kernel" 2048 "$block" "$repeats" | tee -a "$work/runs.jsonl"
done
echo "== time PyTorch float64 T=2048, the system BLAS" >&2
/usr/bin/python3 "$root/bench/attention_torch.py" 2048 "$threads" "$repeats" torch | tee -a "$work/runs.jsonl"
openblas=${LLMFS_OPENBLAS_DIR:-/usr/lib/x86_64-linux-gnu/openblas-pthread}
if [[ -e "$openblas/libblas.so.3" ]]; then
  bench_openblas_env "$openblas/libopenblas.so.0"
  echo "== time PyTorch float64 T=2048, OpenBLAS from $openblas, core $openblas_core" >&2
  env "${openblas_env[@]}" LD_LIBRARY_PATH="$openblas" \
    /usr/bin/python3 "$root/bench/attention_torch.py" 2048 "$threads" "$repeats" torch_openblas \
    | tee -a "$work/runs.jsonl"
fi
mkdir -p "$root/bench/results"
/usr/bin/python3 "$root/tools/attention_bench_table.py" "$work/runs.jsonl" \
  "$root/bench/results/ch41-attention"
