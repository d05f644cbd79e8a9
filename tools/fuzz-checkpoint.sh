#!/usr/bin/env bash
# Chapter 35: the checkpoint loader (src/llmfs/training/safetensors.cpp) under libFuzzer
# with AddressSanitizer + UndefinedBehaviorSanitizer.
#
#   tools/fuzz-checkpoint.sh build DIR          compile DIR/safetensors_fuzz
#   tools/fuzz-checkpoint.sh run DIR ARGS...    fuzz from the committed seed corpus
#                                               (tests/fuzz/corpus, copied: it is not changed)
#                                               with libFuzzer's ARGS, e.g. -runs=1000000
#   tools/fuzz-checkpoint.sh bounded DIR SECONDS  the ctest fuzz.checkpoint_bounded: build if
#                                               needed, fuzz SECONDS, fail on any crash
#
# The compiler is clang++-16 with libc++ (GCC 12 has no libFuzzer; clang's own libstdc++
# support lacks <expected>); fmt is used header-only, because Debian's libfmt is built for
# libstdc++. libFuzzer's runtime in Debian is itself built against libstdc++, so the link
# adds libstdc++ after it: the two libraries' symbols live in different namespaces
# (std::__1 and std::__cxx11) and do not meet. Packages: clang-16 libc++-16-dev
# libc++abi-16-dev libclang-rt-16-dev (tools/deps.txt; `make configure` installs them).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cxx=${LLMFS_FUZZ_CXX:-clang++-16}  # the override exists to test the missing-compiler message

need_compiler() {
  if ! command -v "$cxx" > /dev/null; then
    echo "fuzz-checkpoint: $cxx not found: install clang-16 libc++-16-dev libc++abi-16-dev libclang-rt-16-dev (listed in tools/deps.txt; 'make configure' installs them)" >&2
    exit 1
  fi
  runtime="$($cxx --print-runtime-dir)/libclang_rt.fuzzer-x86_64.a"
  if [[ ! -f "$runtime" ]]; then
    echo "fuzz-checkpoint: libFuzzer runtime $runtime missing: install libclang-rt-16-dev" >&2
    exit 1
  fi
}

build() {
  local out=$1
  need_compiler
  mkdir -p "$out"
  local sources=(
    "$here/tests/fuzz/safetensors_fuzz.cpp"
    "$here/src/llmfs/training/safetensors.cpp"
    "$here/src/llmfs/core/atomic_file.cpp"
    "$here/src/llmfs/core/read_file.cpp"
    "$here/src/llmfs/core/file_error.cpp"
  )
  local flags=(-std=c++2b -stdlib=libc++ -DFMT_HEADER_ONLY -I "$here/src" -O1 -g
               -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
               -fno-omit-frame-pointer -ffp-contract=off -Wall -Wextra -Werror)
  "$cxx" "${flags[@]}" "${sources[@]}" -fsanitize=address,undefined "$runtime" \
    "$(g++ -print-file-name=libstdc++.so)" -lcrypto -o "$out/safetensors_fuzz.new"
  mv "$out/safetensors_fuzz.new" "$out/safetensors_fuzz"
}

run() {
  local out=$1
  shift
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  cp "$here"/tests/fuzz/corpus/* "$work/"
  # -max_len: the largest seed is under 2 KB; the header-length field reaches past it.
  # A crash leaves its input in DIR (crash-<sha1>); llvm-symbolizer, if any, names the lines.
  if command -v llvm-symbolizer > /dev/null; then
    export ASAN_SYMBOLIZER_PATH=$(command -v llvm-symbolizer)
  fi
  (cd "$work" && "$out/safetensors_fuzz" -max_len=4096 -print_final_stats=1 \
    -artifact_prefix="$out/" "$@" "$work")
}

case "${1:-}" in
  build) build "$2" ;;
  run) run "$2" "${@:3}" ;;
  bounded)
    need_compiler
    [[ -x "$2/safetensors_fuzz" ]] || build "$2"
    run "$2" -max_total_time="$3" ;;
  *) echo "usage: $0 build DIR | run DIR [libFuzzer args] | bounded DIR SECONDS" >&2; exit 2 ;;
esac
