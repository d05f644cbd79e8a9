// BackwardContext::accumulate with a contribution given up (std::move): the same checks
// and the same bits as the copying overload, a first contribution's −0.0 stored as
// +0.0, and a later contribution added.
#include <bit>
#include <cstdint>
#include <optional>
#include <random>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/autograd/tape.hpp>

#include "autograd/support.hpp"
#include "support/random_tensor.hpp"

namespace {

using namespace llmfs::autograd;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
using llmfs::test::T;

// An op on `x` whose closure adds `first` and then (if given) `second` into x's
// gradient, by copy or by move.
TensorValue contributing_op(const TensorValue& x, Tensor first,
                            std::optional<Tensor> second, bool by_move) {
  auto node = record_op(
      "contribute", Tensor::zeros(x.shape()), {x},
      [first, second,
       by_move](BackwardContext& ctx) -> std::expected<void, AutogradError> {
        Tensor a = first;
        if (by_move) {
          if (auto r = ctx.accumulate(0, std::move(a)); !r) return r;
        } else {
          if (auto r = ctx.accumulate(0, a); !r) return r;
        }
        if (!second) return {};
        Tensor b = *second;
        return by_move ? ctx.accumulate(0, std::move(b)) : ctx.accumulate(0, b);
      });
  return node.value();
}

std::uint64_t bits(double x) {
  return std::bit_cast<std::uint64_t>(x);
}

TEST(AccumulateMove, FirstContributionStoresZeroPlusEachElement) {
  Tape tape;
  auto x = tape.parameter(T({4}, {1.0, 2.0, 3.0, 4.0}));
  auto y = contributing_op(x, T({4}, {-0.0, 0.0, -2.5, 1e-300}), std::nullopt, true);
  ASSERT_TRUE(backward(y, Tensor::zeros(Shape{4})).has_value());
  const Tensor g = x.gradient().value();
  // 0.0 + (−0.0) is +0.0 in round-to-nearest: the sign bit is gone.
  EXPECT_EQ(bits(g.values()[0]), bits(0.0));
  EXPECT_EQ(bits(g.values()[1]), bits(0.0));
  EXPECT_EQ(g.values()[2], -2.5);
  EXPECT_EQ(g.values()[3], 1e-300);
}

TEST(AccumulateMove, SecondContributionIsAddedInto) {
  Tape tape;
  auto x = tape.parameter(T({3}, {0.0, 0.0, 0.0}));
  auto y =
      contributing_op(x, T({3}, {1.0, -0.0, 0.5}), T({3}, {2.0, -0.0, -0.5}), true);
  ASSERT_TRUE(backward(y, Tensor::zeros(Shape{3})).has_value());
  const Tensor g = x.gradient().value();
  EXPECT_EQ(g.values()[0], 3.0);
  EXPECT_EQ(bits(g.values()[1]), bits(0.0));  // (0 + −0) + −0 = +0
  EXPECT_EQ(bits(g.values()[2]), bits(0.0));  // 0.5 − 0.5 = +0
}

TEST(AccumulateMove, RandomContributionsGiveTheCopyingOverloadsBits) {
  std::mt19937_64 engine(5);
  for (std::uint64_t trial = 0; trial < 50; ++trial) {
    const Shape shape{1 + engine() % 4, engine() % 5};
    auto sprinkle = [&](Tensor t) {  // some exact zeros of both signs
      auto v = t.mutable_values();
      for (double& x : v)
        if (engine() % 4 == 0) x = engine() % 2 ? 0.0 : -0.0;
      return t;
    };
    const Tensor first = sprinkle(llmfs::test::random_tensor(shape, 10 + trial));
    std::optional<Tensor> second;
    if (trial % 2 == 1)
      second = sprinkle(llmfs::test::random_tensor(shape, 500 + trial));
    std::vector<Tensor> gradients;
    for (bool by_move : {false, true}) {
      Tape tape;
      auto x = tape.parameter(Tensor::zeros(shape));
      auto y = contributing_op(x, first, second, by_move);
      ASSERT_TRUE(backward(y, Tensor::zeros(shape)).has_value());
      gradients.push_back(x.gradient().value());
    }
    EXPECT_TRUE(bitwise_equal(gradients[0], gradients[1])) << "trial " << trial;
  }
}

TEST(AccumulateMove, RefusesAWrongShapeAndABadIndexLikeTheCopy) {
  for (bool by_move : {false, true}) {
    Tape tape;
    auto x = tape.parameter(T({2}, {1.0, 2.0}));
    auto wrong = record_op(
        "wrong", T({2}, {0.0, 0.0}), {x},
        [by_move](BackwardContext& ctx) -> std::expected<void, AutogradError> {
          Tensor g = T({3}, {1.0, 2.0, 3.0});
          return by_move ? ctx.accumulate(0, std::move(g)) : ctx.accumulate(0, g);
        });
    auto shape_error = backward(wrong.value(), T({2}, {1.0, 1.0}));
    ASSERT_FALSE(shape_error.has_value());
    EXPECT_EQ(shape_error.error().code, AutogradErrorCode::gradient_shape_mismatch);
    auto bad = record_op(
        "bad", T({2}, {0.0, 0.0}), {x},
        [by_move](BackwardContext& ctx) -> std::expected<void, AutogradError> {
          Tensor g = T({2}, {1.0, 2.0});
          return by_move ? ctx.accumulate(1, std::move(g)) : ctx.accumulate(1, g);
        });
    auto index_error = backward(bad.value(), T({2}, {1.0, 1.0}));
    ASSERT_FALSE(index_error.has_value());
    EXPECT_EQ(index_error.error().code, AutogradErrorCode::invalid_argument);
    // Nothing was half-written: the failed passes left no gradient.
    EXPECT_EQ(x.gradient().value(), T({2}, {0.0, 0.0}));
  }
}

}  // namespace
