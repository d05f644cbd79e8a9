#!/usr/bin/env bash
# Usage: tools/run-train-bench.sh BUILD_DIR [OUT_FILE]
# Chapter 42's training benchmark, one run on one machine: the training step of the run's
# model (snippets/ch42-making-it-fast/train_fast.hpp: V = 4096, d = 128, h = 4, N = 4,
# d_ff = 344, B = 16, T = 128; loss, backward, clipping, AdamW) in the library
# (`ch42-making-it-fast --bench-train`: stored attention weights, and chapter 41's streaming
# kernel) beside the same step in PyTorch float64 and float32 (bench/train_torch.py), every
# side on two threads. The four sides take turns, LLMFS_TRAIN_BENCH_ROUNDS rounds (default
# 3) of LLMFS_TRAIN_BENCH_STEPS steps each (default 6), so that a change in the machine's
# load falls on all of them; the first step of every turn is a warm-up and is not counted.
# Debian's torch calls libblas.so.3: LD_LIBRARY_PATH puts OpenBLAS's (libopenblas0-pthread)
# first for the torch processes only, and the library torch really loaded is printed, with
# its BLAS_INFO. OPENBLAS_CORETYPE and OMP_WAIT_POLICY are passed through as they are set
# (on a loaded machine OMP_WAIT_POLICY=PASSIVE keeps torch's OpenMP threads from spinning).
# Prints and writes OUT_FILE (default bench/results/ch42-train.txt; region markers; a
# measurement, never a golden).
set -euo pipefail

source "$(dirname "$0")/bench-common.sh"
bench_setup run-train-bench ch42-making-it-fast "$1"  # build_dir, root, bench, work
out=${2:-$root/bench/results/ch42-train.txt}
rounds=${LLMFS_TRAIN_BENCH_ROUNDS:-3}
steps=${LLMFS_TRAIN_BENCH_STEPS:-6}
openblas=${LLMFS_OPENBLAS_DIR:-/usr/lib/x86_64-linux-gnu/openblas-pthread}
[[ -e "$openblas/libblas.so.3" ]] || { echo "run-train-bench: $openblas/libblas.so.3 not found (install libopenblas0-pthread)" >&2; exit 2; }
for round in $(seq 1 "$rounds"); do
  echo "== round $round of $rounds: $steps steps each"
  LLMFS_MATMUL_THREADS=2 "$bench" --bench-train --steps "$steps" > "$work/ours-stored-$round.json"
  LLMFS_MATMUL_THREADS=2 "$bench" --bench-train --steps "$steps" --streaming 64 > "$work/ours-streaming-$round.json"
  for dtype in float64 float32; do
    LD_LIBRARY_PATH="$openblas" OPENBLAS_NUM_THREADS=2 /usr/bin/python3 "$root/bench/train_torch.py" \
      --steps "$steps" --dtype "$dtype" --threads 2 > "$work/torch-$dtype-$round.json"
  done
done
mkdir -p "$root/bench/results"
/usr/bin/python3 - "$work" "$out" "$build_dir" "$rounds" "$steps" <<'PY'
import datetime, json, os, sys

work, target, build_dir, rounds, steps = sys.argv[1:6]
sides = [("ours-stored", "ours float64, stored attention"),
         ("ours-streaming", "ours float64, streaming attention"),
         ("torch-float64", "PyTorch float64"), ("torch-float32", "PyTorch float32")]
rate, env = {}, None
for key, _ in sides:
    seconds, tokens = 0.0, 0
    for r in range(1, int(rounds) + 1):
        run = json.load(open(f"{work}/{key}-{r}.json"))
        env = run.get("env", env)
        seconds += sum(run["step_s"][1:])
        tokens += run["tokens_per_step"] * (len(run["step_s"]) - 1)
    rate[key] = tokens / seconds
name = os.path.basename(target).removesuffix(".txt")
out = [
    "# Chapter 42 benchmark: the run's training step beside PyTorch float64 and float32 on OpenBLAS,",
    "# two threads (regenerate: tools/run-train-bench.sh build/release; written by that script,",
    "# shown by chapters/42-making-it-fast.md, never typed by hand)",
    f"# region: {name}",
    f"# date: {datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='seconds')}; "
    f"load average {', '.join(f'{x:.2f}' for x in os.getloadavg())}",
    "# model: V=4096 d=128 h=4 N=4 d_ff=344, 1,315,968 parameters; B=16 T=128 (2,048 tokens a step);",
    "# a step = loss, backward, clipping to norm 1, AdamW",
    f"# torch {env['torch']}, threads={env['threads']}, BLAS_INFO={env['blas_info']}, "
    f"loaded: {', '.join(env['blas_loaded']) or '(none found)'}; "
    f"OPENBLAS_CORETYPE={env['OPENBLAS_CORETYPE']}, "
    f"OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY', '(unset)')}",
    f"# ours: {os.path.basename(os.path.normpath(build_dir))} preset, LLMFS_MATMUL_THREADS=2; "
    f"{rounds} interleaved rounds of {steps} steps, the first of each not counted; wall time",
    "",
    "| side                              | tokens/s | ÷ PyTorch float64 |",
    "|-----------------------------------|----------|-------------------|",
]
for key, label in sides:
    out.append(f"| {label:<33} | {rate[key]:8.0f} | {rate[key] / rate['torch-float64']:17.2f} |")
out.append(f"# endregion: {name}")
text = "\n".join(out) + "\n"
open(target + ".tmp", "w").write(text)
os.replace(target + ".tmp", target)
print(text)
PY
