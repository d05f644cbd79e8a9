#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <llmfs/tensor/broadcast.hpp>

#include "support/random_tensor.hpp"

namespace {

using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
using llmfs::tensor::TensorErrorCode;
using llmfs::test::naive_offset;
using llmfs::test::random_tensor;

TEST(BroadcastShapes, AlignsOnTheRight) {
  EXPECT_EQ(llmfs::tensor::broadcast_shapes(Shape{2, 1, 4}, Shape{3, 1}).value(),
            (Shape{2, 3, 4}));
  EXPECT_EQ(llmfs::tensor::broadcast_shapes(Shape{}, Shape{2, 2}).value(),
            (Shape{2, 2}));
  EXPECT_EQ(llmfs::tensor::broadcast_shapes(Shape{0, 1}, Shape{1, 5}).value(),
            (Shape{0, 5}));
}

TEST(BroadcastShapes, RejectsUnequalNonUnitAxes) {
  auto r = llmfs::tensor::broadcast_shapes(Shape{2, 3}, Shape{4, 3}, "add");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, TensorErrorCode::broadcast_mismatch);
  EXPECT_EQ(fmt::format("{}", r.error()),
            "add: shapes do not broadcast: [2,3] and [4,3] (axis -2: 2 vs 4)");
}

// a: [2,1,4], b: [3,1] -> [2,3,4]; out[i,j,k] = f(a[i,0,k], b[j,0]).
template <typename Op, typename Ref>
void check_against_loops(Op op, Ref ref) {
  auto a = random_tensor(Shape{2, 1, 4}, 11);
  auto b = random_tensor(Shape{3, 1}, 12);
  auto out = op(a, b).value();
  ASSERT_EQ(out.shape(), (Shape{2, 3, 4}));
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t j = 0; j < 3; ++j)
      for (std::size_t k = 0; k < 4; ++k)
        EXPECT_EQ(out.values()[naive_offset(out.shape(), {i, j, k})],
                  ref(a.values()[i * 4 + k], b.values()[j]));
}

TEST(Elementwise, AddBroadcastsLikeNestedLoops) {
  check_against_loops([](auto& a, auto& b) { return llmfs::tensor::add(a, b); },
                      [](double x, double y) { return x + y; });
}

TEST(Elementwise, SubtractBroadcastsLikeNestedLoops) {
  check_against_loops([](auto& a, auto& b) { return llmfs::tensor::subtract(a, b); },
                      [](double x, double y) { return x - y; });
}

TEST(Elementwise, MultiplyBroadcastsLikeNestedLoops) {
  check_against_loops([](auto& a, auto& b) { return llmfs::tensor::multiply(a, b); },
                      [](double x, double y) { return x * y; });
}

TEST(Elementwise, SmallHandValues) {
  // [[1,2],[3,4]] + [10,20] = [[11,22],[13,24]]; [[1,2],[3,4]] ⊙ [[2],[3]] =
  // [[2,4],[9,12]].
  auto m = Tensor::from(Shape{2, 2}, {1, 2, 3, 4}).value();
  auto row = Tensor::from(Shape{2}, {10, 20}).value();
  auto col = Tensor::from(Shape{2, 1}, {2, 3}).value();
  EXPECT_EQ(llmfs::tensor::add(m, row).value(),
            Tensor::from(Shape{2, 2}, {11, 22, 13, 24}).value());
  EXPECT_EQ(llmfs::tensor::multiply(m, col).value(),
            Tensor::from(Shape{2, 2}, {2, 4, 9, 12}).value());
  EXPECT_EQ(llmfs::tensor::subtract(m, Tensor::scalar(1)).value(),
            Tensor::from(Shape{2, 2}, {0, 1, 2, 3}).value());
  EXPECT_EQ(llmfs::tensor::scale(m, -0.5).value(),
            Tensor::from(Shape{2, 2}, {-0.5, -1, -1.5, -2}).value());
}

TEST(Elementwise, MismatchIsTypedErrorNamingTheOp) {
  auto r = llmfs::tensor::multiply(Tensor::zeros(Shape{2, 3}), Tensor::zeros(Shape{2}));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, TensorErrorCode::broadcast_mismatch);
  EXPECT_EQ(r.error().op, "multiply");
  EXPECT_EQ(r.error().shapes, (std::vector<Shape>{Shape{2, 3}, Shape{2}}));
}

