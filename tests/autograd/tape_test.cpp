#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/autograd/tape.hpp>

#include "autograd/support.hpp"

namespace {

using namespace llmfs::autograd;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
using llmfs::test::T;

TEST(Tape, ValueUsedTwiceInOneOpAccumulatesBothPaths) {
  // loss = Σ a⊙a, ∂loss/∂a = 2a = [2,4,6]; the multiply node has parents [a,a].
  Tape tape;
  auto a = tape.parameter(T(Shape{3}, {1, 2, 3}));
  auto loss = sum(multiply(a, a).value()).value();
  ASSERT_TRUE(backward(loss, Tensor::scalar(1.0)).has_value());
  EXPECT_EQ(a.gradient().value(), T(Shape{3}, {2, 4, 6}));
}

TEST(Tape, SliceLastAxisGradientFillsOnlyTheTakenColumns) {
  // y = columns [1,3) of a [2,4] matrix; with upstream g the gradient is g in those
  // columns and exactly 0 in columns 0 and 3.
  Tape tape;
  auto a = tape.parameter(T(Shape{2, 4}, {0, 1, 2, 3, 4, 5, 6, 7}));
  auto y = slice_last_axis(a, 1, 3);
  ASSERT_TRUE(y.has_value()) << fmt::format("{}", y.error());
  EXPECT_EQ(y->value().value(), T(Shape{2, 2}, {1, 2, 5, 6}));
  ASSERT_TRUE(backward(*y, T(Shape{2, 2}, {10, 20, 30, 40})).has_value());
  EXPECT_EQ(a.gradient().value(), T(Shape{2, 4}, {0, 10, 20, 0, 0, 30, 40, 0}));
}

TEST(Tape, SliceLastAxisShapeErrorsAreWrappedTensorErrors) {
  Tape tape;
  auto a = tape.parameter(T(Shape{2, 4}, {0, 1, 2, 3, 4, 5, 6, 7}));
  auto past = slice_last_axis(a, 3, 5);
  ASSERT_FALSE(past.has_value());
  EXPECT_EQ(past.error().code, AutogradErrorCode::tensor);
  ASSERT_TRUE(past.error().cause.has_value());
  EXPECT_EQ(past.error().cause->code,
            llmfs::tensor::TensorErrorCode::index_out_of_range);
  EXPECT_EQ(fmt::format("{}", past.error()),
            "slice_last_axis: slice_last_axis: index out of range: [2,4] (columns [3, "
            "5) of 4)");
  auto scalar = slice_last_axis(tape.constant(Tensor::scalar(2.0)), 0, 1);
  ASSERT_FALSE(scalar.has_value());
  ASSERT_TRUE(scalar.error().cause.has_value());
  EXPECT_EQ(scalar.error().cause->code, llmfs::tensor::TensorErrorCode::rank_too_small);
  EXPECT_EQ(tape.node_count(), 2u);  // a and the scalar constant: nothing recorded
  tape.release();
  auto released = slice_last_axis(a, 0, 1);
  ASSERT_FALSE(released.has_value());
  EXPECT_EQ(released.error().code, AutogradErrorCode::released_input);
}

TEST(Tape, ValueUsedByTwoOpsAccumulates) {
  // z = 3x + x, loss = Σ z = 4 Σ x, so ∂loss/∂x = 4 everywhere.
  Tape tape;
  auto x = tape.parameter(T(Shape{2, 2}, {0.5, -1, 2, 7}));
  auto z = add(scale(x, 3.0).value(), x).value();
  ASSERT_TRUE(backward(sum(z).value(), Tensor::scalar(1.0)).has_value());
  EXPECT_EQ(x.gradient().value(), Tensor::full(Shape{2, 2}, 4.0));
}

TEST(Tape, BackwardTwiceAccumulatesAndZeroGradientsResets) {
  // Policy: a second backward adds to the first. Σ a⊙a: 2a, then 2a + 2a = 4a.
  Tape tape;
  auto a = tape.parameter(T(Shape{3}, {1, 2, 3}));
  auto loss = sum(multiply(a, a).value()).value();
  ASSERT_TRUE(backward(loss, Tensor::scalar(1.0)).has_value());
  ASSERT_TRUE(backward(loss, Tensor::scalar(1.0)).has_value());
  EXPECT_EQ(a.gradient().value(), T(Shape{3}, {4, 8, 12}));
  tape.zero_gradients();
  EXPECT_EQ(a.gradient().value(), Tensor::zeros(Shape{3}));
  ASSERT_TRUE(backward(loss, Tensor::scalar(0.5)).has_value());
  EXPECT_EQ(a.gradient().value(), T(Shape{3}, {1, 2, 3}));
}

TEST(Tape, MatmulGradientsByHand) {
  // A = [[1,2]], B = [[3],[4]], y = A·B = [[11]]. With seed s = [[2]]:
  // ∂/∂A = s·Bᵀ = [[6,8]], ∂/∂B = Aᵀ·s = [[2],[4]].
  Tape tape;
  auto a = tape.parameter(T(Shape{1, 2}, {1, 2}));
  auto b = tape.parameter(T(Shape{2, 1}, {3, 4}));
  auto y = matmul(a, b).value();
  EXPECT_EQ(y.value().value(), T(Shape{1, 1}, {11}));
  ASSERT_TRUE(backward(y, T(Shape{1, 1}, {2})).has_value());
  EXPECT_EQ(a.gradient().value(), T(Shape{1, 2}, {6, 8}));
  EXPECT_EQ(b.gradient().value(), T(Shape{2, 1}, {2, 4}));
}

TEST(Tape, BroadcastGradientSumsOverExpandedAxis) {
  // y = a [2,3] + b [3]; seed U = [[1,2,3],[4,5,6]]: ∂a = U, ∂b = column sums [5,7,9].
  Tape tape;
  auto a = tape.parameter(Tensor::zeros(Shape{2, 3}));
  auto b = tape.parameter(Tensor::zeros(Shape{3}));
  auto y = add(a, b).value();
  const auto u = T(Shape{2, 3}, {1, 2, 3, 4, 5, 6});
  ASSERT_TRUE(backward(y, u).has_value());
  EXPECT_EQ(a.gradient().value(), u);
  EXPECT_EQ(b.gradient().value(), T(Shape{3}, {5, 7, 9}));
}

TEST(Tape, SoftmaxGradientIsExactlyZeroAtMaskedKeys) {
  // scores [0,7,0] + mask [0,-inf,0] -> y = [0.5,0,0.5]. Seed g = [1,5,3]:
  // Σ g⊙y = 0.5 + 1.5 = 2; ∂scores = y⊙(g − 2) = [-0.5, 0·3, 0.5] = [-0.5, 0, 0.5].
  Tape tape;
  const double inf = std::numeric_limits<double>::infinity();
  auto scores = tape.parameter(T(Shape{1, 3}, {0, 7, 0}));
  auto mask = tape.constant(T(Shape{1, 3}, {0, -inf, 0}));
  auto y = softmax_last_axis(add(scores, mask).value()).value();
  EXPECT_EQ(y.value().value(), T(Shape{1, 3}, {0.5, 0, 0.5}));
  ASSERT_TRUE(backward(y, T(Shape{1, 3}, {1, 5, 3})).has_value());
  auto g = scores.gradient().value();
  EXPECT_EQ(g, T(Shape{1, 3}, {-0.5, 0, 0.5}));
  EXPECT_FALSE(std::isnan(g.values()[1]));
}

TEST(Tape, LayoutGradientsArePermutedSeeds) {
  // transpose's gradient is the seed transposed back; reshape's is the seed reshaped
  // back.
  Tape tape;
  auto x = tape.parameter(Tensor::zeros(Shape{2, 3}));
  auto y = reshape(transpose(x, 0, 1).value(), Shape{6}).value();
  ASSERT_TRUE(backward(y, T(Shape{6}, {0, 1, 2, 3, 4, 5})).has_value());
  // y[k] = xᵀ flattened: y = [x00,x10,x01,x11,x02,x12], so ∂x = [[0,2,4],[1,3,5]].
  EXPECT_EQ(x.gradient().value(), T(Shape{2, 3}, {0, 2, 4, 1, 3, 5}));
}

TEST(Tape, SeedOfWrongShapeIsTypedError) {
  Tape tape;
  auto x = tape.parameter(Tensor::zeros(Shape{2, 3}));
  auto r = backward(x, Tensor::zeros(Shape{3, 2}));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, AutogradErrorCode::seed_shape_mismatch);
  EXPECT_EQ(fmt::format("{}", r.error()),
            "backward: upstream seed shape differs from output shape (output [2,3] "
            "seed [3,2])");
}

