// Chapter 32
// The chapter's claims about the decoder model: the Predict fixture against its hand
// derivation, the parameter count against the formula on seeded random configurations,
// the fixed parameter order, determinism, validation with typed errors that change
// nothing, the loss against a plain log-softmax of the logits, causality, the two paths
// into the tied table, central differences, and the exercise answers.

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/core/splitmix64.hpp>
#include <llmfs/models/decoder.hpp>

#include "evidence.hpp"

namespace {

using llmfs::autograd::TokenGrid;
using llmfs::models::DecoderConfig;
using llmfs::models::DecoderErrorCode;
using llmfs::models::DecoderModel;
using llmfs::models::DecoderStage;
using llmfs::tensor::Tensor;

const ch32::Evidence& evidence() {
  static const ch32::Evidence gathered = [] {
    auto result = ch32::gather_evidence();
    if (!result) throw std::runtime_error(fmt::format("{}", result.error()));
    return *result;
  }();
  return gathered;
}

std::size_t formula(const DecoderConfig& c) {
  const std::size_t d = c.model_width;
  return c.vocab_size * d + c.layers * (2 * d + 4 * d * d + 3 * d * c.hidden_width) + d;
}

bool same_bits(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::bit_cast<std::uint64_t>(a.values()[i]) !=
        std::bit_cast<std::uint64_t>(b.values()[i]))
      return false;
  return true;
}

TEST(Fixture, LogitsAndLossMatchTheHandDerivation) {
  // n = 2e_i / √(1 + ε), z = n·(2I)ᵀ: 4/√(1+ε) on the input's own token, 0 elsewhere.
  const double own = 4.0 / std::sqrt(1.0 + 1e-6);
  const auto& e = evidence();
  const std::vector<int> ids = {0, 1, 2};
  for (std::size_t t = 0; t < 3; ++t)
    for (std::size_t v = 0; v < 4; ++v)
      EXPECT_NEAR(e.fixture_logits.values()[t * 4 + v],
                  static_cast<int>(v) == ids[t] ? own : 0.0, 1e-15);
  // Every target differs from the input: L = ln(e^own + 3) − 0 at each position.
  EXPECT_NEAR(e.fixture_loss, std::log(std::exp(own) + 3.0), 1e-14);
  EXPECT_EQ(e.fixture_predicted, (std::vector<std::size_t>{0, 1, 2}));
  // V·d + (2d + 4d² + 3·d·d_ff) + d = 16 + 120 + 4.
  EXPECT_EQ(e.fixture_parameters, 140u);
}

TEST(Parameters, CountEqualsTheFormulaOnRandomConfigurations) {
  llmfs::SplitMix64 rng(3200);
  for (int round = 0; round < 10; ++round) {
    const std::size_t heads = 1 + rng.next_u64() % 3;
    DecoderConfig c{.vocab_size = 2 + rng.next_u64() % 20,
                    .model_width = 2 * heads * (1 + rng.next_u64() % 3),
                    .heads = heads,
                    .layers = 1 + rng.next_u64() % 3,
                    .hidden_width = 1 + rng.next_u64() % 20,
                    .context_length = 1 + rng.next_u64() % 8,
                    .rope_base = 10000.0,
                    .epsilon = 1e-6,
                    .seed = rng.next_u64()};
    const auto model = DecoderModel::create(c);
    ASSERT_TRUE(model.has_value()) << fmt::format("{}", model.error());
    EXPECT_EQ(model->parameter_count(), formula(c));
    EXPECT_EQ(llmfs::models::decoder_parameter_count(c).value(), formula(c));
    // The fixed order: the specs, name for name and shape for shape.
    const auto specs = llmfs::models::decoder_parameter_specs(c);
    ASSERT_EQ(specs.size(), model->parameters().size());
    ASSERT_EQ(specs.size(), 2 + 9 * c.layers);
    for (std::size_t i = 0; i < specs.size(); ++i) {
      EXPECT_EQ(model->parameters().items()[i].name, specs[i].name);
      EXPECT_EQ(model->parameters().items()[i].value.shape(), specs[i].shape);
    }
  }
}

