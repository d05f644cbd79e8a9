// Chapter 38: the model-wide cache and the generation loop under the sanitizers —
// prefill and decode against Chapter 32's full forward on seeded random models, cached
// and uncached generation token for token (64 tokens with B = 2 here; Chapter 38's
// test runs 200 in the optimised build), the memory
// formula against the cache's storage, and every refusal typed and harmless.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/core/splitmix64.hpp>
#include <llmfs/generation/generate.hpp>
#include <llmfs/models/decoder.hpp>

namespace {

using llmfs::SplitMix64;
using llmfs::autograd::TokenGrid;
using llmfs::generation::CacheMode;
using llmfs::generation::forward_cached;
using llmfs::generation::generate;
using llmfs::generation::GenerationErrorCode;
using llmfs::generation::GenerationStage;
using llmfs::generation::greedy_chooser;
using llmfs::generation::ModelCache;
using llmfs::models::DecoderConfig;
using llmfs::models::DecoderModel;
using llmfs::tensor::Tensor;

// Logit (b, t, v) of a [B,T,V] tensor.
double logit(const Tensor& z, std::size_t b, std::size_t t, std::size_t v) {
  return z.values()[(b * z.shape()[1] + t) * z.shape()[2] + v];
}

// Ids t in [begin, end) of every row.
TokenGrid columns(const TokenGrid& grid, std::size_t begin, std::size_t end) {
  TokenGrid out{grid.batch, end - begin, {}};
  for (std::size_t b = 0; b < grid.batch; ++b)
    for (std::size_t t = begin; t < end; ++t)
      out.ids.push_back(grid.ids[b * grid.time + t]);
  return out;
}

TokenGrid random_ids(std::size_t batch, std::size_t time, std::size_t vocab,
                     SplitMix64& rng) {
  TokenGrid grid{batch, time, {}};
  for (std::size_t i = 0; i < batch * time; ++i)
    grid.ids.push_back(static_cast<llmfs::text::TokenId>(rng.next_u64() % vocab));
  return grid;
}

TEST(Generation, PropertyPrefillThenDecodeEqualsTheFullForward) {
  SplitMix64 draw(3800);
  for (std::uint64_t seed = 0; seed < 12; ++seed) {
    const std::size_t heads = 1 + draw.next_u64() % 2;
    const DecoderConfig config{.vocab_size = 3 + draw.next_u64() % 10,
                               .model_width = heads * 2 * (1 + draw.next_u64() % 2),
                               .heads = heads,
                               .layers = 1 + draw.next_u64() % 3,
                               .hidden_width = 2 + draw.next_u64() % 8,
                               .context_length = 1 + draw.next_u64() % 7,
                               .rope_base = 100.0,
                               .epsilon = 1e-6,
                               .seed = 38000 + seed};
    const std::size_t batch = 1 + draw.next_u64() % 3;
    const std::size_t prompt = 1 + draw.next_u64() % config.context_length;
    const auto model = DecoderModel::create(config).value();
    const TokenGrid ids =
        random_ids(batch, config.context_length, config.vocab_size, draw);
    const Tensor full = model.forward(ids).value().value().value();
    auto cache = ModelCache::create(config, batch).value();
    std::size_t begin = 0;
    for (std::size_t end = prompt; end <= config.context_length; begin = end, ++end) {
      const Tensor z = forward_cached(model, columns(ids, begin, end), cache).value();
      EXPECT_EQ(cache.length(), end);
      for (std::size_t b = 0; b < batch; ++b)
        for (std::size_t t = begin; t < end; ++t)
          for (std::size_t v = 0; v < config.vocab_size; ++v)
            EXPECT_NEAR(logit(z, b, t - begin, v), logit(full, b, t, v), 1e-12)
                << "seed " << seed << " (b " << b << ", t " << t << ")";
    }
  }
}

constexpr DecoderConfig kLong{.vocab_size = 16,
                              .model_width = 8,
                              .heads = 2,
                              .layers = 2,
                              .hidden_width = 12,
                              .context_length = 72,
                              .rope_base = 10000.0,
                              .epsilon = 1e-6,
                              .seed = 38};

TEST(Generation, CachedAndUncachedAgreeTokenForTokenWithBatchTwo) {
  const auto model = DecoderModel::create(kLong).value();
  const TokenGrid prompt{2, 5, {1, 2, 3, 4, 5, 9, 9, 0, 15, 7}};
  // A sampler-like chooser: a fixed pseudo-random pick per (row, step) from the logits'
  // ranking, so that the sequences wander instead of locking into a greedy loop
  auto chooser =
      [](std::span<const double> logits,
         std::size_t row) -> std::expected<llmfs::text::TokenId, std::string> {
    double total = 0.0;
    for (double z : logits)
      total += z;
    const auto bits = static_cast<std::uint64_t>(std::abs(total) * 1e6);
    const std::size_t pick = (bits + row) % logits.size();
    return static_cast<llmfs::text::TokenId>(pick);
  };
  const auto cached = generate(model, prompt, 64, chooser, CacheMode::cached).value();
  const auto uncached =
      generate(model, prompt, 64, chooser, CacheMode::uncached).value();
  ASSERT_EQ(cached.tokens.time, 69u);
  EXPECT_EQ(cached.tokens.ids, uncached.tokens.ids);
  ASSERT_EQ(cached.step_logits.size(), 64u);
  double worst = 0.0;
  for (std::size_t s = 0; s < 64; ++s) {
    for (std::size_t i = 0; i < cached.step_logits[s].size(); ++i)
      worst = std::max(worst, std::abs(cached.step_logits[s].values()[i] -
                                       uncached.step_logits[s].values()[i]));
  }
  EXPECT_LE(worst, 1e-12);
  // And against Chapter 32's taped forward on the final sequence: position L−1+s
  // holds the logits of step s
  const Tensor full =
      model.forward(columns(cached.tokens, 0, 68)).value().value().value();
  double against_full = 0.0;
  for (std::size_t s = 0; s < 64; ++s)
    for (std::size_t b = 0; b < 2; ++b)
      for (std::size_t v = 0; v < 16; ++v)
        against_full =
            std::max(against_full, std::abs(cached.step_logits[s].values()[b * 16 + v] -
                                            logit(full, b, 4 + s, v)));
  EXPECT_LE(against_full, 1e-12);
  // The cache grew by exactly one per step after the prefill of 5
  ASSERT_EQ(cached.cache_lengths.size(), 64u);
  for (std::size_t s = 0; s < 64; ++s)
    EXPECT_EQ(cached.cache_lengths[s], 5 + s);
  EXPECT_TRUE(uncached.cache_lengths.empty());
}

TEST(Generation, MemoryFormulaEqualsTheStorage) {
  for (std::size_t batch : {1u, 2u, 5u}) {
    const auto cache = ModelCache::create(kLong, batch).value();
    const std::size_t derived = 2 * kLong.layers * batch * kLong.context_length *
                                kLong.model_width * sizeof(double);
    EXPECT_EQ(llmfs::generation::model_cache_bytes(kLong, batch).value(), derived);
    EXPECT_EQ(cache.allocated_bytes(), derived);
    EXPECT_EQ(cache.layers().size(), kLong.layers);
  }
  EXPECT_EQ(ModelCache::create(kLong, 0).error().code,
            GenerationErrorCode::token_shape);
}

TEST(Generation, GreedyTakesTheFirstMaximum) {
  const auto greedy = greedy_chooser();
  const std::vector<double> tie{0.5, 2.0, -1.0, 2.0};
  EXPECT_EQ(greedy(tie, 0).value(), 1);
  const std::vector<double> last{0.0, 0.0, 0.0, 0.25};
  EXPECT_EQ(greedy(last, 0).value(), 3);
}

TEST(Generation, BadInputIsTypedAndChecksComeFirst) {
  const DecoderConfig config{.vocab_size = 6,
                             .model_width = 4,
                             .heads = 1,
                             .layers = 1,
                             .hidden_width = 4,
                             .context_length = 4,
                             .rope_base = 100.0,
                             .epsilon = 1e-6,
                             .seed = 1};
  const auto model = DecoderModel::create(config).value();
  const auto greedy = greedy_chooser();
  auto code = [&](const TokenGrid& prompt, std::size_t n) {
    return generate(model, prompt, n, greedy).error().code;
  };
  EXPECT_EQ(code({1, 0, {}}, 1), GenerationErrorCode::empty_prompt);
  EXPECT_EQ(code({0, 0, {}}, 1), GenerationErrorCode::token_shape);
  EXPECT_EQ(code({1, 2, {1}}, 1), GenerationErrorCode::token_shape);
  EXPECT_EQ(code({1, 5, {1, 1, 1, 1, 1}}, 0), GenerationErrorCode::context_overflow);
  EXPECT_EQ(code({1, 2, {1, 1}}, 3), GenerationErrorCode::too_long);
  EXPECT_EQ(code({1, 2, {1, 6}}, 1), GenerationErrorCode::token_out_of_range);
  EXPECT_EQ(code({1, 2, {-1, 0}}, 1), GenerationErrorCode::token_out_of_range);
  // Exactly filling the context is allowed; zero new tokens returns the prompt
  EXPECT_EQ(generate(model, {1, 2, {1, 2}}, 2, greedy).value().tokens.time, 4u);
  EXPECT_EQ(generate(model, {1, 2, {1, 2}}, 0, greedy).value().tokens.ids,
            (std::vector<llmfs::text::TokenId>{1, 2}));
  auto refusing = [](std::span<const double>,
                     std::size_t) -> std::expected<llmfs::text::TokenId, std::string> {
    return std::unexpected(std::string("no"));
  };
  auto refused = generate(model, {1, 1, {0}}, 1, refusing);
  EXPECT_EQ(refused.error().code, GenerationErrorCode::chooser_failed);
  EXPECT_EQ(refused.error().stage, GenerationStage::choose);
  EXPECT_EQ(refused.error().detail, "no");
  auto wild = [](std::span<const double> z,
                 std::size_t) -> std::expected<llmfs::text::TokenId, std::string> {
    return static_cast<llmfs::text::TokenId>(z.size());
  };
  EXPECT_EQ(generate(model, {1, 1, {0}}, 1, wild).error().code,
            GenerationErrorCode::chosen_out_of_range);
}

TEST(Generation, RefusedForwardLeavesTheCacheUnchanged) {
  const auto model = DecoderModel::create(kLong).value();
  auto cache = ModelCache::create(kLong, 2).value();
  ASSERT_TRUE(forward_cached(model, {2, 3, {1, 2, 3, 4, 5, 6}}, cache).has_value());
  const Tensor keys = cache.layers()[1].keys();
  auto bad = forward_cached(model, {2, 1, {1, 16}}, cache);
  EXPECT_EQ(bad.error().code, GenerationErrorCode::token_out_of_range);
  auto wrong_batch = forward_cached(model, {1, 1, {1}}, cache);
  EXPECT_EQ(wrong_batch.error().code, GenerationErrorCode::cache_mismatch);
  TokenGrid too_many{2, 70, std::vector<llmfs::text::TokenId>(140, 1)};
  EXPECT_EQ(forward_cached(model, too_many, cache).error().code,
            GenerationErrorCode::capacity_exceeded);
  EXPECT_EQ(cache.length(), 3u);
  EXPECT_EQ(cache.layers()[0].length(), 3u);
  EXPECT_EQ(cache.layers()[1].keys(), keys);
}

}  // namespace