TEST(Tape, ConstantsHaveNoGradientAndNoBackward) {
  Tape tape;
  auto c = tape.constant(T(Shape{2}, {1, 2}));
  auto y = scale(c, 2.0).value();
  EXPECT_FALSE(y.requires_gradient());
  EXPECT_TRUE(backward(y, Tensor::zeros(Shape{2})).has_value());  // a no-op
  auto g = c.gradient();
  ASSERT_FALSE(g.has_value());
  EXPECT_EQ(g.error().code, AutogradErrorCode::no_gradient);
}

TEST(Tape, UnreachedParameterHasZeroGradient) {
  Tape tape;
  auto used = tape.parameter(T(Shape{1}, {1}));
  auto unused = tape.parameter(T(Shape{2}, {1, 1}));
  ASSERT_TRUE(backward(sum(used).value(), Tensor::scalar(1.0)).has_value());
  EXPECT_EQ(unused.gradient().value(), Tensor::zeros(Shape{2}));
}

TEST(Tape, ReleasedTapeGivesReleasedInputEverywhere) {
  Tape tape;
  auto x = tape.parameter(T(Shape{2}, {1, 2}));
  auto y = scale(x, 2.0).value();
  tape.release();
  tape.release();  // twice is harmless
  EXPECT_TRUE(tape.released());
  EXPECT_EQ(tape.node_count(), 0u);
  EXPECT_EQ(x.shape(), (Shape{2}));  // metadata survives
  EXPECT_EQ(x.value().error().code, AutogradErrorCode::released_input);
  EXPECT_EQ(y.gradient().error().code, AutogradErrorCode::released_input);
  auto op = add(x, y);
  ASSERT_FALSE(op.has_value());
  EXPECT_EQ(op.error().code, AutogradErrorCode::released_input);
  EXPECT_EQ(fmt::format("{}", op.error()), "add: released input (node 0)");
  EXPECT_EQ(backward(y, Tensor::zeros(Shape{2})).error().code,
            AutogradErrorCode::released_input);
  // A value recorded after release is unusable too.
  auto late = tape.constant(T(Shape{1}, {3}));
  EXPECT_EQ(late.value().error().code, AutogradErrorCode::released_input);
  EXPECT_EQ(sum(late).error().code, AutogradErrorCode::released_input);
}

