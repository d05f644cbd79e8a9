// Chapter 38
// The chapter's claims about cached generation: the Predict model against its hand
// derivation, the demo's 200 sampled tokens with B = 2 equal with and without the cache
// and equal to Chapter 32's forward, 200 more with B = 3 on another (one-block) model,
// the work and memory counts against their formulas, the PyTorch reference's tokens,
// logits and caches, the sampler's chooser, typed refusals, and the exercise answers.

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/generation/generate.hpp>

#include "evidence.hpp"
#include "support/decoder_reference.hpp"
#include "support/reference_data.hpp"

namespace {

using llmfs::autograd::TokenGrid;
using llmfs::generation::CacheMode;
using llmfs::generation::forward_cached;
using llmfs::generation::generate;
using llmfs::generation::GenerationErrorCode;
using llmfs::generation::ModelCache;
using llmfs::models::DecoderConfig;
using llmfs::models::DecoderModel;
using llmfs::tensor::Tensor;

const ch38::Evidence& evidence() {
  static const ch38::Evidence gathered = [] {
    auto result = ch38::gather_evidence();
    if (!result) throw std::runtime_error(fmt::format("{}", result.error()));
    return *result;
  }();
  return gathered;
}

TEST(PredictModel, RepeatsTheTokenItReadWithTheCacheGrowingByOne) {
  const auto& f = evidence().fixture;
  EXPECT_EQ(f.tokens.ids, (std::vector<llmfs::text::TokenId>{2, 2, 2, 2, 0, 0, 0, 0}));
  EXPECT_EQ(f.cache_lengths, (std::vector<std::size_t>{1, 2, 3}));
  // Branches off: z = RMSNorm(2e_i)·2I = 4e_i/√(1+ε) (Chapter 32)
  const double own = 4.0 / std::sqrt(1.0 + 1e-6);
  for (const Tensor& z : f.step_logits) {
    EXPECT_NEAR(z.values()[2], own, 1e-12);
    EXPECT_NEAR(z.values()[4 + 0], own, 1e-12);
    EXPECT_EQ(z.values()[0], 0.0);
  }
  // 2·N·B·T_max·d doubles = 2·1·2·4·4 = 64, 512 bytes
  EXPECT_EQ(evidence().fixture_derived_bytes, 512u);
  EXPECT_EQ(evidence().fixture_measured_bytes, 512u);
  EXPECT_NE(evidence().fixture_too_long.find("generation longer than the context"),
            std::string::npos);
}

TEST(DemoModel, CachedAndUncachedAgreeOverTwoHundredSampledTokens) {
  const auto& p = evidence();
  ASSERT_EQ(p.cached.step_logits.size(), ch38::kDemoNewTokens);
  EXPECT_EQ(p.cached.tokens.time, ch38::kDemoPrompt + ch38::kDemoNewTokens);
  EXPECT_EQ(p.token_mismatches, 0u);
  EXPECT_EQ(p.cached.tokens.ids, p.uncached.tokens.ids);
  EXPECT_LE(p.max_logit_difference, 1e-12);
  EXPECT_LE(p.max_against_full, 1e-12);
  for (std::size_t s = 0; s < ch38::kDemoNewTokens; ++s)
    EXPECT_EQ(p.cached.cache_lengths[s], ch38::kDemoPrompt + s);
  // Positions through the model: B·(L + n − 1) against B·Σ_s (L + s)
  const std::size_t b = ch38::kDemoBatch, l = ch38::kDemoPrompt,
                    n = ch38::kDemoNewTokens;
  EXPECT_EQ(p.cached.positions_computed, b * (l + n - 1));
  EXPECT_EQ(p.uncached.positions_computed, b * (n * l + n * (n - 1) / 2));
  const auto& c = ch38::kDemoConfig;
  EXPECT_EQ(p.derived_bytes, 2 * c.layers * b * c.context_length * c.model_width * 8);
  EXPECT_EQ(p.measured_bytes, p.derived_bytes);
}

TEST(DemoModel, ThreeRowsTwoHundredTokensOnAnotherModel) {
  DecoderConfig config = ch38::kDemoConfig;
  config.seed = 3803;
  config.heads = 4;
  config.layers = 1;
  const auto model = DecoderModel::create(config).value();
  const TokenGrid prompt{3, 2, {1, 2, 3, 4, 5, 6}};
  auto chooser = [] {
    return llmfs::generation::sampling_chooser(
        {.temperature = 0.8,
         .top_k = 10,
         .decoding = llmfs::generation::Decoding::sample},
        99);
  };
  const auto a = generate(model, prompt, 200, chooser(), CacheMode::cached).value();
  const auto b = generate(model, prompt, 200, chooser(), CacheMode::uncached).value();
  EXPECT_EQ(a.tokens.ids, b.tokens.ids);
  EXPECT_LE(ch38::max_step_difference(a.step_logits, b.step_logits), 1e-12);
}

// The reference's cases: tokens exactly, logits and every layer's cache within 1e-12.
void expect_reference(const std::string& name) {
  const auto r = llmfs::testing::load_reference(std::string(LLMFS_SOURCE_DIR) +
                                                "/tests/reference/data/generation/" +
                                                name + ".txt");
  const DecoderConfig config = llmfs::testing::decoder_config_of(r);
  std::vector<Tensor> values = llmfs::testing::decoder_values_of(r, config);
  const auto model = DecoderModel::from_values(config, values).value();
  const auto& p = r.at("prompt");
  TokenGrid prompt{p.shape.at(0), p.shape.at(1), {}};
  for (double v : p.values)
    prompt.ids.push_back(static_cast<llmfs::text::TokenId>(v));
  const std::size_t n = config.context_length - prompt.time;
  const auto g =
      generate(model, prompt, n, llmfs::generation::greedy_chooser()).value();
  std::vector<double> tokens(g.tokens.ids.begin(), g.tokens.ids.end());
  EXPECT_EQ(tokens, r.at("tokens").values) << name;
  const auto& logits = r.at("step_logits").values;
  double worst = 0.0;
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t i = 0; i < g.step_logits[s].size(); ++i)
      worst = std::max(worst, std::abs(g.step_logits[s].values()[i] -
                                       logits[s * g.step_logits[s].size() + i]));
  EXPECT_LE(worst, 1e-12) << name;
  // The caches: the prompt, then every generated token but the last
  auto cache = ModelCache::create(config, prompt.batch).value();
  ASSERT_TRUE(forward_cached(model, prompt, cache).has_value());
  for (std::size_t t = prompt.time; t + 1 < g.tokens.time; ++t) {
    TokenGrid one{prompt.batch, 1, {}};
    for (std::size_t b = 0; b < prompt.batch; ++b)
      one.ids.push_back(g.tokens.ids[b * g.tokens.time + t]);
    ASSERT_TRUE(forward_cached(model, one, cache).has_value());
  }
  for (std::size_t i = 0; i < config.layers; ++i) {
    for (const char* part : {"keys", "values"}) {
      const Tensor mine = std::string(part) == "keys" ? cache.layers()[i].keys()
                                                      : cache.layers()[i].values();
      const auto& theirs = r.at(fmt::format("cache.{}.{}", i, part));
      ASSERT_EQ(std::vector<std::size_t>(mine.shape().begin(), mine.shape().end()),
                theirs.shape);
      for (std::size_t k = 0; k < mine.size(); ++k)
        EXPECT_NEAR(mine.values()[k], theirs.values[k], 1e-12)
            << name << " layer " << i;
    }
  }
}

