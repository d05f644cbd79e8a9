#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <llmfs/attention/multi_head.hpp>
#include <llmfs/autograd/ops.hpp>
#include <llmfs/autograd/tape_gradcheck.hpp>
#include <llmfs/nn/init.hpp>

#include "attention/multi_head_fixture.hpp"
#include "attention/test_util.hpp"
#include "support/reference_data.hpp"

namespace {

using namespace llmfs::testing::multi_head;

TEST(MultiHeadAttention, FixtureStagesMatchTheSeedValues) {
  auto run = run_fixture();
  const auto& f = run->forward;
  const double c1 = 0.540302, s1 = 0.841471, c2 = -0.416147, s2 = 0.909297;
  const std::vector<double> projected{1, 0, c1, -s1, c2, -s2, 1, 0, 0, 1, 1, 1};
  for (const auto* heads :
       {&f.projected_query_heads, &f.projected_key_heads, &f.projected_value_heads}) {
    EXPECT_EQ(heads->shape(), (Shape{1, 2, 3, 2}));
    llmfs::testing::expect_values_near(value_of(*heads), projected, 1e-6);
  }
  const std::vector<double> rotated{1, 0, 1,         0,        1,         0,
                                    1, 0, -0.841471, 0.540302, -1.325444, 0.493151};
  llmfs::testing::expect_values_near(value_of(f.rotated_query_heads), rotated, 1e-6);
  llmfs::testing::expect_values_near(value_of(f.rotated_key_heads), rotated, 1e-6);
  EXPECT_EQ(f.attention_weights.shape(), (Shape{1, 2, 3, 3}));
  llmfs::testing::expect_values_near(
      value_of(f.attention_weights),
      std::vector<double>{1, 0, 0, 0.5, 0.5, 0, 0.333333, 0.333333, 0.333333,  //
                          1, 0, 0, 0.213809, 0.786191, 0, 0.054696, 0.370956, 0.574348},
      1e-6);
  EXPECT_EQ(f.head_outputs.shape(), (Shape{1, 2, 3, 2}));
  llmfs::testing::expect_values_near(
      value_of(f.head_outputs),
      std::vector<double>{1, 0, 0.770151, -0.420735, 0.374718, -0.583589,  //
                          1, 0, 0.213809, 0.786191, 0.629044, 0.945304},
      1e-6);
  EXPECT_EQ(f.merged.shape(), (Shape{1, 3, 4}));
  llmfs::testing::expect_values_near(
      value_of(f.merged),
      std::vector<double>{1, 0, 1, 0, 0.770151, -0.420735, 0.213809, 0.786191,  //
                          0.374718, -0.583589, 0.629044, 0.945304},
      1e-6);
  EXPECT_EQ(f.output.shape(), (Shape{1, 3, 4}));
  llmfs::testing::expect_values_near(
      value_of(f.output),
      std::vector<double>{1, 0, 1, 0, 0.213809, 0.786191, 0.770151, -0.420735,  //
                          0.629044, 0.945304, 0.374718, -0.583589},
      1e-6);
}

// Hand derivation for token position 1.
// Head 0: rotated q_1 = k_1 = R(1)·[cos 1, −sin 1] = [1, 0] = k_0, so both visible
// scores are 1/√2 and the weights are [1/2, 1/2]; the value rows are the unrotated
// inputs, so H⁰_1 = ½[1,0] + ½[cos 1, −sin 1] = [(1 + cos 1)/2, −(sin 1)/2]. Head 1:
// q_1 = R(1)·[0,1] = [−sin 1, cos 1], k_0 = [1,0], k_1 = q_1: scaled scores [−sin 1/√2,
// 1/√2]; weights [1/(1+e^Δ), e^Δ/(1+e^Δ)] with Δ = (1 + sin 1)/√2; values [1,0] and
// [0,1], so H¹_1 equals the weights. W_O swaps the blocks: output_1 = [H¹_1, H⁰_1].
TEST(MultiHeadAttention, TokenOneMatchesTheHandDerivation) {
  auto run = run_fixture();
  const double delta = (1.0 + std::sin(1.0)) / std::sqrt(2.0);
  const double w0 = 1.0 / (1.0 + std::exp(delta));
  const double w1 = std::exp(delta) / (1.0 + std::exp(delta));
  const Tensor output = value_of(run->forward.output);
  const std::vector<double> expected{w0, w1, (1.0 + std::cos(1.0)) / 2.0,
                                     -std::sin(1.0) / 2.0};
  for (std::size_t c = 0; c < 4; ++c)
    EXPECT_NEAR(output.values()[4 + c], expected[c], 1e-15);
  EXPECT_NEAR(-std::sin(1.0) / std::sqrt(2.0), -0.595010,
              1e-6);  // the seed's visible score
  EXPECT_NEAR(w0, 0.213809, 1e-6);
}

TEST(MultiHeadAttention, FixtureMatchesPyTorchReference) {
  const auto data = llmfs::testing::load_reference_case("ch30_fixture");
  auto run = run_fixture();
  ASSERT_TRUE(
      llmfs::autograd::backward(run->forward.output, fixture_upstream()).has_value());
  auto close = [&](const Tensor& actual, std::string_view name) {
    const auto d = llmfs::testing::discrepancy(actual.values(), data.at(name).values);
    EXPECT_TRUE(d.same_size) << name;
    EXPECT_LE(d.relative, 1e-12) << name;
  };
  const auto s = stages(run->forward);
  const auto g = gradients(*run);
  close(s[0], "Q_heads");
  close(s[1], "K_heads");
  close(s[2], "V_heads");
  close(s[3], "Q_rotated");
  close(s[4], "K_rotated");
  close(s[5], "weights");
  close(s[6], "head_outputs");
  close(s[7], "merged");
  close(s[8], "output");
  close(g[0], "grad_X");
  close(g[1], "grad_W_Q");
  close(g[2], "grad_W_K");
  close(g[3], "grad_W_V");
  close(g[4], "grad_W_O");
}

TEST(MultiHeadAttention, GradientsForInputAndAllFourMatricesExistAndAreFinite) {
  auto run = run_fixture();
  ASSERT_TRUE(
      llmfs::autograd::backward(run->forward.output, fixture_upstream()).has_value());
  const auto g = gradients(*run);
  ASSERT_EQ(g.size(), 5u);
  EXPECT_EQ(g[0].shape(), (Shape{1, 3, 4}));
  for (std::size_t i = 1; i < 5; ++i)
    EXPECT_EQ(g[i].shape(), (Shape{4, 4}));
  for (const auto& gradient : g) {
    EXPECT_TRUE(llmfs::testing::all_finite(gradient));
    bool nonzero = false;
    for (double v : gradient.values())
      nonzero |= v != 0.0;
    EXPECT_TRUE(nonzero);
  }
}

TEST(MultiHeadAttention, GradientsPassCentralDifferencesOnAll76Coordinates) {
  const Tensor upstream = fixture_upstream();
  auto loss = [&](Tape& tape, std::span<const TensorValue> in)
      -> std::expected<TensorValue, llmfs::autograd::AutogradError> {
    auto layer = MultiHeadAttention::from_parameters(
        {"attention.query.weight", in[1]}, {"attention.key.weight", in[2]},
        {"attention.value.weight", in[3]}, {"attention.output.weight", in[4]}, 2,
        kMaxPositions, kRopeBase);
    if (!layer)
      return std::unexpected(
          llmfs::autograd::AutogradError{AutogradErrorCode::invalid_argument,
                                         "layer",
                                         fmt::format("{}", layer.error()),
                                         {}});
    auto forward = layer->forward(in[0], 0);
    if (!forward)
      return std::unexpected(
          llmfs::autograd::AutogradError{AutogradErrorCode::invalid_argument,
                                         "forward",
                                         fmt::format("{}", forward.error()),
                                         {}});
    auto weighted = llmfs::autograd::multiply(forward->output, tape.constant(upstream));
    if (!weighted) return std::unexpected(weighted.error());
    return llmfs::autograd::sum(*weighted);
  };
  const std::vector<Tensor> inputs{fixture_input(), identity(), identity(), identity(),
                                   block_swap()};
  auto report = llmfs::autograd::check_tape_gradients(
      loss, inputs,
      {.step = 1e-6, .absolute_tolerance = 8e-6, .relative_tolerance = 0.0});
  ASSERT_TRUE(report.has_value()) << fmt::format("{}", report.error());
  EXPECT_EQ(report->coordinates(), 12u + 4u * 16u);
  ASSERT_EQ(report->inputs.size(), 5u);
  EXPECT_EQ(report->inputs[0].coordinates, 12u);
  for (std::size_t i = 1; i < 5; ++i)
    EXPECT_EQ(report->inputs[i].coordinates, 16u);
  EXPECT_TRUE(report->passed()) << "max error " << report->max_abs_error();
}

TEST(MultiHeadAttention, HeadZeroTableIsUniformAndHeadOneIsNot) {
  auto run = run_fixture();
  const Tensor w = value_of(run->forward.attention_weights);
  const std::vector<double> uniform{1, 0, 0, 0.5, 0.5, 0, 1.0 / 3, 1.0 / 3, 1.0 / 3};
  for (std::size_t i = 0; i < 9; ++i)
    EXPECT_NEAR(w.values()[i], uniform[i], 1e-12) << i;
  EXPECT_GT(std::abs(w.values()[9 + 3] - w.values()[9 + 4]),
            0.5);  // head 1, row 1: 0.21 vs 0.79
  EXPECT_GT(std::abs(w.values()[9 + 6] - w.values()[9 + 8]),
            0.5);  // head 1, row 2: 0.05 vs 0.57
}

TEST(MultiHeadAttention, FutureProbabilitiesAreExactlyZeroInEveryHead) {
  auto run = run_fixture();
  const Tensor w = value_of(run->forward.attention_weights);
  for (std::size_t head = 0; head < 2; ++head) {
    for (std::size_t i = 0; i < 3; ++i) {
      double row = 0.0;
      for (std::size_t j = 0; j < 3; ++j) {
        const double p = w.values()[(head * 3 + i) * 3 + j];
        row += p;
        if (j > i) {
          EXPECT_TRUE(same_bits(p, 0.0)) << head << "," << i << "," << j;
        }
      }
      EXPECT_NEAR(row, 1.0, 1e-15);
    }
  }
}

// The per-head scores are recomputed here by a naive loop from the rotated heads the
// layer exposes: score[b,h,i,j] = Σ_k Q̃[b,h,i,k]·K̃[b,h,j,k] / √d_h. The masked scores
// equal them on and below the diagonal and are exactly −∞ above it.
TEST(MultiHeadAttention,
     ExposedScoresAreScaledRotatedDotsAndMaskedScoresHideTheFuture) {
  constexpr std::size_t batch = 2, heads = 2, tokens = 4, width = 8, head_width = 4;
  Tape tape;
  SplitMix64 rng(2024);
  auto layer =
      MultiHeadAttention::create(tape, "attention", width, heads, 16, kRopeBase, rng);
  ASSERT_TRUE(layer.has_value()) << fmt::format("{}", layer.error());
  auto drawn = llmfs::nn::uniform_fan_in(Shape{batch, tokens, width}, 1, rng);
  ASSERT_TRUE(drawn.has_value());
  auto forward = layer->forward(tape.constant(*drawn), 3);
  ASSERT_TRUE(forward.has_value()) << fmt::format("{}", forward.error());

  const Tensor q = value_of(forward->rotated_query_heads);
  const Tensor k = value_of(forward->rotated_key_heads);
  const Tensor scores = value_of(forward->scores);
  const Tensor masked = value_of(forward->masked_scores);
  ASSERT_EQ(scores.shape(), (Shape{batch, heads, tokens, tokens}));
  ASSERT_EQ(masked.shape(), (Shape{batch, heads, tokens, tokens}));
  const double inv_sqrt = 1.0 / std::sqrt(static_cast<double>(head_width));
  const double inf = std::numeric_limits<double>::infinity();
  for (std::size_t b = 0; b < batch; ++b) {
    for (std::size_t h = 0; h < heads; ++h) {
      const std::size_t lane = (b * heads + h) * tokens;
      for (std::size_t i = 0; i < tokens; ++i) {
        for (std::size_t j = 0; j < tokens; ++j) {
          double dot = 0.0;
          for (std::size_t c = 0; c < head_width; ++c) {
            dot += q.values()[(lane + i) * head_width + c] *
                   k.values()[(lane + j) * head_width + c];
          }
          const std::size_t at = (lane + i) * tokens + j;
          EXPECT_NEAR(scores.values()[at], dot * inv_sqrt, 1e-14) << b << h << i << j;
          if (j > i) {
            EXPECT_EQ(masked.values()[at], -inf) << b << h << i << j;
          } else {
            EXPECT_EQ(masked.values()[at], scores.values()[at]) << b << h << i << j;
          }
        }
      }
    }
  }
  // The weights are the row softmax of exactly these masked scores.
  const Tensor weights = value_of(forward->attention_weights);
  for (std::size_t row = 0; row < batch * heads * tokens; ++row) {
    const std::size_t i = row % tokens;
    double total = 0.0;
    for (std::size_t j = 0; j <= i; ++j)
      total += std::exp(masked.values()[row * tokens + j]);
    for (std::size_t j = 0; j <= i; ++j) {
      EXPECT_NEAR(weights.values()[row * tokens + j],
                  std::exp(masked.values()[row * tokens + j]) / total, 1e-14);
    }
  }
}

TEST(MultiHeadAttention, HeadsStayIsolatedUntilTheOutputProjection) {
  auto base = run_fixture();
  Tensor nudged_input = fixture_input();
  nudged_input.mutable_values()[0] += 0.25;  // a head-0 feature of token 0
  auto nudged = run_fixture(nudged_input);
  const Tensor a = value_of(base->forward.head_outputs);
  const Tensor b = value_of(nudged->forward.head_outputs);
  for (std::size_t i = 6; i < 12; ++i)
    EXPECT_TRUE(same_bits(a.values()[i], b.values()[i])) << i;
  bool head_zero_changed = false;
  for (std::size_t i = 0; i < 6; ++i)
    head_zero_changed |= a.values()[i] != b.values()[i];
  EXPECT_TRUE(head_zero_changed);
  // With the block swap, head 1 lands in output columns 0,1: those stay bitwise too.
  const Tensor oa = value_of(base->forward.output);
  const Tensor ob = value_of(nudged->forward.output);
  for (std::size_t t = 0; t < 3; ++t)
    for (std::size_t c = 0; c < 2; ++c)
      EXPECT_TRUE(same_bits(oa.values()[t * 4 + c], ob.values()[t * 4 + c]));
}

TEST(MultiHeadAttention, ChangingTheLastTokenLeavesEarlierRowsBitwiseUnchanged) {
  auto base = run_fixture();
  Tensor changed_input = fixture_input();
  const double last[4] = {3, -2, -1, 4};
  for (std::size_t c = 0; c < 4; ++c)
    changed_input.mutable_values()[8 + c] = last[c];
  auto changed = run_fixture(changed_input);
  const Tensor a = value_of(base->forward.output);
  const Tensor b = value_of(changed->forward.output);
  for (std::size_t i = 0; i < 8; ++i)
    EXPECT_TRUE(same_bits(a.values()[i], b.values()[i])) << i;
  bool row_two_changed = false;
  for (std::size_t i = 8; i < 12; ++i)
    row_two_changed |= a.values()[i] != b.values()[i];
  EXPECT_TRUE(row_two_changed);
}

TEST(MultiHeadAttention, SharedPositionOffsetPreservesAttentionWeights) {
  auto at_zero = run_fixture(fixture_input(), 0);
  auto at_three =
      run_fixture(fixture_input(), 3);  // positions [3, 6): exactly the capacity
  const Tensor a = value_of(at_zero->forward.attention_weights);
  const Tensor b = value_of(at_three->forward.attention_weights);
  for (std::size_t i = 0; i < a.size(); ++i)
    EXPECT_NEAR(a.values()[i], b.values()[i], 1e-12) << i;
  // The rotated rows themselves do move.
  EXPECT_GT(std::abs(value_of(at_zero->forward.rotated_query_heads).values()[0] -
                     value_of(at_three->forward.rotated_query_heads).values()[0]),
            0.5);
}

TEST(MultiHeadAttention, EmptyBatchRunsForwardAndBackward) {
  auto run = run_fixture(Tensor::zeros(Shape{0, 3, 4}));
  ASSERT_TRUE(run->layer.has_value());
  EXPECT_EQ(run->forward.attention_weights.shape(), (Shape{0, 2, 3, 3}));
  EXPECT_EQ(run->forward.output.shape(), (Shape{0, 3, 4}));
  ASSERT_TRUE(
      llmfs::autograd::backward(run->forward.output, Tensor::zeros(Shape{0, 3, 4}))
          .has_value());
  const auto g = gradients(*run);
  EXPECT_EQ(g[0].shape(), (Shape{0, 3, 4}));
  for (std::size_t i = 1; i < 5; ++i)
    EXPECT_EQ(g[i], Tensor::zeros(Shape{4, 4}));
}

TEST(MultiHeadAttention, SingleTokenAttendsOnlyToItself) {
  auto run = run_fixture(make(Shape{1, 1, 4}, {1, 0, 1, 0}));
  EXPECT_EQ(run->forward.attention_weights.shape(), (Shape{1, 2, 1, 1}));
  EXPECT_EQ(value_of(run->forward.attention_weights), make(Shape{1, 2, 1, 1}, {1, 1}));
  EXPECT_EQ(value_of(run->forward.output), make(Shape{1, 1, 4}, {1, 0, 1, 0}));
}

TEST(MultiHeadAttention, ParametersHaveStableNamesShapesAndDistinctNodes) {
  auto run = run_fixture();
  const auto& parameters = run->layer->parameters();
  ASSERT_EQ(parameters.size(), 4u);
  const std::vector<std::string> names{"attention.query.weight", "attention.key.weight",
                                       "attention.value.weight",
                                       "attention.output.weight"};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(parameters.items()[i].name, names[i]);
    EXPECT_EQ(parameters.items()[i].value.shape(), (Shape{4, 4}));
    for (std::size_t j = 0; j < i; ++j) {
      EXPECT_NE(parameters.items()[i].value.node_id(),
                parameters.items()[j].value.node_id());
    }
  }
  EXPECT_EQ(run->layer->parameter_count(), 64u);
  EXPECT_FALSE(run->layer->output_projection().bias().has_value());
  EXPECT_EQ(run->layer->head_width(), 2u);

