// The decoder model (Chapter 32): the next-token loss, and the loss with its backward
// pass into every parameter, at a small training shape; each iteration ends with
// reset_tape(), the trainer's way of dropping the recorded graph. Mirrored by decoder
// cases in bench/torch_reference.py (tests/reference/decoder_reference.py, float64, one
// thread).
#include <cstdint>
#include <string>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/core/splitmix64.hpp>
#include <llmfs/models/decoder.hpp>

#include "shapes.hpp"

namespace {

using llmfs::tensor::Tensor;

void run_decoder(benchmark::State& state, llmfs::bench::DecoderShape s,
                 bool with_backward) {
  const llmfs::models::DecoderConfig config{.vocab_size = s.vocab,
                                            .model_width = s.model_width,
                                            .heads = s.heads,
                                            .layers = s.layers,
                                            .hidden_width = s.hidden_width,
                                            .context_length = s.tokens,
                                            .rope_base = 10000.0,
                                            .epsilon = 1e-6,
                                            .seed = 1};
  auto model = llmfs::models::DecoderModel::create(config);
  if (!model) {
    state.SkipWithError(fmt::format("{}", model.error()).c_str());
    return;
  }
  llmfs::autograd::TokenGrid inputs{s.batch, s.tokens, {}},
      targets{s.batch, s.tokens, {}};
  llmfs::SplitMix64 rng(2);
  for (std::size_t i = 0; i < s.batch * s.tokens; ++i) {
    inputs.ids.push_back(static_cast<llmfs::text::TokenId>(rng.next_u64() % s.vocab));
    targets.ids.push_back(static_cast<llmfs::text::TokenId>(rng.next_u64() % s.vocab));
  }
  for (auto _ : state) {
    auto loss = model->loss(inputs, targets);
    if (!loss) {
      state.SkipWithError(fmt::format("{}", loss.error()).c_str());
      break;
    }
    if (with_backward) {
      auto pass = llmfs::autograd::backward(*loss, Tensor::scalar(1.0));
      if (!pass) {
        state.SkipWithError(fmt::format("{}", pass.error()).c_str());
        break;
      }
    }
    benchmark::DoNotOptimize(loss->value_view());
    if (auto reset = model->reset_tape(); !reset) {
      state.SkipWithError(fmt::format("{}", reset.error()).c_str());
      break;
    }
  }
}

[[maybe_unused]] const bool registered = [] {
  for (const auto& s : llmfs::bench::kDecoderShapes) {
    const std::string tag =
        fmt::format("V{}_d{}_h{}_N{}_ff{}_B{}_T{}", s.vocab, s.model_width, s.heads,
                    s.layers, s.hidden_width, s.batch, s.tokens);
    benchmark::RegisterBenchmark(("decoder/loss/" + tag).c_str(), run_decoder, s, false)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("decoder/loss_backward/" + tag).c_str(), run_decoder,
                                 s, true)
        ->Unit(benchmark::kMillisecond);
  }
  return true;
}();

}  // namespace