TEST(Sum, AddsEveryElement) {
  EXPECT_EQ(
      llmfs::tensor::sum(Tensor::from(Shape{2, 2}, {1, 2, 3, 4.5}).value()).value(),
      Tensor::scalar(10.5));
  EXPECT_EQ(llmfs::tensor::sum(Tensor::zeros(Shape{0, 3})).value(),
            Tensor::scalar(0.0));
}

TEST(SumTo, ReducesBroadcastAxesLikeNestedLoops) {
  // x: [2,3,4] -> [3,1]: out[j,0] = Σ_i Σ_k x[i,j,k].
  auto x = random_tensor(Shape{2, 3, 4}, 21);
  auto out = llmfs::tensor::sum_to(x, Shape{3, 1}).value();
  ASSERT_EQ(out.shape(), (Shape{3, 1}));
  for (std::size_t j = 0; j < 3; ++j) {
    double expected = 0.0;
    for (std::size_t i = 0; i < 2; ++i)
      for (std::size_t k = 0; k < 4; ++k)
        expected += x.values()[naive_offset(x.shape(), {i, j, k})];
    EXPECT_EQ(out.values()[j], expected);
  }
}

TEST(SumTo, SameShapeIsIdentityAndScalarIsTotal) {
  auto x = random_tensor(Shape{2, 3}, 22);
  EXPECT_TRUE(bitwise_equal(llmfs::tensor::sum_to(x, Shape{2, 3}).value(), x));
  EXPECT_TRUE(bitwise_equal(llmfs::tensor::sum_to(x, Shape{}).value(),
                            llmfs::tensor::sum(x).value()));
}

TEST(SumTo, RejectsTargetThatDoesNotBroadcast) {
  auto r = llmfs::tensor::sum_to(Tensor::zeros(Shape{2, 3}), Shape{2});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, TensorErrorCode::reduce_mismatch);
  // A target with more axes than the input cannot be reached by summing.
  EXPECT_FALSE(llmfs::tensor::sum_to(Tensor::zeros(Shape{3}), Shape{1, 3}).has_value());
  // [2,1] broadcasts with [2,3] but to itself only if the input is [2,3]: fine; [4,1]
  // is not.
  EXPECT_FALSE(
      llmfs::tensor::sum_to(Tensor::zeros(Shape{2, 3}), Shape{4, 1}).has_value());
}

// x = [[1,-2,3],[4,5,-6]]: by hand, sums over axis 0 are (5,3,-3), over axis 1 (2,3).
Tensor broadcast_reduce_fixture() {
  return Tensor::from(Shape{2, 3}, {1, -2, 3, 4, 5, -6}).value();
}

TEST(Reduce, SumMeanMaxKeepTheAxis) {
  const Tensor x = broadcast_reduce_fixture();
  EXPECT_EQ(llmfs::tensor::reduce_sum(x, 0).value(),
            Tensor::from(Shape{1, 3}, {5, 3, -3}).value());
  EXPECT_EQ(llmfs::tensor::reduce_sum(x, 1).value(),
            Tensor::from(Shape{2, 1}, {2, 3}).value());
  EXPECT_EQ(llmfs::tensor::reduce_mean(x, 0).value(),
            Tensor::from(Shape{1, 3}, {2.5, 1.5, -1.5}).value());
  EXPECT_EQ(llmfs::tensor::reduce_max(x, 1).value(),
            Tensor::from(Shape{2, 1}, {3, 5}).value());
  // A rank-1 input reduces to [1], not to a scalar.
  EXPECT_EQ(llmfs::tensor::reduce_max(Tensor::from(Shape{3}, {-1, -7, -2}).value(), 0)
                .value(),
            Tensor::from(Shape{1}, {-1}).value());
}