  Tape tape;
  SplitMix64 rng(2026);
  auto created = MultiHeadAttention::create(tape, "attention", 4, 2, kMaxPositions,
                                            kRopeBase, rng);
  ASSERT_TRUE(created.has_value());
  for (std::size_t i = 0; i < 4; ++i)
    EXPECT_EQ(created->parameters().items()[i].name, names[i]);
}

TEST(MultiHeadAttention, CreateDrawsQueryKeyValueOutputInOrderAndCommitsTheGenerator) {
  Tape tape;
  SplitMix64 rng(2026);
  SplitMix64 reference(2026);
  auto layer = MultiHeadAttention::create(tape, "attention", 4, 2, kMaxPositions,
                                          kRopeBase, rng);
  ASSERT_TRUE(layer.has_value());
  for (const auto& parameter : layer->parameters()) {
    EXPECT_EQ(value_of(parameter.value),
              *llmfs::nn::uniform_fan_in(Shape{4, 4}, 4, reference));
  }
  EXPECT_EQ(rng, reference);  // 64 draws, no more
}

TEST(MultiHeadAttention, RejectedCreateLeavesTheGeneratorUntouched) {
  struct Case {
    std::size_t width, heads, capacity;
    double base;
    MultiHeadErrorCode code;
  };
  const std::vector<Case> cases{
      {0, 2, 6, 100.0, MultiHeadErrorCode::zero_model_width},
      {4, 0, 6, 100.0, MultiHeadErrorCode::zero_heads},
      {4, 3, 6, 100.0, MultiHeadErrorCode::width_not_divisible},
      {4, 4, 6, 100.0, MultiHeadErrorCode::odd_head_width},
      {4, 2, 6, 1.0, MultiHeadErrorCode::stage_failed},  // RoPE base must exceed 1
      {4, 2, 0, 100.0,
       MultiHeadErrorCode::stage_failed},  // RoPE capacity must be positive
  };
  for (const auto& c : cases) {
    Tape tape;
    SplitMix64 rng(77);
    auto layer = MultiHeadAttention::create(tape, "attention", c.width, c.heads,
                                            c.capacity, c.base, rng);
    ASSERT_FALSE(layer.has_value());
    EXPECT_EQ(layer.error().code, c.code) << fmt::format("{}", layer.error());
    EXPECT_EQ(layer.error().stage, MultiHeadStage::configuration);
    EXPECT_EQ(rng, SplitMix64(77));
    EXPECT_EQ(tape.node_count(), 0u);
  }
  Tape released;
  released.release();
  SplitMix64 rng(77);
  auto dead = MultiHeadAttention::create(released, "attention", 4, 2, kMaxPositions,
                                         kRopeBase, rng);
  ASSERT_FALSE(dead.has_value());
  EXPECT_EQ(dead.error().code, MultiHeadErrorCode::stage_failed);
  EXPECT_EQ(dead.error().stage, MultiHeadStage::qkv_projection);
  EXPECT_EQ(rng, SplitMix64(77));
}

