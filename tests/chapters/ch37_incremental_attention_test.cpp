// Chapter 37
// The chapter's claims about incremental attention: the Predict cache against its hand
// derivation (slots, positions, keys rotated by their position, values as they are, the
// last query's weights and output), the refused fifth token changing nothing, the
// demo's every step equal to the full causal forward, seeded random layers at every
// prompt length 1..T_max, the memory formula, and the exercise answers.

#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/attention/multi_head.hpp>
#include <llmfs/autograd/tape.hpp>
#include <llmfs/core/splitmix64.hpp>
#include <llmfs/generation/kv_cache.hpp>
#include <llmfs/nn/init.hpp>

#include "evidence.hpp"

namespace {

using llmfs::attention::MultiHeadAttention;
using llmfs::generation::CacheShape;
using llmfs::generation::KvCache;
using llmfs::tensor::Tensor;

const ch37::Evidence& evidence() {
  static const ch37::Evidence gathered = [] {
    auto result = ch37::gather_evidence();
    if (!result) throw std::runtime_error(fmt::format("{}", result.error()));
    return *result;
  }();
  return gathered;
}

// x_s of the Predict input, and x turned by `angle` radians (RoPE on one pair).
std::vector<double> row(std::size_t s) {
  const Tensor x = ch37::fixture_input();
  return {x.values()[2 * s], x.values()[2 * s + 1]};
}
std::vector<double> turned(const std::vector<double>& x, double angle) {
  return {x[0] * std::cos(angle) - x[1] * std::sin(angle),
          x[0] * std::sin(angle) + x[1] * std::cos(angle)};
}

TEST(PredictCache, SlotsHoldKeysRotatedAtTheirPositionAndPlainValues) {
  const auto& p = evidence();
  ASSERT_EQ(p.fixture_slots.size(), 4u);
  for (std::size_t s = 0; s < 4; ++s) {
    const auto& slot = p.fixture_slots[s];
    EXPECT_EQ(slot.position, s);
    const auto key =
        turned(row(s), static_cast<double>(s));  // θ_0 = 1 rad per position
    EXPECT_NEAR(slot.key[0], key[0], 1e-15);
    EXPECT_NEAR(slot.key[1], key[1], 1e-15);
    EXPECT_EQ(slot.value, row(s));
    EXPECT_EQ(slot.unrotated_key, row(s));
  }
}

TEST(PredictCache, PrefillThenOneSlotPerStep) {
  const auto& steps = evidence().fixture_steps;
  ASSERT_EQ(steps.size(), 3u);
  // Prefill of L = 2: slots 0..1; then token 2 to slot 2 at position 2, and so on
  const std::size_t first[] = {0, 2, 3}, tokens[] = {2, 1, 1}, length[] = {2, 3, 4};
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(steps[i].first_position, first[i]);
    EXPECT_EQ(steps[i].tokens, tokens[i]);
    EXPECT_EQ(steps[i].length_after, length[i]);
    EXPECT_LE(steps[i].max_difference, 1e-12);
  }
}

TEST(PredictCache, LastQueryWeightsAndOutputByHand) {
  const auto& last = evidence().fixture_steps.back();
  // q_3 = R(3)x_3 against k_s = R(s)x_s: the score is x_3·R(s−3)x_s / √2
  std::vector<double> scores;
  double top = -1e300;
  for (std::size_t s = 0; s < 4; ++s) {
    const auto k = turned(row(s), static_cast<double>(s) - 3.0);
    scores.push_back((row(3)[0] * k[0] + row(3)[1] * k[1]) / std::sqrt(2.0));
    top = std::max(top, scores.back());
  }
  double total = 0.0;
  for (double& z : scores)
    total += (z = std::exp(z - top));
  std::vector<double> output(2, 0.0);
  for (std::size_t s = 0; s < 4; ++s) {
    const double w = scores[s] / total;
    EXPECT_NEAR(last.last_weights.values()[s], w, 1e-14);
    output[0] += w * row(s)[0];
    output[1] += w * row(s)[1];
  }
  EXPECT_NEAR(last.output.values()[0], output[0], 1e-14);
  EXPECT_NEAR(last.output.values()[1], output[1], 1e-14);
}

TEST(PredictCache, FifthTokenRefusedAndNothingChanges) {
  const auto& p = evidence();
  EXPECT_NE(p.fixture_refusal.find("cache capacity exceeded"), std::string::npos);
  EXPECT_EQ(p.fixture_length_after_refusal, 4u);
  // 2·B·h·T_max·d_h = 2·1·1·4·2 doubles, measured from the storage
  EXPECT_EQ(p.fixture_doubles, 16u);
  EXPECT_EQ(p.fixture_bytes, 16u * sizeof(double));
}

