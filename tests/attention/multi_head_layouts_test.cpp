// The PyTorch appendix layouts (combined in-projection, no positions, PyTorch
// references) of multi-head attention (head split/merge: head_layout_test.cpp); the
// fixture lives in snippets/ch30-multi-head-attention/fixture.hpp.

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

// the PyTorch appendix: combined in-projection and no positions

Tensor concat_columns(const Tensor& q, const Tensor& k, const Tensor& v) {
  const std::size_t in = q.shape()[0], out = q.shape()[1];
  std::vector<double> values;
  for (std::size_t r = 0; r < in; ++r)
    for (const Tensor* part : {&q, &k, &v})
      for (std::size_t c = 0; c < out; ++c)
        values.push_back(part->values()[r * out + c]);
  return make(Shape{in, 3 * out}, values);
}

TEST(MultiHeadAttention, CombinedInProjectionGivesBitwiseTheSameOutput) {
  SplitMix64 rng(40);
  std::vector<Tensor> w;
  for (int i = 0; i < 4; ++i)
    w.push_back(*llmfs::nn::uniform_fan_in(Shape{8, 8}, 8, rng));
  const Tensor x = *llmfs::nn::uniform_fan_in(Shape{2, 5, 8}, 1, rng);
  for (PositionEncoding positions : {PositionEncoding{RotaryPositions{8, 10000.0}},
                                     PositionEncoding{NoPositions{}}}) {
    auto separate = run_layer(x, w, 2, positions);
    Tape tape;
    auto layer = MultiHeadAttention::from_combined_parameters(
        {"attention.in_proj.weight", tape.parameter(concat_columns(w[0], w[1], w[2]))},
        {"attention.output.weight", tape.parameter(w[3])}, 2, positions);
    ASSERT_TRUE(layer.has_value());
    EXPECT_EQ(layer->parameters().size(), 2u);
    EXPECT_EQ(layer->parameter_count(), 4u * 64u);
    auto combined = layer->forward(tape.constant(x), 2);
    ASSERT_TRUE(combined.has_value());
    const auto a = stages(separate->forward), b = stages(*combined);
    for (std::size_t i = 0; i < a.size(); ++i)
      EXPECT_TRUE(llmfs::tensor::bitwise_equal(a[i], b[i])) << i;
  }
}

TEST(MultiHeadAttention, NoPositionsSkipsRotationAndAllowsOddHeadWidths) {
  SplitMix64 rng(41);
  std::vector<Tensor> w;
  for (int i = 0; i < 4; ++i)
    w.push_back(*llmfs::nn::uniform_fan_in(Shape{6, 6}, 6, rng));
  const Tensor x = *llmfs::nn::uniform_fan_in(Shape{1, 4, 6}, 1, rng);
  auto at_zero = run_layer(x, w, 0, NoPositions{}, 2);  // d_h = 3
  auto far = run_layer(x, w, 1000, NoPositions{}, 2);
  ASSERT_TRUE(at_zero->layer.has_value());
  EXPECT_FALSE(at_zero->layer->rope().has_value());
  EXPECT_EQ(at_zero->forward.rotated_query_heads.node_id(),
            at_zero->forward.projected_query_heads.node_id());
  EXPECT_TRUE(llmfs::tensor::bitwise_equal(value_of(at_zero->forward.output),
                                           value_of(far->forward.output)));
  Tape tape;
  SplitMix64 gen(1);
  auto odd_with_rope =
      MultiHeadAttention::create(tape, "attention", 6, 2, 8, 100.0, gen);
  ASSERT_FALSE(odd_with_rope.has_value());
  EXPECT_EQ(odd_with_rope.error().code, MultiHeadErrorCode::odd_head_width);
  EXPECT_TRUE(MultiHeadAttention::create(tape, "attention", 6, 2, NoPositions{}, gen)
                  .has_value());
}

// PyTorch float64 references written by tests/reference/make_reference.py.
void compare_with_reference(std::string_view case_name, bool combined) {
  SCOPED_TRACE(std::string(case_name));
  const auto data = llmfs::testing::load_reference_case(case_name);
  auto tensor = [&](std::string_view name) {
    const auto& stored = data.at(name);
    return make(Shape(stored.shape), stored.values);
  };
  const auto heads = static_cast<std::size_t>(data.scalar("heads"));
  const bool rotary = data.contains("rope_base");
  const std::size_t offset =
      rotary ? static_cast<std::size_t>(data.scalar("rope_offset")) : 0;
  const Tensor x = tensor("X");
  const std::size_t tokens = x.shape()[1];
  PositionEncoding positions = NoPositions{};
  if (rotary) positions = RotaryPositions{offset + tokens, data.scalar("rope_base")};

  Tape tape;
  auto input = tape.parameter(x);
  auto layer = combined
                   ? MultiHeadAttention::from_combined_parameters(
                         {"attention.in_proj.weight", tape.parameter(tensor("W_in"))},
                         {"attention.output.weight", tape.parameter(tensor("W_O"))},
                         heads, positions)
                   : MultiHeadAttention::from_parameters(
                         {"attention.query.weight", tape.parameter(tensor("W_Q"))},
                         {"attention.key.weight", tape.parameter(tensor("W_K"))},
                         {"attention.value.weight", tape.parameter(tensor("W_V"))},
                         {"attention.output.weight", tape.parameter(tensor("W_O"))},
                         heads, positions);
  ASSERT_TRUE(layer.has_value()) << fmt::format("{}", layer.error());
  auto forward = layer->forward(input, offset);
  ASSERT_TRUE(forward.has_value()) << fmt::format("{}", forward.error());
  ASSERT_TRUE(
      llmfs::autograd::backward(forward->output, tensor("upstream")).has_value());
  auto close = [&](const Tensor& actual, std::string_view name) {
    const auto d = llmfs::testing::discrepancy(actual.values(), data.at(name).values);
    EXPECT_TRUE(d.same_size) << name;
    EXPECT_LE(d.relative, 1e-12) << name;
  };
  close(value_of(forward->projected_query_heads), "Q_heads");
  close(value_of(forward->projected_key_heads), "K_heads");
  close(value_of(forward->projected_value_heads), "V_heads");
  if (rotary) {
    close(value_of(forward->rotated_query_heads), "Q_rotated");
    close(value_of(forward->rotated_key_heads), "K_rotated");
  }
  close(value_of(forward->attention_weights), "weights");
  close(value_of(forward->head_outputs), "head_outputs");
  close(value_of(forward->merged), "merged");
  close(value_of(forward->output), "output");
  close(gradient_of(input), "grad_X");
  const auto& parameters = layer->parameters().items();
  if (combined) {
    close(gradient_of(parameters[0].value), "grad_W_in");
    close(gradient_of(parameters[1].value), "grad_W_O");
  } else {
    close(gradient_of(parameters[0].value), "grad_W_Q");
    close(gradient_of(parameters[1].value), "grad_W_K");
    close(gradient_of(parameters[2].value), "grad_W_V");
    close(gradient_of(parameters[3].value), "grad_W_O");
  }
}

TEST(MultiHeadAttention, MatchesPyTorchOnARandomRotaryCaseWithAnOffset) {
  compare_with_reference("ch30_random", false);
}

TEST(MultiHeadAttention, CombinedLayoutMatchesPyTorchWithAndWithoutRope) {
  compare_with_reference("ch40_random_b1_t4_h4", true);
  compare_with_reference("ch40_random_b2_t6_h8_rope", true);
  compare_with_reference("ch40_random_b1_t7_h2", true);
  compare_with_reference("ch40_random_b3_t4_h3_rope", true);
}

}  // namespace
