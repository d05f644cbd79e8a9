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

# bench_openblas_env [LIBRARY]: decides how OpenBLAS picks its kernels on this processor, in
# one place for every runner. Debian 12's OpenBLAS 0.3.21 is built with DYNAMIC_ARCH and
# chooses a core from the processor's CPUID family and model; on an AMD Zen 3 it says "Zen"
# (AVX2 and FMA kernels), but it does not know the model of some AVX-512 Xeons and may
# pick a core without AVX-512. So the choice is forced to SkylakeX only where the processor has avx512f
# and OpenBLAS's own detection named no AVX-512 core; anywhere else its detection stands (an
# OPENBLAS_CORETYPE already in the environment is kept). Sets openblas_env, an array of
# VAR=VALUE settings for `env "${openblas_env[@]}" …` (empty when nothing is forced), and
# openblas_core, the core OpenBLAS will use; prints both. LIBRARY defaults to libopenblas.so.0
# in LLMFS_OPENBLAS_DIR (default: Debian's libopenblas0-pthread folder); if it is missing,
# openblas_core is "not installed".
bench_openblas_env() {
  local dir=${LLMFS_OPENBLAS_DIR:-/usr/lib/x86_64-linux-gnu/openblas-pthread}
  local lib=${1:-$dir/libopenblas.so.0} detected
  openblas_env=()
  if [[ ! -e "$lib" ]]; then
    openblas_core="not installed"
    echo "openblas: $lib not found" >&2
    return 0
  fi
  if [[ -n "${OPENBLAS_CORETYPE:-}" ]]; then
    openblas_env=("OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE")
  fi
  detected=$(env -u OPENBLAS_CORETYPE /usr/bin/python3 -c '
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
lib.openblas_get_corename.restype = ctypes.c_char_p
print(lib.openblas_get_corename().decode())' "$lib")
  if [[ ${#openblas_env[@]} -eq 0 ]] && grep -qw avx512f /proc/cpuinfo; then
    case "$detected" in
      SkylakeX | Cooperlake | CooperLake | SapphireRapids) ;;
      *) openblas_env=("OPENBLAS_CORETYPE=SkylakeX") ;;
    esac
  fi
  openblas_core=$detected
  if [[ ${#openblas_env[@]} -gt 0 ]]; then
    openblas_core=${openblas_env[0]#OPENBLAS_CORETYPE=}
  fi
  echo "openblas: $lib detects core $detected; using $openblas_core" \
    "(${openblas_env[*]:-OPENBLAS_CORETYPE unset})" >&2
}
