#!/usr/bin/env bash
# Usage: tools/train-tokenizer.sh EXE CORPUS [--check]
# Trains the course tokenizer (V = 4,096: 256 bytes, 3,838 merges, BOS, EOS) with Chapter 3's
# trainer on Chapter 2's training partition (tools/corpus-partitions.tsv) and writes
# tools/kjv-4096.merges. EXE is build/<preset>/bin/llmfs-train-tokenizer (built with the demos),
# CORPUS build/<preset>/corpus/kjv.txt. With --check it trains into a temporary file and fails
# unless that file equals the committed one byte for byte (ctest ch04.golden.tokenizer).
set -euo pipefail
exe=${1:?usage: tools/train-tokenizer.sh EXE CORPUS [--check]}
corpus=${2:?usage: tools/train-tokenizer.sh EXE CORPUS [--check]}
root=$(cd "$(dirname "$0")/.." && pwd)
committed="$root/tools/kjv-4096.merges"
manifest="$root/tools/corpus-partitions.tsv"
if [[ "${3:-}" == "--check" ]]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  "$exe" "$corpus" "$manifest" 4096 "$work/kjv-4096.merges" >/dev/null
  if ! cmp -s "$work/kjv-4096.merges" "$committed"; then
    echo "train-tokenizer: a fresh training differs from tools/kjv-4096.merges:"
    diff "$committed" "$work/kjv-4096.merges" | head -20
    echo "If the change is intended, run: tools/train-tokenizer.sh $exe $corpus"
    exit 1
  fi
  echo "train-tokenizer: tools/kjv-4096.merges is what training produces ($(wc -l < "$committed") lines)"
  exit 0
fi
"$exe" "$corpus" "$manifest" 4096 "$committed"