TEST(Tape, EmptyHandleBehavesLikeReleased) {
  TensorValue empty;
  EXPECT_EQ(empty.value().error().code, AutogradErrorCode::released_input);
  EXPECT_EQ(sum(empty).error().code, AutogradErrorCode::released_input);
}

TEST(Tape, ValuesFromDifferentTapesAreRejected) {
  Tape first, second;
  auto a = first.parameter(T(Shape{1}, {1}));
  auto b = second.parameter(T(Shape{1}, {2}));
  auto r = multiply(a, b);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, AutogradErrorCode::different_tapes);
  EXPECT_EQ(first.node_count(), 1u);  // nothing recorded
  EXPECT_TRUE(a.tape() == first);
  EXPECT_FALSE(a.tape() == second);
}

TEST(Tape, TensorErrorsAreWrappedWithTheOp) {
  Tape tape;
  auto a = tape.parameter(Tensor::zeros(Shape{2, 3}));
  auto b = tape.parameter(Tensor::zeros(Shape{4, 5}));
  auto r = matmul(a, b);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, AutogradErrorCode::tensor);
  ASSERT_TRUE(r.error().cause.has_value());
  EXPECT_EQ(r.error().cause->code,
            llmfs::tensor::TensorErrorCode::inner_dimension_mismatch);
  EXPECT_EQ(fmt::format("{}", r.error()),
            "matmul: matmul: inner dimension mismatch: [2,3] and [4,5] (3 != 4)");
  EXPECT_EQ(tape.node_count(), 2u);  // the failed op recorded nothing
}

TEST(Tape, NodeIdsFollowCreationOrder) {
  Tape tape;
  auto a = tape.constant(T(Shape{1}, {1}));
  auto b = tape.parameter(T(Shape{1}, {2}));
  auto c = add(a, b).value();
  EXPECT_EQ(a.node_id(), 0u);
  EXPECT_EQ(b.node_id(), 1u);
  EXPECT_EQ(c.node_id(), 2u);
  EXPECT_TRUE(c.requires_gradient());
  EXPECT_EQ(tape.node_count(), 3u);
}

