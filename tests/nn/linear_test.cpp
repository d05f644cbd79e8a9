#include <cmath>
#include <optional>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/autograd/tape.hpp>
#include <llmfs/core/splitmix64.hpp>
#include <llmfs/nn/init.hpp>
#include <llmfs/nn/linear.hpp>
#include <llmfs/nn/parameters.hpp>

#include "support/tensors.hpp"

namespace {

using llmfs::SplitMix64;
using llmfs::autograd::Tape;
using llmfs::nn::Linear;
using llmfs::nn::NamedParameter;
using llmfs::nn::NamedParameters;
using llmfs::nn::NnErrorCode;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

using llmfs::testing::make;

std::vector<double> values_of(const llmfs::autograd::TensorValue& value) {
  auto tensor = value.value();
  EXPECT_TRUE(tensor.has_value());
  return {tensor->values().begin(), tensor->values().end()};
}

// initialization

TEST(Initialization, DrawsBoundTimesTwoUMinusOneInRowMajorOrder) {
  SplitMix64 rng(7);
  SplitMix64 reference(7);
  auto tensor = llmfs::nn::uniform_fan_in(Shape{2, 3}, 4, rng);
  ASSERT_TRUE(tensor.has_value());
  ASSERT_EQ(tensor->size(), 6u);
  for (double value : tensor->values()) {
    EXPECT_EQ(value, 0.5 * (2.0 * reference.next_unit() - 1.0));  // 1/√4 = 0.5
    EXPECT_GE(value, -0.5);
    EXPECT_LT(value, 0.5);
  }
  EXPECT_EQ(rng, reference);
}

TEST(Initialization, ZeroFanInIsRejectedWithoutDrawing) {
  SplitMix64 rng(7);
  auto tensor = llmfs::nn::uniform_fan_in(Shape{2, 3}, 0, rng);
  ASSERT_FALSE(tensor.has_value());
  EXPECT_EQ(tensor.error().code, NnErrorCode::zero_width);
  EXPECT_EQ(rng, SplitMix64(7));
}

TEST(Initialization, SampleMeanAndRangeFitTheUniformBound) {
  SplitMix64 rng(123);
  auto tensor = llmfs::nn::uniform_fan_in(Shape{100, 100}, 16, rng);
  ASSERT_TRUE(tensor.has_value());
  double sum = 0.0, squares = 0.0;
  for (double value : tensor->values()) {
    sum += value;
    squares += value * value;
    EXPECT_LE(std::abs(value), 0.25);
  }
  // Uniform on [−b, b): mean 0, variance b²/3 = 1/48. 10 000 draws: std error of the
  // mean ≈ 0.0014.
  EXPECT_NEAR(sum / 10000.0, 0.0, 0.006);
  EXPECT_NEAR(squares / 10000.0, 1.0 / 48.0, 0.001);
}

// named parameters

TEST(NamedParameters, KeepOrderAndFindByName) {
  Tape tape;
  auto a = tape.parameter(Tensor::zeros(Shape{2}));
  auto b = tape.parameter(Tensor::zeros(Shape{3, 2}));
  auto list = NamedParameters::create({{"layer.b", b}, {"layer.a", a}});
  ASSERT_TRUE(list.has_value());
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ(list->items()[0].name, "layer.b");
  EXPECT_EQ(list->items()[1].name, "layer.a");
  ASSERT_NE(list->find("layer.a"), nullptr);
  EXPECT_EQ(list->find("layer.a")->value.node_id(), a.node_id());
  EXPECT_EQ(list->find("missing"), nullptr);
  EXPECT_EQ(list->scalar_count(), 8u);
}

TEST(NamedParameters, RejectEmptyDuplicateNamesAndRepeatedNodes) {
  Tape tape;
  auto a = tape.parameter(Tensor::zeros(Shape{2}));
  auto b = tape.parameter(Tensor::zeros(Shape{2}));
  auto empty = NamedParameters::create({{"", a}});
  ASSERT_FALSE(empty.has_value());
  EXPECT_EQ(empty.error().code, NnErrorCode::empty_name);
  auto duplicate = NamedParameters::create({{"w", a}, {"w", b}});
  ASSERT_FALSE(duplicate.has_value());
  EXPECT_EQ(duplicate.error().code, NnErrorCode::duplicate_name);
  EXPECT_EQ(fmt::format("{}", duplicate.error()),
            "named parameters: duplicate parameter name ('w' at entries 0 and 1)");
  auto same_node = NamedParameters::create({{"w1", a}, {"w2", a}});
  ASSERT_FALSE(same_node.has_value());
  EXPECT_EQ(same_node.error().code, NnErrorCode::duplicate_node);
  // The same node index on another tape is a different node.
  Tape other;
  auto c = other.parameter(Tensor::zeros(Shape{2}));
  ASSERT_EQ(c.node_id(), a.node_id());
  EXPECT_TRUE(NamedParameters::create({{"w1", a}, {"w2", c}}).has_value());
}

// Linear

TEST(Linear, ForwardIsXTimesWPlusBiasWithWeightStoredInOut) {
  Tape tape;
  // W [3,2] = [[1,2],[3,4],[5,6]], b = [0.5,-1]; x = [[1,0,-1],[2,1,0]].
  // Hand: row 0: [1-5, 2-6] + b = [-3.5, -5]; row 1: [2+3, 4+4] + b = [5.5, 7].
  auto layer = Linear::from_parameters(
      NamedParameter{"fc.weight",
                     tape.parameter(make(Shape{3, 2}, {1, 2, 3, 4, 5, 6}))},
      NamedParameter{"fc.bias", tape.parameter(make(Shape{2}, {0.5, -1}))});
  ASSERT_TRUE(layer.has_value());
  EXPECT_EQ(layer->input_width(), 3u);
  EXPECT_EQ(layer->output_width(), 2u);
  auto x = tape.constant(make(Shape{1, 2, 3}, {1, 0, -1, 2, 1, 0}));
  auto y = layer->forward(x);
  ASSERT_TRUE(y.has_value());
  EXPECT_EQ(y->shape(), (Shape{1, 2, 2}));
  EXPECT_EQ(values_of(*y), (std::vector<double>{-3.5, -5, 5.5, 7}));
}

TEST(Linear, BackwardGivesXTransposeGAndColumnSumsForBias) {
  Tape tape;
  auto layer = Linear::from_parameters(
      NamedParameter{"fc.weight", tape.parameter(make(Shape{2, 2}, {1, 0, 0, 1}))},
      NamedParameter{"fc.bias", tape.parameter(make(Shape{2}, {0, 0}))});
  ASSERT_TRUE(layer.has_value());
  auto x = tape.constant(make(Shape{2, 2}, {1, 2, 3, 4}));
  auto y = layer->forward(x);
  ASSERT_TRUE(y.has_value());
  // dL/dW = xᵀ·g with g = ones: [[1+3, 1+3],[2+4, 2+4]]; dL/db = [2, 2].
  ASSERT_TRUE(
      llmfs::autograd::backward(*y, Tensor::full(Shape{2, 2}, 1.0)).has_value());
  auto gw = layer->weight().value.gradient();
  auto gb = layer->bias()->value.gradient();
  ASSERT_TRUE(gw.has_value() && gb.has_value());
  EXPECT_EQ(*gw, make(Shape{2, 2}, {4, 4, 6, 6}));
  EXPECT_EQ(*gb, make(Shape{2}, {2, 2}));
}

TEST(Linear, CreateDrawsWeightThenBiasAndNamesThem) {
  Tape tape;
  SplitMix64 rng(11);
  SplitMix64 reference(11);
  auto layer = Linear::create(tape, "block.fc", 4, 3, true, rng);
  ASSERT_TRUE(layer.has_value());
  auto parameters = layer->parameters();
  ASSERT_EQ(parameters.size(), 2u);
  EXPECT_EQ(parameters[0].name, "block.fc.weight");
  EXPECT_EQ(parameters[1].name, "block.fc.bias");
  EXPECT_EQ(parameters[0].value.shape(), (Shape{4, 3}));
  EXPECT_EQ(parameters[1].value.shape(), (Shape{3}));
  EXPECT_TRUE(parameters[0].value.requires_gradient());
  auto expected_weight = llmfs::nn::uniform_fan_in(Shape{4, 3}, 4, reference);
  auto expected_bias = llmfs::nn::uniform_fan_in(Shape{3}, 4, reference);
  EXPECT_EQ(*parameters[0].value.value(), *expected_weight);
  EXPECT_EQ(*parameters[1].value.value(), *expected_bias);
  EXPECT_EQ(rng, reference);
}

TEST(Linear, CreateWithoutBiasHasOnlyAWeight) {
  Tape tape;
  SplitMix64 rng(11);
  auto layer = Linear::create(tape, "proj", 2, 2, false, rng);
  ASSERT_TRUE(layer.has_value());
  EXPECT_FALSE(layer->bias().has_value());
  EXPECT_EQ(layer->parameters().size(), 1u);
}

TEST(Linear, RejectedCreateLeavesTheGeneratorUnchanged) {
  Tape tape;
  SplitMix64 rng(3);
  auto no_name = Linear::create(tape, "", 2, 2, false, rng);
  ASSERT_FALSE(no_name.has_value());
  EXPECT_EQ(no_name.error().code, NnErrorCode::empty_name);
  auto zero = Linear::create(tape, "fc", 0, 2, true, rng);
  ASSERT_FALSE(zero.has_value());
  EXPECT_EQ(zero.error().code, NnErrorCode::zero_width);
  Tape released;
  released.release();
  auto dead = Linear::create(released, "fc", 2, 2, true, rng);
  ASSERT_FALSE(dead.has_value());
  EXPECT_EQ(dead.error().code, NnErrorCode::released_tape);
  // [2^31, 2^31] has 2^62 elements: no overflow of std::size_t, but more than a tensor
  // holds.
  const std::size_t wide = std::size_t{1} << 31;
  auto huge = Linear::create(tape, "fc", wide, wide, false, rng);
  ASSERT_FALSE(huge.has_value());
  EXPECT_EQ(huge.error().code, NnErrorCode::size_overflow);
  auto drawn = llmfs::nn::uniform_fan_in(Shape{wide, wide}, 1, rng);
  ASSERT_FALSE(drawn.has_value());
  EXPECT_EQ(drawn.error().code, NnErrorCode::size_overflow);
  EXPECT_EQ(rng, SplitMix64(3));
}

TEST(Linear, FromParametersRejectsBadShapes) {
  Tape tape;
  auto vector_weight =
      Linear::from_parameters({"w", tape.parameter(Tensor::zeros(Shape{3}))});
  ASSERT_FALSE(vector_weight.has_value());
  EXPECT_EQ(vector_weight.error().code, NnErrorCode::weight_rank);
  auto empty =
      Linear::from_parameters({"w", tape.parameter(Tensor::zeros(Shape{0, 3}))});
  ASSERT_FALSE(empty.has_value());
  EXPECT_EQ(empty.error().code, NnErrorCode::zero_width);
  auto bad_bias = Linear::from_parameters(
      {"w", tape.parameter(Tensor::zeros(Shape{2, 3}))},
      NamedParameter{"b", tape.parameter(Tensor::zeros(Shape{2}))});
  ASSERT_FALSE(bad_bias.has_value());
  EXPECT_EQ(bad_bias.error().code, NnErrorCode::bias_shape);
  EXPECT_EQ(fmt::format("{}", bad_bias.error()),
            "linear w: bias must be a vector [out] (expected [3], got [2])");
  Tape other;
  auto far_bias = Linear::from_parameters(
      {"w", tape.parameter(Tensor::zeros(Shape{2, 3}))},
      NamedParameter{"b", other.parameter(Tensor::zeros(Shape{3}))});
  ASSERT_FALSE(far_bias.has_value());
  EXPECT_EQ(far_bias.error().code, NnErrorCode::different_tapes);
}

TEST(Linear, ForwardRejectsWrongInputsAndWrapsReleasedTapes) {
  Tape tape;
  auto layer = Linear::from_parameters(
      {"fc.weight", tape.parameter(Tensor::zeros(Shape{3, 2}))});
  ASSERT_TRUE(layer.has_value());
  auto rank_one = layer->forward(tape.constant(Tensor::zeros(Shape{3})));
  ASSERT_FALSE(rank_one.has_value());
  EXPECT_EQ(rank_one.error().code, NnErrorCode::input_rank);
  auto wide = layer->forward(tape.constant(Tensor::zeros(Shape{2, 4})));
  ASSERT_FALSE(wide.has_value());
  EXPECT_EQ(wide.error().code, NnErrorCode::input_width);
  auto x = tape.constant(Tensor::zeros(Shape{2, 3}));
  tape.release();
  auto released = layer->forward(x);
  ASSERT_FALSE(released.has_value());
  EXPECT_EQ(released.error().code, NnErrorCode::autograd);
  ASSERT_TRUE(released.error().cause.has_value());
  EXPECT_EQ(released.error().cause->code,
            llmfs::autograd::AutogradErrorCode::released_input);
}

}  // namespace

namespace {

TEST(Linear, ParameterCountIsInTimesOutPlusTheBias) {
  Tape tape;
  SplitMix64 rng(19);
  EXPECT_EQ(Linear::create(tape, "a", 3, 5, true, rng)->parameter_count(), 20u);
  EXPECT_EQ(Linear::create(tape, "b", 3, 5, false, rng)->parameter_count(), 15u);
  auto unnamed = Linear::create(tape, "", 3, 5, false, rng);
  ASSERT_FALSE(unnamed.has_value());
  EXPECT_EQ(fmt::format("{}", unnamed.error()), "linear (no name): empty name");
}

}  // namespace