TEST(MultiHeadAttention, HugeCapacityIsATypedRopeErrorInCreateAndFromParameters) {
  const std::size_t huge = std::numeric_limits<std::size_t>::max();
  Tape tape;
  SplitMix64 rng(77);
  auto created =
      MultiHeadAttention::create(tape, "attention", 4, 2, huge, kRopeBase, rng);
  ASSERT_FALSE(created.has_value());
  EXPECT_EQ(created.error().code, MultiHeadErrorCode::stage_failed);
  EXPECT_EQ(created.error().stage, MultiHeadStage::configuration);
  ASSERT_TRUE(std::holds_alternative<llmfs::attention::RopeError>(
      created.error().cause.value()));
  EXPECT_EQ(std::get<llmfs::attention::RopeError>(created.error().cause.value()).code,
            llmfs::attention::RopeErrorCode::capacity_too_large);
  EXPECT_EQ(rng, SplitMix64(77));
  EXPECT_EQ(tape.node_count(), 0u);

  auto w = [&] { return tape.parameter(identity()); };
  auto loaded = MultiHeadAttention::from_parameters({"q", w()}, {"k", w()}, {"v", w()},
                                                    {"o", w()}, 2, huge, kRopeBase);
  ASSERT_FALSE(loaded.has_value());
  EXPECT_EQ(loaded.error().stage, MultiHeadStage::configuration);
  ASSERT_TRUE(std::holds_alternative<llmfs::attention::RopeError>(
      loaded.error().cause.value()));
  EXPECT_EQ(std::get<llmfs::attention::RopeError>(loaded.error().cause.value()).code,
            llmfs::attention::RopeErrorCode::capacity_too_large);
}

