// Chapter 9: what materialising a transpose costs, at the shapes multi-head attention
// transposes (bench/shapes.hpp), beside a plain copy of the same tensor, reshape by
// copy and by move, and the scores matmul that consumes Kᵀ. Run with
// tools/run-layout-bench.sh BUILD_DIR (writes bench/results/ch09-layout.txt; a
// measurement, never a golden).
//   heads:  transpose(1,2) [B,T,h,d_h] -> [B,h,T,d_h]   (the head split)
//   keys:   transpose(2,3) [B,h,T,d_h] -> [B,h,d_h,T]   (Kᵀ for the scores)
#include <cstdint>
#include <random>
#include <utility>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <llmfs/tensor/layout.hpp>
#include <llmfs/tensor/matmul.hpp>

#include "random.hpp"
#include "shapes.hpp"

namespace {

using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

void bytes(benchmark::State& state, const Tensor& t) {
  // read once and written once: 16 bytes per element moved
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(t.size() * 2 * sizeof(double)));
}

void run_copy(benchmark::State& state, Shape shape) {
  const Tensor t = llmfs::bench::uniform_tensor(shape, 1);
  for (auto _ : state) {
    Tensor copy = t;
    benchmark::DoNotOptimize(copy.values().data());
  }
  bytes(state, t);
}

void run_reshape_copy(benchmark::State& state, Shape shape, Shape to) {
  const Tensor t = llmfs::bench::uniform_tensor(shape, 1);
  for (auto _ : state) {
    auto r = llmfs::tensor::reshape(t, to);
    benchmark::DoNotOptimize(r->values().data());
  }
  bytes(state, t);
}

// Two moves per iteration (there and back), so no tensor is ever rebuilt.
void run_reshape_move(benchmark::State& state, Shape shape, Shape to) {
  Tensor t = llmfs::bench::uniform_tensor(shape, 1);
  for (auto _ : state) {
    Tensor there = llmfs::tensor::reshape(std::move(t), to).value();
    t = llmfs::tensor::reshape(std::move(there), shape).value();
    benchmark::DoNotOptimize(t.values().data());
  }
}

void run_transpose(benchmark::State& state, Shape shape, std::size_t a, std::size_t b) {
  const Tensor t = llmfs::bench::uniform_tensor(shape, 1);
  for (auto _ : state) {
    auto r = llmfs::tensor::transpose(t, a, b);
    benchmark::DoNotOptimize(r->values().data());
  }
  bytes(state, t);
}

void run_scores(benchmark::State& state, Shape q, Shape kt) {
  const Tensor a = llmfs::bench::uniform_tensor(q, 1);
  const Tensor b = llmfs::bench::uniform_tensor(kt, 2);
  for (auto _ : state) {
    auto c = llmfs::tensor::matmul(a, b);
    benchmark::DoNotOptimize(c->values().data());
  }
}

[[maybe_unused]] const bool layout_registered = [] {
  for (const auto& s : llmfs::bench::kShapes) {
    const std::size_t B = s.batch, T = s.tokens, d = s.model_width, h = s.heads,
                      dh = s.head_width();
    const std::string tag = fmt::format("B{}_T{}_d{}_h{}", B, T, d, h);
    const auto add = [&](const std::string& name, auto&&... args) {
      benchmark::RegisterBenchmark(("layout/" + name + "/" + tag).c_str(), args...)
          ->Unit(benchmark::kMicrosecond);
    };
    add("copy", run_copy, Shape{B, T, h, dh});
    add("reshape_copy", run_reshape_copy, Shape{B, T, h, dh}, Shape{B, T, d});
    add("reshape_move", run_reshape_move, Shape{B, T, h, dh}, Shape{B, T, d});
    add("transpose_heads", run_transpose, Shape{B, T, h, dh}, std::size_t{1},
        std::size_t{2});
    add("transpose_keys", run_transpose, Shape{B, h, T, dh}, std::size_t{2},
        std::size_t{3});
    add("scores_matmul", run_scores, Shape{B, h, T, dh}, Shape{B, h, dh, T});
  }
  return true;
}();

}  // namespace
