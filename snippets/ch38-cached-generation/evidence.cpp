// Chapter 38
// Gathers every value the report and the trace print: the Predict model generated
// greedily, and the demo model's 200 tokens with and without the cache, against each
// other and against Chapter 32's full forward.

#include "evidence.hpp"

#include <algorithm>
#include <cmath>

#include <llmfs/core/splitmix64.hpp>

namespace ch38 {

using llmfs::generation::CacheMode;
using llmfs::generation::generate;
using llmfs::generation::greedy_chooser;
using llmfs::models::DecoderModel;

llmfs::generation::NextTokenChooser demo_chooser() {
  return llmfs::generation::sampling_chooser(
      {.temperature = kDemoTemperature,
       .top_k = std::nullopt,
       .decoding = llmfs::generation::Decoding::sample},
      kDemoSamplingSeed);
}

double max_step_difference(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  double worst = 0.0;
  for (std::size_t s = 0; s < std::min(a.size(), b.size()); ++s)
    for (std::size_t i = 0; i < a[s].size(); ++i)
      worst = std::max(worst, std::abs(a[s].values()[i] - b[s].values()[i]));
  return worst;
}

namespace {

[[nodiscard]] Step<void> gather_fixture(Evidence& out) {
  const auto model =
      LLMFS_TRY_AT("fixture model",
                   DecoderModel::from_values(kFixtureConfig, ch32::fixture_values()));
  out.fixture = LLMFS_TRY_AT(
      "fixture generation",
      generate(model, fixture_prompt(), kFixtureNewTokens, greedy_chooser()));
  const auto cache = LLMFS_TRY_AT(
      "fixture cache", llmfs::generation::ModelCache::create(kFixtureConfig, 2));
  out.fixture_measured_bytes = cache.allocated_bytes();
  out.fixture_derived_bytes = LLMFS_TRY_AT(
      "fixture bytes", llmfs::generation::model_cache_bytes(kFixtureConfig, 2));
  out.fixture_too_long = snippets::error_text(
      generate(model, fixture_prompt(), kFixtureNewTokens + 1, greedy_chooser()));
  return {};
}

// Logits of every position of the final sequence but the last, from Chapter 32's
// taped forward, compared with the step logits: position L−1+s chose step s.
[[nodiscard]] Step<double> against_full(const DecoderModel& model,
                                        const llmfs::generation::Generation& g) {
  const std::size_t time = g.tokens.time - 1, batch = g.tokens.batch;
  llmfs::autograd::TokenGrid inputs{batch, time, {}};
  for (std::size_t b = 0; b < batch; ++b)
    for (std::size_t t = 0; t < time; ++t)
      inputs.ids.push_back(g.tokens.ids[b * g.tokens.time + t]);
  const auto logits = LLMFS_TRY_AT("full forward", model.forward(inputs));
  const Tensor full = LLMFS_TRY_AT("full logits", logits.value());
  const std::size_t vocab = full.shape()[2];
  double worst = 0.0;
  for (std::size_t s = 0; s < g.step_logits.size(); ++s)
    for (std::size_t b = 0; b < batch; ++b)
      for (std::size_t v = 0; v < vocab; ++v) {
        const std::size_t t = g.prompt_length - 1 + s;
        worst = std::max(worst, std::abs(g.step_logits[s].values()[b * vocab + v] -
                                         full.values()[(b * time + t) * vocab + v]));
      }
  return worst;
}

// region: cached-against-uncached
[[nodiscard]] Step<void> gather_demo(Evidence& out) {
  const auto model = LLMFS_TRY_AT("demo model", DecoderModel::create(kDemoConfig));
  llmfs::SplitMix64 rng(kDemoPromptSeed);
  out.prompt = {kDemoBatch, kDemoPrompt, {}};
  for (std::size_t i = 0; i < kDemoBatch * kDemoPrompt; ++i)
    out.prompt.ids.push_back(static_cast<int>(rng.next_u64() % kDemoConfig.vocab_size));
  // The same prompt, sampler seed and model: once through the cache, once from scratch
  out.cached = LLMFS_TRY_AT("cached", generate(model, out.prompt, kDemoNewTokens,
                                               demo_chooser(), CacheMode::cached));
  out.uncached = LLMFS_TRY_AT(
      "uncached",
      generate(model, out.prompt, kDemoNewTokens, demo_chooser(), CacheMode::uncached));
  for (std::size_t i = 0; i < out.cached.tokens.ids.size(); ++i)
    out.token_mismatches += out.cached.tokens.ids[i] != out.uncached.tokens.ids[i];
  out.max_logit_difference =
      max_step_difference(out.cached.step_logits, out.uncached.step_logits);
  out.max_against_full = LLMFS_TRY(against_full(model, out.cached));
  return {};
}
// endregion: cached-against-uncached

}  // namespace

Step<Evidence> gather_evidence() {
  Evidence out;
  LLMFS_TRY(gather_fixture(out));
  LLMFS_TRY(gather_demo(out));
  const auto cache = LLMFS_TRY_AT(
      "demo cache", llmfs::generation::ModelCache::create(kDemoConfig, kDemoBatch));
  out.measured_bytes = cache.allocated_bytes();
  out.derived_bytes = LLMFS_TRY_AT(
      "demo bytes", llmfs::generation::model_cache_bytes(kDemoConfig, kDemoBatch));
  out.errors = LLMFS_TRY(gather_errors());
  out.exercises = LLMFS_TRY(answer_exercises(out));
  return out;
}

}  // namespace ch38