TEST(MultiHeadAttention, HugeModelWidthIsATypedProjectionError) {
  // 2^31 · 2^31 = 2^62 elements fits std::size_t but not a std::vector<double>.
  const std::size_t width = std::size_t{1} << 31;
  Tape tape;
  SplitMix64 rng(77);
  auto layer =
      MultiHeadAttention::create(tape, "attention", width, 2, NoPositions{}, rng);
  ASSERT_FALSE(layer.has_value());
  EXPECT_EQ(layer.error().stage, MultiHeadStage::qkv_projection);
  ASSERT_TRUE(std::holds_alternative<llmfs::nn::NnError>(layer.error().cause.value()));
  EXPECT_EQ(std::get<llmfs::nn::NnError>(layer.error().cause.value()).code,
            llmfs::nn::NnErrorCode::size_overflow);
  EXPECT_EQ(rng, SplitMix64(77));
}

TEST(MultiHeadAttention, ConfigurationErrorsFormatWithStageAndCause) {
  Tape tape;
  SplitMix64 rng(1);
  auto odd = MultiHeadAttention::create(tape, "attention", 4, 4, kMaxPositions,
                                        kRopeBase, rng);
  EXPECT_EQ(fmt::format("{}", odd.error()),
            "multi-head attention, configuration: head width must be even for RoPE "
            "(d_model 4, 4 heads: d_h 1)");
  auto base =
      MultiHeadAttention::create(tape, "attention", 4, 2, kMaxPositions, 0.5, rng);
  ASSERT_TRUE(
      std::holds_alternative<llmfs::attention::RopeError>(base.error().cause.value()));
  EXPECT_EQ(std::get<llmfs::attention::RopeError>(base.error().cause.value()).code,
            llmfs::attention::RopeErrorCode::invalid_base);
  EXPECT_EQ(fmt::format("{}", base.error()),
            "multi-head attention, configuration: RoPE configuration: base must be "
            "finite and "
            "greater than 1 (width 2, max_positions 6, base 0.5)");
}

