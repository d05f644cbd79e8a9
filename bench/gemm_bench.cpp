// Chapter 42's benchmark: the ceiling of the instructions the matmul kernel uses,
// measured on one core by a loop that touches no memory, then the library's matmul and
// OpenBLAS's dgemm (linked into this program only) at n = 1024 and 2048, one thread,
// same run.
//   ceiling/mul_add_zmm  12 independent chains of vmulpd then vaddpd on 8-double zmm
//                        registers: the kernel's instructions (16 flops per pair)
//   ceiling/fma_zmm      12 chains of vfmadd231pd (OpenBLAS's instruction, 16 flops
//   each) matmul/ours/N        llmfs::tensor::matmul, its default path, one thread
//   matmul/teaching/1024 the chapter-11 loop, for scale
//   matmul/openblas/N    cblas_dgemm, openblas_set_num_threads(1)
// The GFLOPs counter is CPU-time based; tools/run-gemm-bench.sh turns it into
// fractions.
#include <cstdint>

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

constexpr int kChains =
    12;  // 12 adds in flight cover a 4-cycle add latency at 2 per cycle

#define LLMFS_CHAIN_REGS                                                               \
  "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",      \
      "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15", "xmm16", "xmm17", "xmm18", \
      "xmm19", "xmm20", "xmm21", "xmm22", "xmm23", "xmm30", "xmm31"

// region: ceiling-loop
// `iterations` rounds of 12 independent chains acc_c ← acc_c + x·y on zmm registers:
// the product goes to its own register t_c (no chain waits for a multiply), the sums
// wait only for their own previous sum. Nothing is loaded or stored inside the loop.
[[gnu::target("avx512f"), gnu::noinline]] void mul_add_loop(std::int64_t iterations) {
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
      : "cc", LLMFS_CHAIN_REGS);
}
// endregion: ceiling-loop

// The same with one fused multiply-add per chain (OpenBLAS's kernel instruction).
[[gnu::target("avx512f"), gnu::noinline]] void fma_loop(std::int64_t iterations) {
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
      : "cc", LLMFS_CHAIN_REGS);
}

void run_ceiling(benchmark::State& state, void (*loop)(std::int64_t)) {
  if (!__builtin_cpu_supports("avx512f")) {
    state.SkipWithError("no AVX-512F on this processor");
    return;
  }
  constexpr std::int64_t kIterations = 1 << 22;
  for (auto _ : state)
    loop(kIterations);
  state.counters["GFLOPs"] =
      benchmark::Counter(double(kIterations) * kChains * 16 * 1e-9,
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
  benchmark::RegisterBenchmark("ceiling/mul_add_zmm", run_ceiling, mul_add_loop);
  benchmark::RegisterBenchmark("ceiling/fma_zmm", run_ceiling, fma_loop);
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
