// Chapter 18's token-embedding layer (src/llmfs/nn/embedding.hpp).
#include <cmath>

#include <gtest/gtest.h>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/autograd/tape.hpp>
#include <llmfs/nn/embedding.hpp>

namespace {

using llmfs::SplitMix64;
using llmfs::autograd::Tape;
using llmfs::autograd::TokenGrid;
using llmfs::nn::Embedding;
using llmfs::nn::NnErrorCode;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

TEST(Embedding, CreateDrawsTheCourseScaleUnderItsName) {
  Tape tape;
  SplitMix64 rng(1), reference(1);
  const auto layer = Embedding::create(tape, "tok", 6, 4, rng);
  ASSERT_TRUE(layer.has_value());
  EXPECT_EQ(layer->table().name, "tok.weight");
  EXPECT_EQ(layer->vocab_size(), 6u);
  EXPECT_EQ(layer->model_width(), 4u);
  EXPECT_EQ(layer->parameter_count(), 24u);
  EXPECT_EQ(layer->parameters().size(), 1u);
  EXPECT_DOUBLE_EQ(llmfs::nn::embedding_scheme(4).std_dev, 0.5);
  const auto want =
      llmfs::nn::draw(Shape{6, 4}, llmfs::nn::embedding_scheme(4), reference);
  EXPECT_TRUE(
      std::ranges::equal(layer->table().value.value()->values(), want->values()));
}

TEST(Embedding, ForwardGathersAndBackwardAddsRowsReadTwice) {
  Tape tape;
  const auto table = Tensor::from(Shape{3, 1}, {5, 7, 9});
  const auto layer = Embedding::from_parameter({"e.weight", tape.parameter(*table)});
  ASSERT_TRUE(layer.has_value());
  const auto out = layer->forward(TokenGrid{1, 3, {1, 0, 1}});
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out->shape(), (Shape{1, 3, 1}));
  EXPECT_TRUE(std::ranges::equal(out->value()->values(), std::vector<double>{7, 5, 7}));
  ASSERT_TRUE(backward(*out, *Tensor::from(Shape{1, 3, 1}, {1, 10, 100})).has_value());
  EXPECT_TRUE(std::ranges::equal(layer->table().value.gradient()->values(),
                                 std::vector<double>{10, 101, 0}));
  EXPECT_EQ(*layer->row_reads(TokenGrid{1, 3, {1, 0, 1}}),
            (std::vector<std::size_t>{1, 2, 0}));
  EXPECT_EQ(layer->row(2)->values()[0], 9.0);
}

TEST(Embedding, RefusesBadIdsAndBadTablesBeforeRecording) {
  Tape tape;
  SplitMix64 rng(2);
  const auto layer = Embedding::create(tape, "tok", 4, 2, rng);
  const auto nodes = tape.node_count();
  EXPECT_EQ(layer->forward(TokenGrid{1, 2, {0, 4}}).error().code,
            NnErrorCode::token_out_of_range);
  EXPECT_EQ(layer->forward(TokenGrid{1, 1, {-3}}).error().code,
            NnErrorCode::token_out_of_range);
  EXPECT_EQ(layer->forward(TokenGrid{2, 2, {0}}).error().code,
            NnErrorCode::token_count);
  EXPECT_EQ(layer->row(-1).error().code, NnErrorCode::token_out_of_range);
  EXPECT_EQ(tape.node_count(), nodes);
  SplitMix64 untouched(3);
  EXPECT_EQ(Embedding::create(tape, "tok", 0, 2, untouched).error().code,
            NnErrorCode::zero_width);
  EXPECT_EQ(Embedding::create(tape, "", 2, 2, untouched).error().code,
            NnErrorCode::empty_name);
  EXPECT_EQ(untouched, SplitMix64(3));
  EXPECT_EQ(
      Embedding::from_parameter({"m", tape.parameter(Tensor::zeros(Shape{2, 2, 2}))})
          .error()
          .code,
      NnErrorCode::weight_rank);
}

}  // namespace
