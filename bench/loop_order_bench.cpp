// Chapter 11: why loop order matters. The same n×n·n×n product of doubles, the same
// 2·n³ floating-point operations, two orders of the three loops:
//   i-j-k  c[i,j] = Σ_k a[i,k]·b[k,j]: the inner loop walks b down a column, stride n
//   i-k-j  c[i,:] += a[i,k]·b[k,:]:    the inner loop walks b and c along a row, stride
//   1
// and the library's matmul (src/llmfs/tensor/matmul.cpp, i-k-j, written i-p-j there) on
// tensors of the same size. Run with tools/run-loop-order-bench.sh BUILD_DIR, which
// writes bench/results/ch11-loop-order.txt (a measurement, never a golden).
#include <cstddef>
#include <cstdint>
#include <random>
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

void run_library(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  using llmfs::tensor::Shape;
  using llmfs::tensor::Tensor;
  const Tensor a =
      Tensor::from(Shape{n, n}, llmfs::bench::uniform_values(n * n, 1)).value();
  const Tensor b =
      Tensor::from(Shape{n, n}, llmfs::bench::uniform_values(n * n, 2)).value();
  for (auto _ : state) {
    auto c = llmfs::tensor::matmul(a, b);
    benchmark::DoNotOptimize(c->values().data());
  }
  const double flops = 2.0 * static_cast<double>(n * n * n);
  state.counters["GFLOPs"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
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
    ->Unit(benchmark::kMillisecond);
BENCHMARK(run_library)
    ->Name("loop_order/library")
    ->Arg(128)
    ->Arg(256)
    ->Arg(512)
    ->Unit(benchmark::kMillisecond);