TEST(Parameters, NamesAreTheDocumentedOnes) {
  const auto specs = llmfs::models::decoder_parameter_specs(ch32::kDemoConfig);
  EXPECT_EQ(specs.front().name, "embedding.weight");
  EXPECT_EQ(specs[1].name, "blocks.0.attention_norm.weight");
  EXPECT_EQ(specs[2].name, "blocks.0.attention.query.weight");
  EXPECT_EQ(specs[5].name, "blocks.0.attention.output.weight");
  EXPECT_EQ(specs[6].name, "blocks.0.ffn_norm.weight");
  EXPECT_EQ(specs[9].name, "blocks.0.ffn.down.weight");
  EXPECT_EQ(specs[10].name, "blocks.1.attention_norm.weight");
  EXPECT_EQ(specs.back().name, "final_norm.weight");
  EXPECT_EQ(evidence().parameter_count,
            32u * 16 + 2 * (32 + 4 * 256 + 3 * 16 * 48) + 16);
  EXPECT_EQ(evidence().formula_count, evidence().parameter_count);
}

TEST(Create, TheSeedAloneDecidesTheValues) {
  const auto a = DecoderModel::create(ch32::kDemoConfig).value().values().value();
  const auto b = DecoderModel::create(ch32::kDemoConfig).value().values().value();
  DecoderConfig other = ch32::kDemoConfig;
  other.seed = 33;
  const auto c = DecoderModel::create(other).value().values().value();
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    EXPECT_TRUE(same_bits(a[i], b[i]));
  EXPECT_FALSE(same_bits(a[0], c[0]));
  // Gains start at 1; the table, drawn N(0, 1/d), has RMS near 1/√d = 0.25.
  for (double g : a[1].values())
    EXPECT_EQ(g, 1.0);
  double squares = 0.0;
  for (double v : a[0].values())
    squares += v * v;
  EXPECT_NEAR(std::sqrt(squares / static_cast<double>(a[0].size())), 0.25, 0.03);
}

TEST(Validate, EveryRefusalIsTypedAndNamesItsStage) {
  auto code = [](auto change) {
    DecoderConfig c = ch32::kDemoConfig;
    change(c);
    const auto r = llmfs::models::validate(c);
    EXPECT_FALSE(r.has_value());
    EXPECT_EQ(r.error().stage, DecoderStage::configuration);
    return r.error().code;
  };
  EXPECT_EQ(code([](DecoderConfig& c) { c.layers = 0; }), DecoderErrorCode::zero_size);
  EXPECT_EQ(code([](DecoderConfig& c) { c.context_length = 0; }),
            DecoderErrorCode::zero_size);
  EXPECT_EQ(code([](DecoderConfig& c) { c.heads = 3; }),
            DecoderErrorCode::width_not_divisible);
  EXPECT_EQ(code([](DecoderConfig& c) { c.heads = 16; }),
            DecoderErrorCode::odd_head_width);
  EXPECT_EQ(code([](DecoderConfig& c) { c.rope_base = NAN; }),
            DecoderErrorCode::bad_rope_base);
  EXPECT_EQ(code([](DecoderConfig& c) { c.epsilon = -1.0; }),
            DecoderErrorCode::bad_epsilon);
  EXPECT_EQ(code([](DecoderConfig& c) { c.vocab_size = SIZE_MAX / 4; }),
            DecoderErrorCode::size_overflow);
  EXPECT_EQ(evidence().errors.size(), 10u);
}

TEST(Inputs, BadIdsAndTargetsAreRefusedBeforeTheTapeMoves) {
  const auto model = DecoderModel::create(ch32::kDemoConfig).value();
  const std::size_t before = model.tape().node_count();
  const auto negative = model.forward({1, 2, {0, -1}});
  ASSERT_FALSE(negative.has_value());
  EXPECT_EQ(negative.error().code, DecoderErrorCode::token_out_of_range);
  EXPECT_EQ(model.forward({2, 3, {0, 1, 2}}).error().code,
            DecoderErrorCode::token_shape);
  EXPECT_EQ(model.forward({0, 0, {}}).error().code, DecoderErrorCode::token_shape);
  EXPECT_EQ(model.loss({1, 2, {0, 1}}, {1, 2, {0, 99}}).error().code,
            DecoderErrorCode::token_out_of_range);
  EXPECT_EQ(model.tape().node_count(), before);
}

