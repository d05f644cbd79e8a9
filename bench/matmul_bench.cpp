// Matmul at the three shapes inside multi-head attention, for each configuration:
//   projection: X·W        [B,T,d]     · [d,d]       -> [B,T,d]
//   scores:     Q·Kᵀ       [B,h,T,d_h] · [B,h,d_h,T] -> [B,h,T,T]
//   mix:        A·V        [B,h,T,T]   · [B,h,T,d_h] -> [B,h,T,d_h]
#include <cstdint>
#include <random>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <llmfs/tensor/matmul.hpp>

#include "random.hpp"
#include "shapes.hpp"

namespace {

using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

void run_matmul(benchmark::State& state, Shape a_shape, Shape b_shape, double flops) {
  const Tensor a = llmfs::bench::uniform_tensor(a_shape, 1);
  const Tensor b = llmfs::bench::uniform_tensor(b_shape, 2);
  for (auto _ : state) {
    auto c = llmfs::tensor::matmul(a, b);
    if (!c) {
      state.SkipWithError(fmt::format("{}", c.error()).c_str());
      break;
    }
    benchmark::DoNotOptimize(c->values().data());
  }
  state.counters["GFLOPs"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

[[maybe_unused]] const bool registered = [] {
  for (const auto& s : llmfs::bench::kShapes) {
    const std::size_t B = s.batch, T = s.tokens, d = s.model_width, h = s.heads,
                      dh = s.head_width();
    const std::string tag = fmt::format("B{}_T{}_d{}_h{}", B, T, d, h);
    const double fB = static_cast<double>(B), fT = static_cast<double>(T),
                 fd = static_cast<double>(d), fh = static_cast<double>(h),
                 fdh = static_cast<double>(dh);
    benchmark::RegisterBenchmark(("matmul/projection/" + tag).c_str(), run_matmul,
                                 Shape{B, T, d}, Shape{d, d}, 2 * fB * fT * fd * fd)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("matmul/scores/" + tag).c_str(), run_matmul,
                                 Shape{B, h, T, dh}, Shape{B, h, dh, T},
                                 2 * fB * fh * fT * fT * fdh)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("matmul/mix/" + tag).c_str(), run_matmul,
                                 Shape{B, h, T, T}, Shape{B, h, T, dh},
                                 2 * fB * fh * fT * fT * fdh)
        ->Unit(benchmark::kMillisecond);
  }
  return true;
}();

}  // namespace
