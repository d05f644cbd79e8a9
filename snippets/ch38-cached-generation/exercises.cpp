// Chapter 38
// The refused calls and the exercise answers, each computed by running the library.

#include <algorithm>
#include <cmath>

#include "evidence.hpp"

namespace ch38 {

using llmfs::generation::forward_cached;
using llmfs::generation::generate;
using llmfs::generation::greedy_chooser;
using llmfs::generation::ModelCache;
using llmfs::models::DecoderConfig;
using llmfs::models::DecoderModel;

// One refused call per way generation can say no.
Step<std::vector<std::pair<std::string, std::string>>> gather_errors() {
  std::vector<std::pair<std::string, std::string>> errors;
  const auto model = LLMFS_TRY_AT(
      "model", DecoderModel::from_values(kFixtureConfig, ch32::fixture_values()));
  const auto greedy = greedy_chooser();
  auto refused = [&](const llmfs::autograd::TokenGrid& prompt, std::size_t n,
                     const llmfs::generation::NextTokenChooser& choose) {
    return snippets::error_text(generate(model, prompt, n, choose));
  };
  errors.emplace_back("empty_prompt", refused({1, 0, {}}, 1, greedy));
  errors.emplace_back("context_overflow", refused({1, 5, {0, 1, 2, 3, 0}}, 0, greedy));
  errors.emplace_back("too_long", refused({1, 2, {0, 1}}, 3, greedy));
  errors.emplace_back("token_out_of_range", refused({1, 2, {0, 4}}, 1, greedy));
  auto no = [](std::span<const double>,
               std::size_t) -> std::expected<llmfs::text::TokenId, std::string> {
    return std::unexpected(std::string("temperature must be finite"));
  };
  errors.emplace_back("chooser_failed", refused({1, 1, {0}}, 1, no));
  auto wild = [](std::span<const double>,
                 std::size_t) -> std::expected<llmfs::text::TokenId, std::string> {
    return 7;
  };
  errors.emplace_back("chosen_out_of_range", refused({1, 1, {0}}, 1, wild));
  auto cache = LLMFS_TRY_AT("cache", ModelCache::create(kFixtureConfig, 1));
  errors.emplace_back("cache_mismatch", snippets::error_text(forward_cached(
                                            model, {2, 1, {0, 0}}, cache)));
  LLMFS_TRY_AT("prefill", forward_cached(model, {1, 3, {0, 1, 2}}, cache));
  errors.emplace_back("capacity_exceeded", snippets::error_text(forward_cached(
                                               model, {1, 2, {0, 1}}, cache)));
  errors.emplace_back("zero_batch",
                      snippets::error_text(ModelCache::create(kFixtureConfig, 0)));
  return errors;
}

namespace {

// Exercise 3: row 0 of the demo batch generated alone, against its logits in the batch.
[[nodiscard]] Step<double> batch_against_alone(const Evidence& p) {
  const auto model = LLMFS_TRY_AT("model", DecoderModel::create(kDemoConfig));
  const llmfs::autograd::TokenGrid alone{
      1, kDemoPrompt,
      std::vector<llmfs::text::TokenId>(p.prompt.ids.begin(),
                                        p.prompt.ids.begin() + kDemoPrompt)};
  const auto g =
      LLMFS_TRY_AT("alone", generate(model, alone, kDemoNewTokens, demo_chooser()));
  double worst = 0.0;
  const std::size_t v = kDemoConfig.vocab_size;
  for (std::size_t s = 0; s < kDemoNewTokens; ++s)
    for (std::size_t i = 0; i < v; ++i)
      worst = std::max(worst, std::abs(g.step_logits[s].values()[i] -
                                       p.cached.step_logits[s].values()[i]));
  return worst;
}

}  // namespace

Step<Exercises> answer_exercises(const Evidence& p) {
  Exercises e;
  // Exercise 1: a GPT-2-small-shaped model (N 12, d 768, T_max 1024), B = 1, float64
  const DecoderConfig gpt{.vocab_size = 50257,
                          .model_width = 768,
                          .heads = 12,
                          .layers = 12,
                          .hidden_width = 2048,
                          .context_length = 1024};
  e.gpt_cache_bytes =
      LLMFS_TRY_AT("exercise 1", llmfs::generation::model_cache_bytes(gpt, 1));
  // Exercise 2: the shortest context whose cache (B = 1) outweighs the demo model
  e.parameter_bytes =
      LLMFS_TRY_AT("parameters", llmfs::models::decoder_parameter_count(kDemoConfig)) *
      sizeof(double);
  for (std::size_t t = 1; e.break_even_context == 0; ++t) {
    DecoderConfig c = kDemoConfig;
    c.context_length = t;
    if (LLMFS_TRY_AT("exercise 2", llmfs::generation::model_cache_bytes(c, 1)) >=
        e.parameter_bytes)
      e.break_even_context = t;
  }
  e.batch_vs_alone = LLMFS_TRY(batch_against_alone(p));
  // Exercise 4: positions through the model for 100 new tokens after a 1-token prompt
  DecoderConfig small = kFixtureConfig;
  small.context_length = 101;
  const auto model = LLMFS_TRY_AT("model", DecoderModel::create(small));
  for (auto mode :
       {llmfs::generation::CacheMode::cached, llmfs::generation::CacheMode::uncached}) {
    const auto g = LLMFS_TRY_AT(
        "exercise 4", generate(model, {1, 1, {0}}, 100, greedy_chooser(), mode));
    (mode == llmfs::generation::CacheMode::cached ? e.cached_100 : e.uncached_100) =
        g.positions_computed;
  }
  return e;
}

}  // namespace ch38
