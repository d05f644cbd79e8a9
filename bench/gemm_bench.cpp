// Chapter 42's benchmark: the ceiling of the instructions the matmul kernel uses,
// measured on one core by a loop that touches no memory, then the library's matmul and
// OpenBLAS's dgemm (linked into this program only) at n = 1024 and 2048, one thread,
// same run. The ceilings are of the vector width of the kernel's path on this processor
// (matmul_defaults(), chosen at run time): ymm registers on the AVX2 path, zmm on
// AVX-512; the label of each ceiling names its registers.
//   ceiling/mul_add      12 independent chains of vmulpd then vaddpd: the kernel's
//                        instructions (2·w flops per pair, w doubles per register)
//   ceiling/fma          12 chains of vfmadd231pd (OpenBLAS's instruction, 2·w flops)
//   matmul/ours/N        llmfs::tensor::matmul, its default path, one thread
//   matmul/teaching/1024 the chapter-11 loop, for scale
//   matmul/openblas/N    cblas_dgemm, openblas_set_num_threads(1)
// The GFLOPs counter is CPU-time based; tools/run-gemm-bench.sh turns it into
// fractions.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <llmfs/tensor/matmul.hpp>

#include "random.hpp"

#include <cblas.h>

namespace {

using llmfs::tensor::MatmulOptions;
using llmfs::tensor::MatmulPath;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

constexpr int kChains = 12;  // independent sums: more than latency × adds per cycle

#define LLMFS_YMM_REGS                                                            \
  "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", \
      "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15"
#define LLMFS_ZMM_REGS                                                                 \
  "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",      \
      "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", \
      "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm30", "xmm31"

// region: ceiling-loop
// `iterations` rounds of 12 independent chains acc_c ← acc_c + x·y on ymm registers (4
// doubles): accumulators ymm0–11, x and y in ymm14 and ymm15. Each product goes to
// ymm12 or ymm13, which the add of the same chain reads (the processor renames them, so
// no chain waits for another's multiply); each sum waits only for its own previous sum.
// Nothing is loaded or stored inside the loop.
[[gnu::target("avx2"), gnu::noinline]] void mul_add_ymm(std::int64_t iterations) {
  asm volatile(
      "vxorpd %%ymm14, %%ymm14, %%ymm14\n\tvxorpd %%ymm15, %%ymm15, %%ymm15\n\t"
      "1:\n\t"
      "vmulpd %%ymm14, %%ymm15, %%ymm12\n\tvaddpd %%ymm12, %%ymm0, %%ymm0\n\t"
      "vmulpd %%ymm14, %%ymm15, %%ymm13\n\tvaddpd %%ymm13, %%ymm1, %%ymm1\n\t"
      "vmulpd %%ymm14, %%ymm15, %%ymm12\n\tvaddpd %%ymm12, %%ymm2, %%ymm2\n\t"
      "vmulpd %%ymm14, %%ymm15, %%ymm13\n\tvaddpd %%ymm13, %%ymm3, %%ymm3\n\t"
      "vmulpd %%ymm14, %%ymm15, %%ymm12\n\tvaddpd %%ymm12, %%ymm4, %%ymm4\n\t"
      "vmulpd %%ymm14, %%ymm15, %%ymm13\n\tvaddpd %%ymm13, %%ymm5, %%ymm5\n\t"
      "vmulpd %%ymm14, %%ymm15, %%ymm12\n\tvaddpd %%ymm12, %%ymm6, %%ymm6\n\t"
      "vmulpd %%ymm14, %%ymm15, %%ymm13\n\tvaddpd %%ymm13, %%ymm7, %%ymm7\n\t"
      "vmulpd %%ymm14, %%ymm15, %%ymm12\n\tvaddpd %%ymm12, %%ymm8, %%ymm8\n\t"
      "vmulpd %%ymm14, %%ymm15, %%ymm13\n\tvaddpd %%ymm13, %%ymm9, %%ymm9\n\t"
      "vmulpd %%ymm14, %%ymm15, %%ymm12\n\tvaddpd %%ymm12, %%ymm10, %%ymm10\n\t"
      "vmulpd %%ymm14, %%ymm15, %%ymm13\n\tvaddpd %%ymm13, %%ymm11, %%ymm11\n\t"
      "dec %0\n\tjnz 1b\n\tvzeroupper\n\t"
      : "+r"(iterations)
      :
      : "cc", LLMFS_YMM_REGS);
}
// endregion: ceiling-loop

// The same with one fused multiply-add per chain (OpenBLAS's kernel instruction).
[[gnu::target("avx2,fma"), gnu::noinline]] void fma_ymm(std::int64_t iterations) {
  asm volatile(
      "vxorpd %%ymm14, %%ymm14, %%ymm14\n\tvxorpd %%ymm15, %%ymm15, %%ymm15\n\t"
      "1:\n\t"
      "vfmadd231pd %%ymm14, %%ymm15, %%ymm0\n\tvfmadd231pd %%ymm14, %%ymm15, %%ymm1\n\t"
      "vfmadd231pd %%ymm14, %%ymm15, %%ymm2\n\tvfmadd231pd %%ymm14, %%ymm15, %%ymm3\n\t"
      "vfmadd231pd %%ymm14, %%ymm15, %%ymm4\n\tvfmadd231pd %%ymm14, %%ymm15, %%ymm5\n\t"
      "vfmadd231pd %%ymm14, %%ymm15, %%ymm6\n\tvfmadd231pd %%ymm14, %%ymm15, %%ymm7\n\t"
      "vfmadd231pd %%ymm14, %%ymm15, %%ymm8\n\tvfmadd231pd %%ymm14, %%ymm15, %%ymm9\n\t"
      "vfmadd231pd %%ymm14, %%ymm15, %%ymm10\n\tvfmadd231pd %%ymm14, %%ymm15, "
      "%%ymm11\n\t"
      "dec %0\n\tjnz 1b\n\tvzeroupper\n\t"
      : "+r"(iterations)
      :
      : "cc", LLMFS_YMM_REGS);
}

// The zmm ceilings of the AVX-512 path: 12 chains, products in zmm12–23, x and y in
// zmm30 and zmm31.
[[gnu::target("avx512f"), gnu::noinline]] void mul_add_zmm(std::int64_t iterations) {
  asm volatile(
      "vxorpd %%zmm30, %%zmm30, %%zmm30\n\tvxorpd %%zmm31, %%zmm31, %%zmm31\n\t"
      "1:\n\t"
      "vmulpd %%zmm30, %%zmm31, %%zmm12\n\tvmulpd %%zmm30, %%zmm31, %%zmm13\n\t"
      "vmulpd %%zmm30, %%zmm31, %%zmm14\n\tvmulpd %%zmm30, %%zmm31, %%zmm15\n\t"
      "vmulpd %%zmm30, %%zmm31, %%zmm16\n\tvmulpd %%zmm30, %%zmm31, %%zmm17\n\t"
      "vmulpd %%zmm30, %%zmm31, %%zmm18\n\tvmulpd %%zmm30, %%zmm31, %%zmm19\n\t"
      "vmulpd %%zmm30, %%zmm31, %%zmm20\n\tvmulpd %%zmm30, %%zmm31, %%zmm21\n\t"
      "vmulpd %%zmm30, %%zmm31, %%zmm22\n\tvmulpd %%zmm30, %%zmm31, %%zmm23\n\t"
      "vaddpd %%zmm12, %%zmm0, %%zmm0\n\tvaddpd %%zmm13, %%zmm1, %%zmm1\n\t"
      "vaddpd %%zmm14, %%zmm2, %%zmm2\n\tvaddpd %%zmm15, %%zmm3, %%zmm3\n\t"
      "vaddpd %%zmm16, %%zmm4, %%zmm4\n\tvaddpd %%zmm17, %%zmm5, %%zmm5\n\t"
      "vaddpd %%zmm18, %%zmm6, %%zmm6\n\tvaddpd %%zmm19, %%zmm7, %%zmm7\n\t"
      "vaddpd %%zmm20, %%zmm8, %%zmm8\n\tvaddpd %%zmm21, %%zmm9, %%zmm9\n\t"
      "vaddpd %%zmm22, %%zmm10, %%zmm10\n\tvaddpd %%zmm23, %%zmm11, %%zmm11\n\t"
      "dec %0\n\tjnz 1b\n\tvzeroupper\n\t"
      : "+r"(iterations)
      :
      : "cc", LLMFS_ZMM_REGS);
}

[[gnu::target("avx512f"), gnu::noinline]] void fma_zmm(std::int64_t iterations) {
  asm volatile(
      "vxorpd %%zmm30, %%zmm30, %%zmm30\n\tvxorpd %%zmm31, %%zmm31, %%zmm31\n\t"
      "1:\n\t"
      "vfmadd231pd %%zmm30, %%zmm31, %%zmm0\n\tvfmadd231pd %%zmm30, %%zmm31, %%zmm1\n\t"
      "vfmadd231pd %%zmm30, %%zmm31, %%zmm2\n\tvfmadd231pd %%zmm30, %%zmm31, %%zmm3\n\t"
      "vfmadd231pd %%zmm30, %%zmm31, %%zmm4\n\tvfmadd231pd %%zmm30, %%zmm31, %%zmm5\n\t"
      "vfmadd231pd %%zmm30, %%zmm31, %%zmm6\n\tvfmadd231pd %%zmm30, %%zmm31, %%zmm7\n\t"
      "vfmadd231pd %%zmm30, %%zmm31, %%zmm8\n\tvfmadd231pd %%zmm30, %%zmm31, %%zmm9\n\t"
      "vfmadd231pd %%zmm30, %%zmm31, %%zmm10\n\tvfmadd231pd %%zmm30, %%zmm31, "
      "%%zmm11\n\t"
      "dec %0\n\tjnz 1b\n\tvzeroupper\n\t"
      : "+r"(iterations)
      :
      : "cc", LLMFS_ZMM_REGS);
}

// One ceiling loop: its registers' name, doubles per register, the loop, and the
// processor features it needs.
struct Ceiling {
  const char* registers;
  double lanes;
  void (*loop)(std::int64_t);
  bool supported;
};

// The ceilings of the kernel path `path` runs on this processor, mul+add then FMA; none
// for the portable path (its SSE2 kernel is not measured).
std::vector<std::pair<std::string, Ceiling>> ceilings(MatmulPath path) {
  const bool fma = __builtin_cpu_supports("fma");
  if (path == MatmulPath::avx512f)
    return {{"ceiling/mul_add", {"zmm", 8, mul_add_zmm, true}},
            {"ceiling/fma", {"zmm", 8, fma_zmm, true}}};
  if (path == MatmulPath::avx2)
    return {{"ceiling/mul_add", {"ymm", 4, mul_add_ymm, true}},
            {"ceiling/fma", {"ymm", 4, fma_ymm, fma}}};
  return {};
}

void run_ceiling(benchmark::State& state, Ceiling ceiling) {
  if (!ceiling.supported) {
    state.SkipWithError("this processor lacks the instructions of this loop");
    return;
  }
  constexpr std::int64_t kIterations = 1 << 22;
  state.SetLabel(ceiling.registers);
  for (auto _ : state)
    ceiling.loop(kIterations);
  state.counters["GFLOPs"] =
      benchmark::Counter(double(kIterations) * kChains * 2.0 * ceiling.lanes * 1e-9,
                         benchmark::Counter::kIsIterationInvariantRate);
}

void run_ours(benchmark::State& state, std::size_t n, MatmulPath path) {
  const Tensor a = llmfs::bench::uniform_tensor(Shape{n, n}, 1);
  const Tensor b = llmfs::bench::uniform_tensor(Shape{n, n}, 2);
  const MatmulOptions options{path, 1};
  state.SetLabel(std::string(llmfs::tensor::matmul_path_name(path)));
  for (auto _ : state) {
    auto c = llmfs::tensor::matmul(a, b, options);
    benchmark::DoNotOptimize(c->values().data());
  }
  state.counters["GFLOPs"] =
      benchmark::Counter(2.0 * double(n) * double(n) * double(n) * 1e-9,
                         benchmark::Counter::kIsIterationInvariantRate);
}

void run_openblas(benchmark::State& state, std::size_t n) {
  openblas_set_num_threads(1);
  const auto a = llmfs::bench::uniform_values(n * n, 1);
  const auto b = llmfs::bench::uniform_values(n * n, 2);
  std::vector<double> c(n * n);
  const int ni = static_cast<int>(n);
  state.SetLabel(
      fmt::format("{} ({})", openblas_get_corename(), openblas_get_config()));
  for (auto _ : state) {
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, ni, ni, ni, 1.0, a.data(),
                ni, b.data(), ni, 0.0, c.data(), ni);
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["GFLOPs"] =
      benchmark::Counter(2.0 * double(n) * double(n) * double(n) * 1e-9,
                         benchmark::Counter::kIsIterationInvariantRate);
}

[[maybe_unused]] const bool registered = [] {
  const MatmulPath fast = llmfs::tensor::matmul_defaults().path;
  for (const auto& [name, ceiling] : ceilings(fast))
    benchmark::RegisterBenchmark(name.c_str(), run_ceiling, ceiling);
  for (const std::size_t n : {1024, 2048}) {
    benchmark::RegisterBenchmark(fmt::format("matmul/ours/{}", n).c_str(), run_ours, n,
                                 fast)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(fmt::format("matmul/openblas/{}", n).c_str(),
                                 run_openblas, n)
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::RegisterBenchmark("matmul/teaching/1024", run_ours, 1024,
                               MatmulPath::teaching)
      ->Unit(benchmark::kMillisecond);
  return true;
}();

}  // namespace