TEST(Reduce, MaxPropagatesNaNWhereverItIs) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (std::size_t at = 0; at < 3; ++at) {
    std::vector<double> v{1.0, 2.0, 3.0};
    v[at] = nan;
    auto m = llmfs::tensor::reduce_max(Tensor::from(Shape{3}, v).value(), 0).value();
    EXPECT_TRUE(std::isnan(m.values()[0])) << "NaN at " << at;
  }
  // −∞ everywhere is a maximum of −∞, not an error.
  auto all_minus_inf = Tensor::full(Shape{2}, -std::numeric_limits<double>::infinity());
  EXPECT_EQ(llmfs::tensor::reduce_max(all_minus_inf, 0).value().values()[0],
            -std::numeric_limits<double>::infinity());
}

TEST(Reduce, EmptyAxisSumsToZeroButHasNoMeanOrMax) {
  const Tensor empty = Tensor::zeros(Shape{2, 0});
  EXPECT_EQ(llmfs::tensor::reduce_sum(empty, 1).value(), Tensor::zeros(Shape{2, 1}));
  // Reducing the other axis gives an empty result, which is fine for every reduction.
  EXPECT_EQ(llmfs::tensor::reduce_max(empty, 0).value().shape(), (Shape{1, 0}));
  auto mean = llmfs::tensor::reduce_mean(empty, 1);
  ASSERT_FALSE(mean.has_value());
  EXPECT_EQ(fmt::format("{}", mean.error()),
            "reduce_mean: reduction over an empty axis: [2,0] (axis 1 has length 0)");
  EXPECT_EQ(llmfs::tensor::reduce_max(empty, 1).error().code,
            TensorErrorCode::empty_reduction);
}

TEST(Reduce, AxisPastTheRankIsRefused) {
  auto r = llmfs::tensor::reduce_sum(broadcast_reduce_fixture(), 2);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(fmt::format("{}", r.error()),
            "reduce_sum: axis out of range: [2,3] (axis 2 of rank 2)");
  EXPECT_EQ(llmfs::tensor::reduce_mean(Tensor::scalar(1.0), 0).error().code,
            TensorErrorCode::axis_out_of_range);
}

// [0, 2^40, 2^40] holds no element, but keeping axis 0 as length 1 would hold 2^80:
// the reductions and sum_to refuse such a result instead of allocating it.
TEST(Reductions, RefuseAResultCountThatDoesNotFit) {
  const std::size_t big = std::size_t{1} << 40;
  const Tensor empty = Tensor::zeros(Shape{0, big, big});
  std::expected<Tensor, llmfs::tensor::TensorError> summed, maxed, undone, too_big;
  EXPECT_NO_THROW(summed = llmfs::tensor::reduce_sum(empty, 0));
  ASSERT_FALSE(summed.has_value());
  EXPECT_EQ(summed.error().code, TensorErrorCode::element_count_overflow);
  EXPECT_EQ(summed.error().op, "reduce_sum");
  // reduce_max over the empty axis is refused as empty before its count could matter;
  // over an axis with elements every other length stays: [2^40, 1, 0] fits.
  EXPECT_NO_THROW(maxed = llmfs::tensor::reduce_max(empty, 0));
  ASSERT_FALSE(maxed.has_value());
  EXPECT_EQ(maxed.error().code, TensorErrorCode::empty_reduction);
  EXPECT_NO_THROW(maxed =
                      llmfs::tensor::reduce_max(Tensor::zeros(Shape{big, big, 0}), 1));
  EXPECT_EQ(maxed.value().shape(), Shape({big, 1, 0}));
  EXPECT_NO_THROW(undone = llmfs::tensor::sum_to(empty, Shape{1, big, big}));
  ASSERT_FALSE(undone.has_value());
  EXPECT_EQ(undone.error().code, TensorErrorCode::element_count_overflow);
  EXPECT_EQ(undone.error().op, "sum_to");
  const std::size_t half = std::size_t{1} << 31;  // 2^62 fits size_t, not a tensor
  EXPECT_NO_THROW(too_big = llmfs::tensor::sum_to(Tensor::zeros(Shape{0, half, half}),
                                                  Shape{half, half}));
  ASSERT_FALSE(too_big.has_value());
  EXPECT_EQ(too_big.error().code, TensorErrorCode::element_count_overflow);
  EXPECT_EQ(llmfs::tensor::reduce_sum(Tensor::zeros(Shape{0, 2, 3}), 0).value(),
            Tensor::zeros(Shape{1, 2, 3}));
}

}  // namespace