TEST(MultiHeadAttention, FromParametersRejectsWrongMatrixShapesAndDuplicates) {
  Tape tape;
  auto w = [&] { return tape.parameter(identity()); };
  auto narrow_output = MultiHeadAttention::from_parameters(
      {"q", w()}, {"k", w()}, {"v", w()},
      {"o", tape.parameter(Tensor::zeros(Shape{4, 2}))}, 2, kMaxPositions, kRopeBase);
  ASSERT_FALSE(narrow_output.has_value());
  EXPECT_EQ(narrow_output.error().code, MultiHeadErrorCode::parameter_shape);
  auto narrow_qkv = MultiHeadAttention::from_parameters(
      {"q", tape.parameter(Tensor::zeros(Shape{4, 2}))},
      {"k", tape.parameter(Tensor::zeros(Shape{4, 2}))},
      {"v", tape.parameter(Tensor::zeros(Shape{4, 2}))}, {"o", w()}, 2, kMaxPositions,
      kRopeBase);
  ASSERT_FALSE(narrow_qkv.has_value());
  EXPECT_EQ(narrow_qkv.error().code, MultiHeadErrorCode::parameter_shape);
  auto mismatched = MultiHeadAttention::from_parameters(
      {"q", w()}, {"k", tape.parameter(Tensor::zeros(Shape{4, 2}))}, {"v", w()},
      {"o", w()}, 2, kMaxPositions, kRopeBase);
  ASSERT_FALSE(mismatched.has_value());
  EXPECT_EQ(mismatched.error().code, MultiHeadErrorCode::stage_failed);
  EXPECT_EQ(mismatched.error().stage, MultiHeadStage::qkv_projection);
  auto duplicate = MultiHeadAttention::from_parameters(
      {"q", w()}, {"k", w()}, {"v", w()}, {"q", w()}, 2, kMaxPositions, kRopeBase);
  ASSERT_FALSE(duplicate.has_value());
  EXPECT_EQ(duplicate.error().stage, MultiHeadStage::parameters);
  ASSERT_TRUE(
      std::holds_alternative<llmfs::nn::NnError>(duplicate.error().cause.value()));
  EXPECT_EQ(std::get<llmfs::nn::NnError>(duplicate.error().cause.value()).code,
            llmfs::nn::NnErrorCode::duplicate_name);
  auto zero_heads = MultiHeadAttention::from_parameters(
      {"q", w()}, {"k", w()}, {"v", w()}, {"o", w()}, 0, kMaxPositions, kRopeBase);
  ASSERT_FALSE(zero_heads.has_value());
  EXPECT_EQ(zero_heads.error().code, MultiHeadErrorCode::zero_heads);
}

