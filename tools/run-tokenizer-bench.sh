#!/usr/bin/env bash
# Usage: tools/run-tokenizer-bench.sh BUILD_DIR
# Chapter 4's benchmark: the course tokenizer (tools/kjv-4096.merges) encoding the whole King
# James corpus, its naive reference encoder, and SentencePiece's BPE encoder trained in the
# benchmark's setup on the same text with the same vocabulary size (V = 4,096), in one run.
# Prints MB/s (CPU time; the machine may be shared) and the ratio ours / SentencePiece, and
# writes them to bench/results/tokenizer-throughput.txt. A measurement, never a golden.
set -euo pipefail

source "$(dirname "$0")/bench-common.sh"
bench_setup run-tokenizer-bench llmfs_tokenizer_bench "$@"  # build_dir, root, bench, work
out="$root/bench/results/tokenizer-throughput.txt"
"$bench" --benchmark_min_time="${LLMFS_BENCH_MIN_SECONDS:-2}" --benchmark_format=console \
  --benchmark_out="$work/bench.json" --benchmark_out_format=json >&2
mkdir -p "$(dirname "$out")"
/usr/bin/python3 - "$work/bench.json" "$out" <<'PY'
import json, sys

data = json.load(open(sys.argv[1]))
ctx = data["context"]
rows = {}
for b in data["benchmarks"]:
    if b.get("run_type", "iteration") != "iteration":
        continue
    seconds = b["cpu_time"] * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b["time_unit"]]
    mb = b["bytes_per_second"] * seconds / 1e6
    rows[b["name"]] = (mb / seconds, b["tokens"], b["bytes_per_token"], seconds * 1e3)
ours = rows["BM_Ch04LlmfsEncode"][0]
sp = rows["BM_Ch04SentencePieceEncode"][0]
lines = [
    "# tools/run-tokenizer-bench.sh: encoding the whole King James corpus, its 32,291 lines without their newlines",
    f"# machine: {ctx.get('num_cpus')} CPUs at {ctx.get('mhz_per_cpu')} MHz, load average "
    + ", ".join(f"{x:.2f}" for x in ctx.get("load_avg", [])) + "; CPU time, one thread",
    "# encoder\tMB_per_s\tms_per_corpus\ttokens\tbytes_per_token",
]
names = {"BM_Ch04LlmfsEncode": "llmfs heap encoder (tools/kjv-4096.merges, V=4096)",
         "BM_Ch04LlmfsEncodeNaive": "llmfs naive encoder (same merges)",
         "BM_Ch04SentencePieceEncode": "SentencePiece 0.1.97 BPE (trained on the corpus, V=4096)"}
for key, label in names.items():
    speed, tokens, bpt, ms = rows[key]
    lines.append(f"{label}\t{speed:.1f}\t{ms:.0f}\t{tokens:.0f}\t{bpt:.3f}")
lines.append(f"ratio llmfs/SentencePiece (MB/s)\t{ours / sp:.2f}")
text = "\n".join(lines) + "\n"
open(sys.argv[2], "w").write(text)
print(text, end="")
PY
