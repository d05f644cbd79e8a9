#!/usr/bin/env bash
# regenerate-goldens.sh BINDIR
# Rewrites every snippets/chNN-slug/expected.txt (demo stdout) and trace.txt (demo --trace)
# from the built demos in BINDIR, so a change shows as a git diff. A golden is replaced
# only when its demo succeeds; a failing demo leaves its goldens untouched and makes the
# whole run fail after every other demo has been regenerated.
set -uo pipefail
bindir=$1
root=$(cd "$(dirname "$0")/.." && pwd)
failed=()
for dir in "$root"/snippets/ch*/; do
  name=$(basename "$dir")
  exe="$bindir/$name"
  if [[ ! -x "$exe" ]]; then
    echo "traces: $exe is not built" >&2
    failed+=("$name"); continue
  fi
  ok=1
  for kind in expected trace; do
    flag=(); [[ $kind == trace ]] && flag=(--trace)
    tmp=$(mktemp)
    if "$exe" "${flag[@]}" > "$tmp"; then
      mv "$tmp" "$dir/$kind.txt"
    else
      rm -f "$tmp"; ok=0
      echo "traces: $name ${flag[*]} failed; $name/$kind.txt left as it was" >&2
    fi
  done
  if [[ $ok == 1 ]]; then
    echo "traces: $name: expected.txt $(wc -l < "$dir/expected.txt") lines, trace.txt $(wc -l < "$dir/trace.txt") records"
  else
    failed+=("$name")
  fi
done
git -C "$root" --no-pager diff --stat -- snippets || true
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "traces: FAILED for ${failed[*]}: fix the demo, then run make traces again" >&2
  exit 1
fi