TEST(MultiHeadAttention, ForwardRejectsBadInputsInTheSeedsOrder) {
  auto run = run_fixture();
  const auto& layer = *run->layer;
  Tape& tape = run->tape;
  auto code = [&](const TensorValue& x, std::size_t offset) {
    auto forward = layer.forward(x, offset);
    EXPECT_FALSE(forward.has_value());
    return forward ? MultiHeadErrorCode::stage_failed : forward.error().code;
  };
  // rank before width before tokens before positions
  EXPECT_EQ(code(tape.constant(Tensor::zeros(Shape{3, 5})), 99),
            MultiHeadErrorCode::input_rank);
  EXPECT_EQ(code(tape.constant(Tensor::zeros(Shape{1, 0, 5})), 99),
            MultiHeadErrorCode::input_width);
  EXPECT_EQ(code(tape.constant(Tensor::zeros(Shape{1, 0, 4})), 99),
            MultiHeadErrorCode::empty_tokens);
  auto x = tape.constant(fixture_input());
  EXPECT_EQ(code(x, std::numeric_limits<std::size_t>::max() - 1),
            MultiHeadErrorCode::offset_overflow);
  EXPECT_EQ(code(x, 4), MultiHeadErrorCode::position_range);
  auto range = layer.forward(x, 4);
  EXPECT_EQ(fmt::format("{}", range.error()),
            "multi-head attention, input: position interval exceeds capacity "
            "(positions [4, 7) but capacity 6)");
  EXPECT_TRUE(layer.forward(x, 3).has_value());
}

