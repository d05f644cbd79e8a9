#!/usr/bin/env bash
# Usage: tools/profile-attention.sh BUILD_DIR OUT_FILE
# Chapter 42's profile: perf record (cpu-clock sampling with call graphs; this machine's
# virtual CPUs expose no hardware counters, so `perf stat -e instructions` is not supported)
# of multi-head attention forward+backward (bench/multi_head_bench.cpp, one thread) at
# (B,T,d_model,h) = (4,128,128,4) and (8,256,256,8); writes the top entries by self time
# (functions, with the kernel's page-fault handling as its own rows) to OUT_FILE, between
# region markers, for the chapter to show. A measurement, never a golden.
# GLIBC_TUNABLES is LLMFS_MHA_MALLOC_TUNABLES (default: tools/run-mha-bench.sh's allocator
# setting; empty: glibc's defaults), printed in the header.
# LLMFS_PROFILE_COMMIT names the commit BUILD_DIR was built from (default: this tree's HEAD).
# LLMFS_PROFILE_LAYER picks the rows profiled: mha (the default layer, stored weights),
# mha_fused (chapter 42's fused kernel) or mha_streaming64 (chapter 41's); default mha.
set -euo pipefail

source "$(dirname "$0")/bench-common.sh"
bench_setup profile-attention llmfs_bench "$1"  # build_dir, root, bench, work
out=${2:?usage: tools/profile-attention.sh BUILD_DIR OUT_FILE}
command -v perf > /dev/null || { echo "profile-attention: perf not found (Debian: linux-perf)" >&2; exit 2; }
name=$(basename "$out" .txt)
layer=${LLMFS_PROFILE_LAYER:-mha}
tunables=${LLMFS_MHA_MALLOC_TUNABLES-glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=4294967296}
{
  echo "# Chapter 42 profile of multi-head attention forward+backward, one thread"
  echo "# (regenerate: tools/profile-attention.sh $build_dir $out; never typed by hand)"
  echo "# region: $name"
  echo "# commit: ${LLMFS_PROFILE_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}; build: $build_dir"
  echo "# GLIBC_TUNABLES=${tunables:-(unset)}"
  for shape in B4_T128_d128_h4 B8_T256_d256_h8; do
    GLIBC_TUNABLES="$tunables" LLMFS_MATMUL_THREADS=1 perf record -q -F 999 -o "$work/$shape.data" "$bench" \
      --benchmark_filter="^$layer/forward_backward/$shape\$" --benchmark_min_time=1 > /dev/null 2>&1
    echo ""
    echo "## $layer/forward_backward/$shape: share of samples by function (self), top 12"
    perf report -i "$work/$shape.data" --no-children --sort symbol --stdio -g none \
        --percent-limit 1 2> /dev/null |
      grep -E '^ +[0-9]' | awk 'NR <= 12' |
      sed -E 's/^ +([0-9.]+%) +\[(.)\] +/\1  [\2] /; s/\(anonymous namespace\)::/~/g; s/ +$//' |
      cut -c1-110 | sed -E 's/( +-)+ *$//; s/ +$//'
  done
  echo "# endregion: $name"
} > "$out.tmp"
mv "$out.tmp" "$out"
cat "$out"