// A small attention-shaped computation: softmax(X·Wq·(X·Wk)ᵀ/√2)·X·Wv, summed with
// weights.
std::pair<Tensor, Tensor> run_once() {
  Tape tape;
  auto x = tape.parameter(llmfs::test::random_tensor(Shape{2, 3, 4}, 1));
  auto wq = tape.parameter(llmfs::test::random_tensor(Shape{4, 2}, 2));
  auto wk = tape.parameter(llmfs::test::random_tensor(Shape{4, 2}, 3));
  auto q = matmul(x, wq).value();
  auto k = matmul(x, wk).value();
  auto scores =
      scale(matmul(q, transpose(k, 1, 2).value()).value(), 1.0 / std::sqrt(2.0))
          .value();
  auto y = matmul(softmax_last_axis(scores).value(), x).value();
  auto loss = llmfs::test::weighted_sum(tape, y, 9).value();
  EXPECT_TRUE(backward(loss, Tensor::scalar(1.0)).has_value());
  return {loss.value().value(), wk.gradient().value()};
}

TEST(Tape, ReplayOnFreshTapeIsBitwiseIdentical) {
  auto [loss1, grad1] = run_once();
  auto [loss2, grad2] = run_once();
  EXPECT_TRUE(bitwise_equal(loss1, loss2));
  EXPECT_TRUE(bitwise_equal(grad1, grad2));
}

TEST(Tape, EmptyBatchRunsForwardAndBackward) {
  Tape tape;
  auto x = tape.parameter(Tensor::zeros(Shape{0, 3, 4}));
  auto w = tape.parameter(llmfs::test::random_tensor(Shape{4, 4}, 4));
  auto y = softmax_last_axis(matmul(x, w).value()).value();
  ASSERT_TRUE(backward(y, Tensor::zeros(Shape{0, 3, 4})).has_value());
  EXPECT_EQ(x.gradient().value().shape(), (Shape{0, 3, 4}));
  EXPECT_EQ(w.gradient().value(), Tensor::zeros(Shape{4, 4}));
}

// custom ops

TEST(RecordOp, CustomOpGradientByHand) {
  // y = x³ at x = [1,-2]: ∂Σy/∂x = 3x² = [3,12].
  Tape tape;
  auto x = tape.parameter(T(Shape{2}, {1, -2}));
  auto y = llmfs::test::cube(x).value();
  EXPECT_EQ(y.value().value(), T(Shape{2}, {1, -8}));
  ASSERT_TRUE(backward(sum(y).value(), Tensor::scalar(1.0)).has_value());
  EXPECT_EQ(x.gradient().value(), T(Shape{2}, {3, 12}));
}

TEST(RecordOp, WrongShapeContributionFailsThePassAndLeavesGradientsUntouched) {
  Tape tape;
  auto x = tape.parameter(T(Shape{2}, {1, 2}));
  auto first = sum(x).value();
  ASSERT_TRUE(backward(first, Tensor::scalar(1.0)).has_value());  // x.grad = [1,1]
  auto bad = record_op("bad", Tensor::zeros(Shape{2}), {x}, [](BackwardContext& ctx) {
    return ctx.accumulate(0, Tensor::zeros(Shape{3}));
  });
  ASSERT_TRUE(bad.has_value());
  auto loss = add(sum(*bad).value(), first).value();
  auto r = backward(loss, Tensor::scalar(1.0));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, AutogradErrorCode::gradient_shape_mismatch);
  EXPECT_EQ(fmt::format("{}", r.error()),
            "bad: gradient shape differs from parent shape (parent 0 has shape [2], "
            "gradient has shape [3])");
  EXPECT_EQ(x.gradient().value(), T(Shape{2}, {1, 1}));
}

TEST(RecordOp, NeedsAParentAndAValidIndex) {
  auto none = record_op("orphan", Tensor::scalar(1.0), {}, {});
  ASSERT_FALSE(none.has_value());
  EXPECT_EQ(none.error().code, AutogradErrorCode::invalid_argument);
  Tape tape;
  auto x = tape.parameter(T(Shape{1}, {1}));
  auto y = record_op("bad index", Tensor::scalar(1.0), {x}, [](BackwardContext& ctx) {
             return ctx.accumulate(1, Tensor::zeros(Shape{1}));
           }).value();
  EXPECT_EQ(backward(y, Tensor::scalar(1.0)).error().code,
            AutogradErrorCode::invalid_argument);
}

}  // namespace