TEST(Values, ARejectedSetLeavesTheModelUnchanged) {
  auto model = DecoderModel::create(ch32::kDemoConfig).value();
  const auto before = model.values().value();
  auto wrong = before;
  wrong[3] = Tensor::zeros({2, 2});
  const auto refused = model.set_values(wrong);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code, DecoderErrorCode::value_shape);
  const auto after = model.values().value();
  for (std::size_t i = 0; i < before.size(); ++i)
    EXPECT_TRUE(same_bits(before[i], after[i]));
  // An accepted set moves the model to a fresh tape holding the new values.
  auto doubled = before;
  for (double& v : doubled[0].mutable_values())
    v *= 2.0;
  const auto old_tape = model.tape();
  ASSERT_TRUE(model.set_values(doubled).has_value());
  EXPECT_FALSE(model.tape() == old_tape);
  EXPECT_TRUE(same_bits(model.values().value()[0], doubled[0]));
  EXPECT_EQ(evidence().reset_mismatches, 0u);
}

TEST(Loss, IsTheMeanNegativeLogSoftmaxOfTheTargets) {
  const auto& e = evidence();
  const std::size_t v = ch32::kDemoConfig.vocab_size;
  double total = 0.0;
  for (std::size_t p = 0; p < e.targets.ids.size(); ++p) {
    const auto row = e.logits.values().subspan(p * v, v);
    const double top = *std::ranges::max_element(row);
    double z = 0.0;
    for (double x : row)
      z += std::exp(x - top);
    total += top + std::log(z) - row[static_cast<std::size_t>(e.targets.ids[p])];
  }
  EXPECT_NEAR(e.loss, total / static_cast<double>(e.targets.ids.size()), 1e-14);
  EXPECT_NEAR(e.log_vocab, std::log(32.0), 1e-15);
  EXPECT_LT(std::abs(e.loss - e.log_vocab), 0.5);  // untrained: near uniform
}

TEST(Claims, OnlyTheChangedPositionsLogitsMove) {
  std::vector<std::size_t> expected(16, 0);
  expected[7] = 32;
  EXPECT_EQ(evidence().changed_per_position, expected);
}

TEST(Claims, TheTiedTableLearnsAlongBothPaths) {
  const auto& e = evidence();
  EXPECT_GT(e.output_path_norm, 0.0);
  EXPECT_GT(e.input_path_norm, 0.0);
  // Only rows some input read receive a lookup gradient.
  EXPECT_EQ(e.rows_with_gradient, e.rows_read);
  EXPECT_EQ(e.rows_read,
            std::set<int>(e.inputs.ids.begin(), e.inputs.ids.end()).size());
  EXPECT_LE(e.table_gradient_norm, e.output_path_norm + e.input_path_norm + 1e-12);
}

TEST(Claims, EveryParameterPassesCentralDifferences) {
  const auto& g = evidence().gradcheck;
  EXPECT_EQ(g.inputs.size(), 11u);
  EXPECT_EQ(g.coordinates(), 5u * 4 + (2 * 4 + 4 * 16 + 3 * 16) + 4);
  EXPECT_TRUE(g.passed());
}

TEST(Exercises, AnswersAreComputedAndMatchTheFormulas) {
  const auto& x = evidence().exercises;
  EXPECT_EQ(x.gpt_sized_tied,
            50257u * 768 + 12u * (2 * 768 + 4u * 768 * 768 + 3u * 768 * 2048) + 768);
  EXPECT_EQ(x.gpt_sized_untied_extra, 50257u * 768);
  EXPECT_NEAR(x.demo_embedding_share, 512.0 / 7248.0, 1e-15);
  ASSERT_EQ(x.configs.size(), 4u);
  EXPECT_EQ(x.configs[0].second, "accepted");
  EXPECT_EQ(x.configs[1].second, "head width must be even for RoPE");
  EXPECT_EQ(x.configs[2].second, "model width not divisible by head count");
  EXPECT_EQ(x.configs[3].second, "accepted");
  EXPECT_NEAR(x.loss_minus_log_vocab, evidence().loss - std::log(32.0), 1e-15);
}

}  // namespace