TEST(MultiHeadAttention, ReleasedInputIsReportedThroughTheWrappedCause) {
  auto run = run_fixture();
  run->tape.release();
  // The position interval is still checked first, without touching the tape.
  auto range = run->layer->forward(run->input, 5);
  ASSERT_FALSE(range.has_value());
  EXPECT_EQ(range.error().code, MultiHeadErrorCode::position_range);
  auto released = run->layer->forward(run->input, 0);
  ASSERT_FALSE(released.has_value());
  EXPECT_EQ(released.error().code, MultiHeadErrorCode::stage_failed);
  EXPECT_EQ(released.error().stage, MultiHeadStage::qkv_projection);
  ASSERT_NE(autograd_cause(released.error()), nullptr);
  EXPECT_EQ(autograd_cause(released.error())->code, AutogradErrorCode::released_input);
  const std::string message = fmt::format("{}", released.error());
  EXPECT_NE(message.find("Q/K/V projection"), std::string::npos) << message;
  EXPECT_NE(message.find("released input"), std::string::npos) << message;
}

TEST(MultiHeadAttention, SavedForwardValuesAndGradientsAreFinite) {
  auto run = run_fixture();
  ASSERT_TRUE(
      llmfs::autograd::backward(run->forward.output, fixture_upstream()).has_value());
  for (const auto& stage : stages(run->forward))
    EXPECT_TRUE(llmfs::testing::all_finite(stage));
  for (const auto& gradient : gradients(*run))
    EXPECT_TRUE(llmfs::testing::all_finite(gradient));
}

TEST(MultiHeadAttention, ReplayIsBitwiseIdentical) {
  auto first = run_fixture();
  auto second = run_fixture();
  ASSERT_TRUE(
      llmfs::autograd::backward(first->forward.output, fixture_upstream()).has_value());
  ASSERT_TRUE(llmfs::autograd::backward(second->forward.output, fixture_upstream())
                  .has_value());
  const auto a = stages(first->forward), b = stages(second->forward);
  for (std::size_t i = 0; i < a.size(); ++i)
    EXPECT_TRUE(llmfs::tensor::bitwise_equal(a[i], b[i])) << i;
  const auto ga = gradients(*first), gb = gradients(*second);
  for (std::size_t i = 0; i < ga.size(); ++i)
    EXPECT_TRUE(llmfs::tensor::bitwise_equal(ga[i], gb[i])) << i;
}

}  // namespace
