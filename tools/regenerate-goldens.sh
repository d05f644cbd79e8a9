#!/usr/bin/env bash
# regenerate-goldens.sh BINDIR
# Rewrites every snippets/chNN-slug/expected.txt (demo stdout) and trace.txt (demo --trace)
# from the built demos in BINDIR, so a change shows as a git diff.
set -euo pipefail
bindir=$1
root=$(cd "$(dirname "$0")/.." && pwd)
for dir in "$root"/snippets/ch*/; do
  name=$(basename "$dir")
  exe="$bindir/$name"
  [[ -x "$exe" ]] || { echo "traces: $exe is not built" >&2; exit 1; }
  "$exe" > "$dir/expected.txt"
  "$exe" --trace > "$dir/trace.txt"
  echo "traces: $name: expected.txt $(wc -l < "$dir/expected.txt") lines, trace.txt $(wc -l < "$dir/trace.txt") records"
done
git -C "$root" --no-pager diff --stat -- snippets || true
