// Chapter 37
// Gathers every value the report and the trace print: the Predict layer step by step,
// and a random layer whose every step is compared with the full causal forward.

#include "evidence.hpp"

#include <algorithm>
#include <cmath>

#include <llmfs/autograd/tape.hpp>
#include <llmfs/core/splitmix64.hpp>
#include <llmfs/nn/init.hpp>

namespace ch37 {

using llmfs::attention::MultiHeadAttention;
using llmfs::generation::CacheShape;
using llmfs::generation::KvCache;

Tensor token_rows(const Tensor& x, std::size_t begin, std::size_t end) {
  const std::size_t batch = x.shape()[0], time = x.shape()[1], d = x.shape()[2];
  Tensor out = Tensor::zeros({batch, end - begin, d});
  for (std::size_t b = 0; b < batch; ++b)
    for (std::size_t t = begin; t < end; ++t)
      for (std::size_t j = 0; j < d; ++j)
        out.mutable_values()[(b * (end - begin) + t - begin) * d + j] =
            x.values()[(b * time + t) * d + j];
  return out;
}

namespace {

double max_difference(const Tensor& a, const Tensor& b) {
  double worst = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i)
    worst = std::max(worst, std::abs(a.values()[i] - b.values()[i]));
  return worst;
}

// The Predict layer: four identity matrices on a fresh tape, one head, T_max 4.
[[nodiscard]] Step<MultiHeadAttention> fixture_layer(llmfs::autograd::Tape& tape) {
  const Tensor identity = Tensor::from({2, 2}, {1, 0, 0, 1}).value();
  auto leaf = [&](const char* name) {
    return llmfs::nn::NamedParameter{name, tape.parameter(identity)};
  };
  return LLMFS_TRY_AT("fixture layer", MultiHeadAttention::from_parameters(
                                           leaf("q"), leaf("k"), leaf("v"), leaf("o"),
                                           1, kFixtureCapacity, kDemoBase));
}

}  // namespace

// region: prefill-then-decode
Step<StepRecord> run_step(const MultiHeadAttention& layer, const Tensor& input,
                          const Tensor& full, std::size_t begin, std::size_t end,
                          KvCache& cache) {
  // Positions begin..end−1 are new; the cache already holds 0..begin−1
  auto step = LLMFS_TRY_AT("attention step",
                           attention_step(layer, token_rows(input, begin, end), cache));
  const Tensor& weights = step.attention.weights;
  const std::size_t length = cache.length();
  return StepRecord{
      .first_position = step.first_position,
      .tokens = end - begin,
      .length_after = length,
      .output = step.output,
      .max_difference = max_difference(step.output, token_rows(full, begin, end)),
      .last_weights =
          Tensor::from({length}, std::vector<double>(weights.values().end() - length,
                                                     weights.values().end()))
              .value()};
}
// endregion: prefill-then-decode

namespace {

[[nodiscard]] Step<void> gather_fixture(Evidence& out) {
  llmfs::autograd::Tape tape;
  const auto layer = LLMFS_TRY(fixture_layer(tape));
  const Tensor x = fixture_input();
  const auto full = LLMFS_TRY_AT("full forward", layer.forward(tape.constant(x), 0));
  const Tensor full_output = LLMFS_TRY_AT("full output", full.output.value());
  const Tensor unrotated = LLMFS_TRY_AT("keys", full.projected_key_heads.value());
  const CacheShape shape{1, 1, kFixtureWidth, kFixtureCapacity};
  auto cache = LLMFS_TRY_AT("cache", KvCache::create(shape));
  // Prefill two tokens at once, then one token per step
  std::size_t begin = 0;
  for (std::size_t end = kFixturePrompt; end <= kFixtureCapacity; begin = end, ++end)
    out.fixture_steps.push_back(
        LLMFS_TRY(run_step(layer, x, full_output, begin, end, cache)));
  const Tensor keys = cache.keys(), values = cache.values();
  for (std::size_t s = 0; s < kFixtureCapacity; ++s) {
    auto at = [&](const Tensor& t) {
      return std::vector<double>(t.values().begin() + 2 * s,
                                 t.values().begin() + 2 * s + 2);
    };
    out.fixture_slots.push_back({s, at(keys), at(values), at(unrotated)});
  }
  // A fifth token: refused, the cache as it was
  const auto refused = attention_step(layer, token_rows(x, 0, 1), cache);
  out.fixture_refusal = snippets::error_text(refused);
  out.fixture_length_after_refusal = cache.length();
  out.fixture_bytes = cache.allocated_bytes();
  out.fixture_doubles =
      LLMFS_TRY_AT("doubles", llmfs::generation::cache_doubles(shape));
  return {};
}

[[nodiscard]] Step<void> gather_demo(Evidence& out) {
  llmfs::autograd::Tape tape;
  llmfs::SplitMix64 rng(kDemoSeed);
  const auto layer =
      LLMFS_TRY_AT("demo layer",
                   MultiHeadAttention::create(tape, "attention", kDemoWidth, kDemoHeads,
                                              kDemoCapacity, kDemoBase, rng));
  const Tensor x = LLMFS_TRY_AT(
      "demo input",
      llmfs::nn::uniform_fan_in({kDemoBatch, kDemoCapacity, kDemoWidth}, 1, rng));
  const auto full = LLMFS_TRY_AT("full forward", layer.forward(tape.constant(x), 0));
  const Tensor full_output = LLMFS_TRY_AT("full output", full.output.value());
  const CacheShape shape{kDemoBatch, kDemoHeads, kDemoWidth / kDemoHeads,
                         kDemoCapacity};
  auto cache = LLMFS_TRY_AT("cache", KvCache::create(shape));
  std::size_t begin = 0;
  Tensor prompt_keys;
  for (std::size_t end = kDemoPrompt; end <= kDemoCapacity; begin = end, ++end) {
    out.demo_steps.push_back(
        LLMFS_TRY(run_step(layer, x, full_output, begin, end, cache)));
    if (end == kDemoPrompt) prompt_keys = cache.keys();
  }
  // The prompt's slots after every later step: not one value moved
  const Tensor keys = cache.keys();
  const std::size_t width = kDemoWidth / kDemoHeads;
  for (std::size_t lane = 0; lane < kDemoBatch * kDemoHeads; ++lane)
    for (std::size_t e = 0; e < kDemoPrompt * width; ++e)
      out.old_slots_changed += keys.values()[lane * kDemoCapacity * width + e] !=
                               prompt_keys.values()[lane * kDemoPrompt * width + e];
  out.demo_bytes = cache.allocated_bytes();
  out.demo_doubles = LLMFS_TRY_AT("doubles", llmfs::generation::cache_doubles(shape));
  return {};
}

}  // namespace

Step<Evidence> gather_evidence() {
  Evidence out;
  LLMFS_TRY(gather_fixture(out));
  LLMFS_TRY(gather_demo(out));
  out.errors = LLMFS_TRY(gather_errors());
  out.exercises = LLMFS_TRY(answer_exercises());
  return out;
}

}  // namespace ch37