TEST(DemoLayer, EveryStepEqualsTheFullForwardAndOldSlotsNeverMove) {
  const auto& p = evidence();
  ASSERT_EQ(p.demo_steps.size(), ch37::kDemoCapacity - ch37::kDemoPrompt + 1);
  for (std::size_t i = 0; i < p.demo_steps.size(); ++i) {
    const auto& s = p.demo_steps[i];
    EXPECT_EQ(s.first_position, i == 0 ? 0 : ch37::kDemoPrompt + i - 1);
    EXPECT_EQ(s.length_after, ch37::kDemoPrompt + i);
    EXPECT_LE(s.max_difference, 1e-12);
  }
  EXPECT_EQ(p.old_slots_changed, 0u);
  EXPECT_EQ(p.demo_doubles,
            2 * ch37::kDemoBatch * ch37::kDemoCapacity * ch37::kDemoWidth);
  EXPECT_EQ(p.demo_bytes, p.demo_doubles * sizeof(double));
}

TEST(Property, RandomLayersAtEveryPromptLengthEqualTheFullForward) {
  llmfs::SplitMix64 draw(3737);
  for (std::uint64_t c = 0; c < 40; ++c) {
    const std::size_t batch = 1 + draw.next_u64() % 3, heads = 1 + draw.next_u64() % 4;
    const std::size_t width = heads * 2 * (1 + draw.next_u64() % 4);
    const std::size_t capacity = 1 + draw.next_u64() % 16;
    llmfs::autograd::Tape tape;
    llmfs::SplitMix64 rng(370000 + c);
    const auto layer =
        MultiHeadAttention::create(tape, "a", width, heads, capacity, 100.0, rng)
            .value();
    const Tensor x =
        llmfs::nn::uniform_fan_in({batch, capacity, width}, 1, rng).value();
    const Tensor full =
        layer.forward(tape.constant(x), 0).value().output.value().value();
    for (std::size_t prompt = 1; prompt <= capacity; ++prompt) {
      auto cache = KvCache::create({batch, heads, width / heads, capacity}).value();
      std::size_t begin = 0;
      for (std::size_t end = prompt; end <= capacity; begin = end, ++end) {
        const auto step = ch37::run_step(layer, x, full, begin, end, cache).value();
        ASSERT_LE(step.max_difference, 1e-12)
            << "case " << c << " prompt " << prompt << " at " << begin;
        ASSERT_EQ(cache.length(), end);
      }
    }
  }
}

TEST(Errors, EveryRefusalNamesItsStageAndCause) {
  const auto& errors = evidence().errors;
  ASSERT_EQ(errors.size(), 7u);
  const char* expected[][2] = {
      {"zero_size", "cache configuration: cache size must be nonzero"},
      {"capacity_exceeded", "cache append: cache capacity exceeded (0 filled + 4 new"},
      {"entry_shape", "cache append: keys and values have the wrong shape"},
      {"empty_entry", "cache append: at least one new token is needed"},
      {"input_shape", "incremental input: input has the wrong shape"},
      {"layer_mismatch", "incremental input: layer and cache differ"},
      {"query_shape", "cached attention: query has the wrong shape"}};
  for (std::size_t i = 0; i < errors.size(); ++i) {
    EXPECT_EQ(errors[i].first, expected[i][0]);
    EXPECT_EQ(errors[i].second.rfind(expected[i][1], 0), 0u) << errors[i].second;
  }
}

TEST(Exercises, AnswersMatchTheirDerivations) {
  const auto& e = evidence().exercises;
  EXPECT_EQ(e.gpt_layer_doubles, 2u * 1 * 12 * 64 * 1024);  // 1: 2·B·h·d_h·T_max
  EXPECT_EQ(e.decode_steps_accepted, 8u - 3u);              // 2: T_max − L
  EXPECT_NE(e.refusal.find("8 filled + 1 new > T_max 8"), std::string::npos);
  EXPECT_EQ(e.rows_cached, 8u);                // 3: one row per token
  EXPECT_EQ(e.rows_recomputed, 8u * 9u / 2u);  //    1 + 2 + … + 8
  EXPECT_LE(e.chunk_vs_single, 1e-12);         // 4
}

}  // namespace
