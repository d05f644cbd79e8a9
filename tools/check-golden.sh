#!/usr/bin/env bash
# check-golden.sh GOLDEN PROGRAM [ARGS...]
# Runs PROGRAM and compares its stdout with GOLDEN byte for byte.
# On a mismatch prints a unified diff and the hint to regenerate.
set -uo pipefail
golden=$1; shift
actual=$(mktemp); trap 'rm -f "$actual"' EXIT
if ! "$@" > "$actual"; then
  echo "golden: program failed: $*" >&2
  exit 1
fi
if [[ ! -f "$golden" ]]; then
  echo "golden: $golden is missing; run 'make traces' to write it from the current program, then review it" >&2
  exit 1
fi
if cmp -s "$golden" "$actual"; then
  echo "golden: $(basename "$(dirname "$golden")")/$(basename "$golden") matches ($(wc -l < "$golden") lines)"
  exit 0
fi
echo "golden: $golden differs from the output of: $*" >&2
diff -u --label "$golden (golden)" --label "current output" "$golden" "$actual" >&2
echo "golden: if the change is intended, run 'make traces' and review the diff with git;" >&2
echo "golden: if not, fix the code, or restore an edited golden with 'git checkout -- $golden'." >&2
exit 1