TEST(Reference, PyTorchIncrementalDecodingAgrees) {
  expect_reference("ch38_cached_decode");
  expect_reference("ch38_cached_single_head");
}

TEST(Sampler, SameSeedSameTokensAndErrorsBecomeRefusals) {
  const auto model = DecoderModel::create(ch38::kDemoConfig).value();
  const TokenGrid prompt{1, 3, {4, 5, 6}};
  const auto a = generate(model, prompt, 30, ch38::demo_chooser()).value();
  const auto b = generate(model, prompt, 30, ch38::demo_chooser()).value();
  EXPECT_EQ(a.tokens.ids, b.tokens.ids);
  auto zero = llmfs::generation::sampling_chooser(
      {.temperature = 0.0,
       .top_k = std::nullopt,
       .decoding = llmfs::generation::Decoding::sample},
      1);
  const auto refused = generate(model, prompt, 1, zero);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code, GenerationErrorCode::chooser_failed);
}

TEST(Errors, EveryRefusalIsTypedAndNamed) {
  const auto& errors = evidence().errors;
  const char* expected[][2] = {
      {"empty_prompt", "generation input: the prompt is empty"},
      {"context_overflow",
       "generation input: prompt longer than the context (L 5 > T_max 4)"},
      {"too_long", "generation input: generation longer than the context (L 2 + 3 new"},
      {"token_out_of_range", "generation input: token id out of range (id 4"},
      {"chooser_failed", "next-token choice: the chooser refused"},
      {"chosen_out_of_range", "next-token choice: chosen id out of range"},
      {"cache_mismatch", "generation input: cache made for another model"},
      {"capacity_exceeded",
       "generation input: cache capacity exceeded (3 filled + 2 new"},
      {"zero_batch", "generation configuration: token ids are not a [B, T] grid"}};
  ASSERT_EQ(errors.size(), std::size(expected));
  for (std::size_t i = 0; i < errors.size(); ++i) {
    EXPECT_EQ(errors[i].first, expected[i][0]);
    EXPECT_EQ(errors[i].second.rfind(expected[i][1], 0), 0u) << errors[i].second;
  }
}

TEST(Exercises, AnswersMatchTheirDerivations) {
  const auto& e = evidence().exercises;
  EXPECT_EQ(e.gpt_cache_bytes, 2u * 12 * 1 * 1024 * 768 * 8);  // 1
  // 2: P·8 bytes of parameters against 2·N·d·8 bytes per position, rounded up
  const std::size_t p =
      llmfs::models::decoder_parameter_count(ch38::kDemoConfig).value();
  EXPECT_EQ(e.parameter_bytes, p * 8);
  const std::size_t per_position =
      2 * ch38::kDemoConfig.layers * ch38::kDemoConfig.model_width * 8;
  EXPECT_EQ(e.break_even_context, (p * 8 + per_position - 1) / per_position);
  EXPECT_LE(e.batch_vs_alone, 1e-12);  // 3
  EXPECT_EQ(e.cached_100, 100u);       // 4: L + n − 1
  EXPECT_EQ(e.uncached_100, 5050u);    //    1 + 2 + … + 100
}

}  // namespace
