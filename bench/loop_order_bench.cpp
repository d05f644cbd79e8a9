// Chapter 11: why loop order matters, and how fast the same sums can go. The same
// n×n·n×n product of doubles, the same 2·n³ floating-point operations:
//   i-j-k  c[i,j] = Σ_k a[i,k]·b[k,j]: the inner loop walks b down a column, stride n
//   i-k-j  c[i,:] += a[i,k]·b[k,:]:    the inner loop walks b and c along a row, stride
//   1 the library's matmul on its teaching path (the i-k-j loop, written i-p-j there),
//   and on its fast path (blocked, vectorised with the widest instruction set the
//   processor has, one and two threads): every one of them gives the same bits.
// Run with tools/run-loop-order-bench.sh BUILD_DIR, which adds PyTorch float64 (and
// OpenBLAS) at the same sizes and writes bench/results/ch11-loop-order.txt (a
// measurement, never a golden).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <llmfs/tensor/matmul.hpp>

#include "random.hpp"

namespace {

// The textbook order: one dot product per output element.
void kernel_ijk(const double* a, const double* b, double* c, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      double sum = 0.0;
      for (std::size_t k = 0; k < n; ++k)
        sum += a[i * n + k] * b[k * n + j];
      c[i * n + j] = sum;
    }
}

// The library's order: a row of c accumulates a[i,k] times a row of b.
void kernel_ikj(const double* a, const double* b, double* c, std::size_t n) {
  for (std::size_t x = 0; x < n * n; ++x)
    c[x] = 0.0;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < n; ++k) {
      const double a_ik = a[i * n + k];
      for (std::size_t j = 0; j < n; ++j)
        c[i * n + j] += a_ik * b[k * n + j];
    }
}

template <void (*Kernel)(const double*, const double*, double*, std::size_t)>
void run_kernel(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto a = llmfs::bench::uniform_values(n * n, 1),
             b = llmfs::bench::uniform_values(n * n, 2);
  std::vector<double> c(n * n);
  for (auto _ : state) {
    Kernel(a.data(), b.data(), c.data(), n);
    benchmark::DoNotOptimize(c.data());
    benchmark::ClobberMemory();
  }
  const double flops = 2.0 * static_cast<double>(n * n * n);
  state.counters["GFLOPs"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

// The library's matmul on `path` with `threads` threads (0 threads: the teaching path).
template <int Threads>
void run_library(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  using llmfs::tensor::MatmulOptions;
  using llmfs::tensor::MatmulPath;
  using llmfs::tensor::Shape;
  using llmfs::tensor::Tensor;
  const Tensor a =
      Tensor::from(Shape{n, n}, llmfs::bench::uniform_values(n * n, 1)).value();
  const Tensor b =
      Tensor::from(Shape{n, n}, llmfs::bench::uniform_values(n * n, 2)).value();
  const MatmulOptions options =
      Threads == 0 ? MatmulOptions{MatmulPath::teaching, 1}
                   : MatmulOptions{llmfs::tensor::matmul_defaults().path, Threads};
  for (auto _ : state) {
    auto c = llmfs::tensor::matmul(a, b, options);
    benchmark::DoNotOptimize(c->values().data());
  }
  const double flops = 2.0 * static_cast<double>(n * n * n);
  state.counters["GFLOPs"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(std::string(llmfs::tensor::matmul_path_name(options.path)));
}

}  // namespace

BENCHMARK(run_kernel<kernel_ijk>)
    ->Name("loop_order/ijk")
    ->Arg(128)
    ->Arg(256)
    ->Arg(512)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(run_kernel<kernel_ikj>)
    ->Name("loop_order/ikj")
    ->Arg(128)
    ->Arg(256)
    ->Arg(512)
    ->Arg(1024)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(run_library<0>)
    ->Name("loop_order/teaching")
    ->Arg(128)
    ->Arg(256)
    ->Arg(512)
    ->Arg(1024)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(run_library<1>)
    ->Name("loop_order/fast_1_thread")
    ->Arg(128)
    ->Arg(256)
    ->Arg(512)
    ->Arg(1024)
    ->Unit(benchmark::kMillisecond);
// The CPU time Google Benchmark reports is the main thread's: time two threads by the
// wall clock (meaningful only on an idle machine: see the load average).
BENCHMARK(run_library<2>)
    ->Name("loop_order/fast_2_threads")
    ->Arg(128)
    ->Arg(256)
    ->Arg(512)
    ->Arg(1024)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
