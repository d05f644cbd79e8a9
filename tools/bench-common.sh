# Sourced by the benchmark runners (tools/run-*bench.sh), after their `set -euo pipefail`:
#
#   source "$(dirname "$0")/bench-common.sh"
#   bench_setup run-bpe-bench llmfs_bpe_bench "$@"
#
# bench_setup NAME TARGET BUILD_DIR: the runner's one argument is the build folder (usage
# message and exit otherwise); sets build_dir, root (the repository), bench (the benchmark
# binary BUILD_DIR/bin/TARGET: exit 2 naming the build command if it is not built) and work
# (a temporary folder, removed when the runner exits).
bench_setup() {
  local name=$1 target=$2
  shift 2
  build_dir=${1:?usage: tools/$name.sh BUILD_DIR}
  root=$(cd "$(dirname "$0")/.." && pwd)
  bench="$build_dir/bin/$target"
  if [[ ! -x "$bench" ]]; then
    echo "$name: $bench not found; build it with: cmake --build $build_dir --target $target" >&2
    exit 2
  fi
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
}
