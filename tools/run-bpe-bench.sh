#!/usr/bin/env bash
# Usage: tools/run-bpe-bench.sh BUILD_DIR
# Chapter 3's benchmark: times train_bpe (V = 4,096, 3,838 merges) and SentencePiece's BPE
# trainer on the same King James text in one run, the naive trainer beside the fast one
# on a slice, and text without spaces (400,000 random bytes a/b: ours as one chunk and as
# 100 lines, SentencePiece on the lines); prints CPU time per run and the ratios, and
# writes them with the run's environment to bench/results/ch03-bpe-train.txt (a
# measurement, never a golden: the chapter quotes it, nothing compares against it).
set -euo pipefail

source "$(dirname "$0")/bench-common.sh"
bench_setup run-bpe-bench llmfs_bpe_bench "$@"  # build_dir, root, bench, work
"$bench" --benchmark_format=console --benchmark_out="$work/bpe.json" \
  --benchmark_out_format=json | tee "$work/console.txt"
mkdir -p "$root/bench/results"
/usr/bin/python3 - "$work/bpe.json" "$work/console.txt" "$root/bench/results/ch03-bpe-train.txt" <<'PY'
import json, sys

runs = json.load(open(sys.argv[1]))
compare = [l.strip() for l in open(sys.argv[2])
           if l.startswith("bpe-compare:") or l.startswith("bpe-nospace:")]
to_s = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
cpu = {b["name"].split("/iterations")[0]: b["cpu_time"] * to_s[b["time_unit"]]
       for b in runs["benchmarks"] if b.get("run_type", "iteration") == "iteration"}
wall = {b["name"].split("/iterations")[0]: b["real_time"] * to_s[b["time_unit"]]
        for b in runs["benchmarks"] if b.get("run_type", "iteration") == "iteration"}
ctx = runs["context"]
out = [
    "# Chapter 3 benchmark: learning BPE merges (regenerate: tools/run-bpe-bench.sh build/default)",
    f"# date: {ctx.get('date')}",
    f"# machine: {ctx.get('num_cpus')} CPUs at {ctx.get('mhz_per_cpu')} MHz, load average "
    + ", ".join(f"{x:.2f}" for x in ctx.get("load_avg", [])),
    "# ours: llmfs train_bpe / train_bpe_naive, one thread, -O2 (RelWithDebInfo)",
    "# theirs: SentencePiece 0.1.97 (Debian libsentencepiece-dev), BPE trainer, num_threads=1",
    "# times are CPU seconds per training run (the machine is shared; wall seconds beside)",
]
out += ["# " + c for c in compare]
out.append("case\tcpu_s\twall_s")
for name in ("bpe/fast/full", "bpe/sentencepiece/full", "bpe/naive/slice", "bpe/fast/slice",
             "bpe/fast/nospace-chunk", "bpe/fast/nospace-lines",
             "bpe/sentencepiece/nospace-lines"):
    out.append(f"{name}\t{cpu[name]:.4f}\t{wall[name]:.4f}")
out.append(f"ratio sentencepiece/fast (full, CPU)\t{cpu['bpe/sentencepiece/full'] / cpu['bpe/fast/full']:.2f}")
out.append(f"ratio naive/fast (slice, CPU)\t{cpu['bpe/naive/slice'] / cpu['bpe/fast/slice']:.1f}")
out.append("ratio sentencepiece/fast (no spaces, 100 lines, CPU)\t"
           f"{cpu['bpe/sentencepiece/nospace-lines'] / cpu['bpe/fast/nospace-lines']:.2f}")
out.append("ratio one chunk/100 lines (ours, no spaces, CPU)\t"
           f"{cpu['bpe/fast/nospace-chunk'] / cpu['bpe/fast/nospace-lines']:.2f}")
text = "\n".join(out) + "\n"
open(sys.argv[3], "w").write(text)
print()
print(text, end="")
PY
