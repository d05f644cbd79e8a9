// Multi-head causal attention with RoPE (Chapter 30's layer): forward, and
// forward+backward of loss = Σ output (seed of ones), each on a fresh tape with the
// four weights as parameters. `mha/` runs the default per-head kernel (stored weights,
// chapter 28's composition); `mha_fused/` chapter 42's fused kernel (the same bits);
// `mha_streaming64/` chapter 41's streaming kernel at 64 keys a block.
#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <utility>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <llmfs/attention/fused.hpp>
#include <llmfs/attention/multi_head.hpp>
#include <llmfs/attention/streaming.hpp>
#include <llmfs/autograd/tape.hpp>

#include "random.hpp"
#include "shapes.hpp"

namespace {

using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

void run_multi_head(benchmark::State& state, llmfs::bench::AttentionShape s,
                    bool with_backward, llmfs::attention::AttentionKernel kernel) {
  const std::size_t d = s.model_width;
  const double bound = 1.0 / std::sqrt(static_cast<double>(d));
  const Tensor x = llmfs::bench::uniform_tensor(Shape{s.batch, s.tokens, d}, 1, 1.0);
  const std::array<Tensor, 4> weights{
      llmfs::bench::uniform_tensor(Shape{d, d}, 2, bound),
      llmfs::bench::uniform_tensor(Shape{d, d}, 3, bound),
      llmfs::bench::uniform_tensor(Shape{d, d}, 4, bound),
      llmfs::bench::uniform_tensor(Shape{d, d}, 5, bound)};
  for (auto _ : state) {
    llmfs::autograd::Tape tape;
    auto layer = llmfs::attention::MultiHeadAttention::from_parameters(
        {"attention.query.weight", tape.parameter(weights[0])},
        {"attention.key.weight", tape.parameter(weights[1])},
        {"attention.value.weight", tape.parameter(weights[2])},
        {"attention.output.weight", tape.parameter(weights[3])}, s.heads,
        llmfs::attention::RotaryPositions{s.tokens, 10000.0}, kernel);
    if (!layer) {
      state.SkipWithError(fmt::format("{}", layer.error()).c_str());
      break;
    }
    auto result = layer->forward(tape.constant(x), 0);
    if (!result) {
      state.SkipWithError(fmt::format("{}", result.error()).c_str());
      break;
    }
    if (with_backward) {
      auto pass = llmfs::autograd::backward(result->output,
                                            Tensor::full(result->output.shape(), 1.0));
      if (!pass) {
        state.SkipWithError(fmt::format("{}", pass.error()).c_str());
        break;
      }
    }
    benchmark::DoNotOptimize(result->output.value_view());
    tape.release();
  }
}

[[maybe_unused]] const bool registered = [] {
  const std::array<std::pair<std::string, llmfs::attention::AttentionKernel>, 3>
      kernels{{{"mha", llmfs::attention::AttentionKernel{}},
               {"mha_fused", llmfs::attention::fused_kernel},
               {"mha_streaming64", llmfs::attention::streaming_kernel(64).value()}}};
  for (const auto& [prefix, kernel] : kernels) {
    for (const auto& s : llmfs::bench::kShapes) {
      const std::string tag =
          fmt::format("B{}_T{}_d{}_h{}", s.batch, s.tokens, s.model_width, s.heads);
      benchmark::RegisterBenchmark((prefix + "/forward/" + tag).c_str(), run_multi_head,
                                   s, false, kernel)
          ->Unit(benchmark::kMillisecond);
      benchmark::RegisterBenchmark((prefix + "/forward_backward/" + tag).c_str(),
                                   run_multi_head, s, true, kernel)
          ->Unit(benchmark::kMillisecond);
    }
  }
  return true;
}();

}  // namespace
