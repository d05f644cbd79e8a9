#include <vector>

#include <gtest/gtest.h>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/autograd/tape.hpp>
#include <llmfs/nn/init.hpp>
#include <llmfs/nn/qkv.hpp>
#include <llmfs/tensor/tensor.hpp>

#include "support/tensors.hpp"

namespace {

using llmfs::SplitMix64;
using llmfs::autograd::Tape;
using llmfs::nn::NamedParameter;
using llmfs::nn::NnErrorCode;
using llmfs::nn::QkvLayout;
using llmfs::nn::QkvProjections;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

using llmfs::testing::make;

// Columns side by side: [W_Q | W_K | W_V], each [in, out] -> [in, 3·out].
Tensor concat_columns(const Tensor& q, const Tensor& k, const Tensor& v) {
  const std::size_t in = q.shape()[0], out = q.shape()[1];
  std::vector<double> values;
  for (std::size_t r = 0; r < in; ++r) {
    for (const Tensor* part : {&q, &k, &v}) {
      for (std::size_t c = 0; c < out; ++c)
        values.push_back(part->values()[r * out + c]);
    }
  }
  return make(Shape{in, 3 * out}, values);
}

TEST(QkvProjections, CreateNamesAndDrawsQueryKeyValueInOrder) {
  Tape tape;
  SplitMix64 rng(5);
  SplitMix64 reference(5);
  auto qkv = QkvProjections::create(tape, "attention", 4, 2, rng);
  ASSERT_TRUE(qkv.has_value());
  ASSERT_EQ(qkv->parameters().size(), 3u);
  EXPECT_EQ(qkv->parameters().items()[0].name, "attention.query.weight");
  EXPECT_EQ(qkv->parameters().items()[1].name, "attention.key.weight");
  EXPECT_EQ(qkv->parameters().items()[2].name, "attention.value.weight");
  for (const auto& parameter : qkv->parameters()) {
    EXPECT_EQ(*parameter.value.value(),
              *llmfs::nn::uniform_fan_in(Shape{4, 2}, 4, reference));
  }
  EXPECT_EQ(rng, reference);
  EXPECT_EQ(qkv->input_width(), 4u);
  EXPECT_EQ(qkv->output_width(), 2u);
}

TEST(QkvProjections, RejectedCreateLeavesTheGeneratorUnchanged) {
  Tape tape;
  SplitMix64 rng(5);
  auto qkv = QkvProjections::create(tape, "attention", 4, 0, rng);
  ASSERT_FALSE(qkv.has_value());
  EXPECT_EQ(qkv.error().code, NnErrorCode::zero_width);
  EXPECT_EQ(rng, SplitMix64(5));
}

TEST(QkvProjections, ForwardProjectsEachRoleWithItsOwnMatrix) {
  Tape tape;
  // x = [1,2]; W_Q = I, W_K = 2I, W_V = [[0,1],[1,0]]: Q = [1,2], K = [2,4], V = [2,1].
  auto qkv = QkvProjections::from_weights(
      NamedParameter{"q", tape.parameter(make(Shape{2, 2}, {1, 0, 0, 1}))},
      NamedParameter{"k", tape.parameter(make(Shape{2, 2}, {2, 0, 0, 2}))},
      NamedParameter{"v", tape.parameter(make(Shape{2, 2}, {0, 1, 1, 0}))});
  ASSERT_TRUE(qkv.has_value());
  auto out = qkv->forward(tape.constant(make(Shape{1, 1, 2}, {1, 2})));
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(*out->query.value(), make(Shape{1, 1, 2}, {1, 2}));
  EXPECT_EQ(*out->key.value(), make(Shape{1, 1, 2}, {2, 4}));
  EXPECT_EQ(*out->value.value(), make(Shape{1, 1, 2}, {2, 1}));
}

TEST(QkvProjections, FromWeightsRejectsMismatchedShapesAndSharedNodes) {
  Tape tape;
  auto q = tape.parameter(Tensor::zeros(Shape{4, 2}));
  auto mismatch = QkvProjections::from_weights(
      {"q", q}, {"k", tape.parameter(Tensor::zeros(Shape{4, 3}))},
      {"v", tape.parameter(Tensor::zeros(Shape{4, 2}))});
  ASSERT_FALSE(mismatch.has_value());
  EXPECT_EQ(mismatch.error().code, NnErrorCode::width_mismatch);
  auto shared = QkvProjections::from_weights(
      {"q", q}, {"k", q}, {"v", tape.parameter(Tensor::zeros(Shape{4, 2}))});
  ASSERT_FALSE(shared.has_value());
  EXPECT_EQ(shared.error().code, NnErrorCode::duplicate_node);
}

TEST(QkvProjections, CombinedLayoutGivesBitwiseTheSameProjectionsAndGradients) {
  SplitMix64 rng(99);
  auto wq = *llmfs::nn::uniform_fan_in(Shape{6, 4}, 6, rng);
  auto wk = *llmfs::nn::uniform_fan_in(Shape{6, 4}, 6, rng);
  auto wv = *llmfs::nn::uniform_fan_in(Shape{6, 4}, 6, rng);
  auto x = *llmfs::nn::uniform_fan_in(Shape{2, 3, 6}, 1, rng);
  auto g = *llmfs::nn::uniform_fan_in(Shape{2, 3, 4}, 1, rng);

  Tape separate_tape;
  auto separate = QkvProjections::from_weights({"q", separate_tape.parameter(wq)},
                                               {"k", separate_tape.parameter(wk)},
                                               {"v", separate_tape.parameter(wv)});
  Tape combined_tape;
  auto combined = QkvProjections::from_combined(
      {"in_proj", combined_tape.parameter(concat_columns(wq, wk, wv))});
  ASSERT_TRUE(separate.has_value() && combined.has_value());
  EXPECT_EQ(combined->layout(), QkvLayout::combined);
  EXPECT_EQ(combined->output_width(), 4u);

  auto xs = separate_tape.parameter(x);
  auto xc = combined_tape.parameter(x);
  auto a = separate->forward(xs);
  auto b = combined->forward(xc);
  ASSERT_TRUE(a.has_value() && b.has_value());
  EXPECT_TRUE(llmfs::tensor::bitwise_equal(*a->query.value(), *b->query.value()));
  EXPECT_TRUE(llmfs::tensor::bitwise_equal(*a->key.value(), *b->key.value()));
  EXPECT_TRUE(llmfs::tensor::bitwise_equal(*a->value.value(), *b->value.value()));

  // Gradients of the key block flow only into the key columns of W_in.
  ASSERT_TRUE(llmfs::autograd::backward(a->key, g).has_value());
  ASSERT_TRUE(llmfs::autograd::backward(b->key, g).has_value());
  auto gk = *separate->parameters().items()[1].value.gradient();
  auto gin = *combined->parameters().items()[0].value.gradient();
  for (std::size_t r = 0; r < 6; ++r) {
    for (std::size_t c = 0; c < 12; ++c) {
      const double expected = (c >= 4 && c < 8) ? gk.values()[r * 4 + (c - 4)] : 0.0;
      EXPECT_EQ(gin.values()[r * 12 + c], expected) << r << "," << c;
    }
  }
  EXPECT_TRUE(llmfs::tensor::bitwise_equal(*xs.gradient(), *xc.gradient()));
}

TEST(QkvProjections, CombinedLayoutNeedsThreeBlocksOfColumns) {
  Tape tape;
  auto bad = QkvProjections::from_combined(
      {"in_proj", tape.parameter(Tensor::zeros(Shape{4, 8}))});
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code, NnErrorCode::width_mismatch);
}

}  // namespace
