#include <fmt/format.h>
#include <gtest/gtest.h>

#include <llmfs/tensor/layout.hpp>
#include <llmfs/tensor/strided.hpp>

#include "support/random_tensor.hpp"

namespace {

using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
using llmfs::tensor::TensorErrorCode;
using llmfs::test::naive_offset;
using llmfs::test::random_tensor;

TEST(Reshape, KeepsRowMajorOrder) {
  auto t = Tensor::from(Shape{2, 3}, {0, 1, 2, 3, 4, 5}).value();
  auto r = llmfs::tensor::reshape(t, Shape{3, 2}).value();
  EXPECT_EQ(r.shape(), (Shape{3, 2}));
  // Element (2,1) of [3,2] is offset 2*2+1 = 5, the same storage slot as (1,2) of
  // [2,3].
  EXPECT_EQ(r.at({2, 1}).value(), 5.0);
  EXPECT_TRUE(bitwise_equal(llmfs::tensor::reshape(r, Shape{2, 3}).value(), t));
}

TEST(Reshape, RejectsDifferentElementCount) {
  auto r = llmfs::tensor::reshape(Tensor::zeros(Shape{2, 3}), Shape{4, 2});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, TensorErrorCode::size_mismatch);
  EXPECT_EQ(
      fmt::format("{}", r.error()),
      "reshape: size mismatch: [2,3] and [4,2] (6 elements cannot take a shape of 8)");
}

TEST(Reshape, ByMoveKeepsTheStorageAndEmptiesTheInput) {
  Tensor t = Tensor::from(Shape{2, 3}, {0, 1, 2, 3, 4, 5}).value();
  const double* storage = t.values().data();
  auto r = llmfs::tensor::reshape(std::move(t), Shape{6}).value();
  EXPECT_EQ(r.values().data(), storage);  // moved, not copied
  EXPECT_EQ(r.values()[5], 5.0);
  EXPECT_EQ(t.shape(), (Shape{0}));  // NOLINT(bugprone-use-after-move): the claim
  EXPECT_EQ(t.size(), 0u);
  Tensor kept = Tensor::zeros(Shape{2, 3});
  EXPECT_FALSE(llmfs::tensor::reshape(std::move(kept), Shape{5}).has_value());
  EXPECT_EQ(kept.size(), 6u);  // a refused reshape takes nothing
}

TEST(TransposedView, SwapsLengthsAndStridesAndTestsContiguity) {
  using llmfs::tensor::is_row_major;
  using llmfs::tensor::transposed_view;
  const auto view = transposed_view(Shape{2, 3, 4}, 0, 2);
  EXPECT_EQ(view.shape, (Shape{4, 3, 2}));
  EXPECT_EQ(view.strides, (std::vector<std::size_t>{1, 4, 12}));
  EXPECT_FALSE(is_row_major(view));
  EXPECT_TRUE(is_row_major(transposed_view(Shape{2, 3, 4}, 1, 1)));
  EXPECT_TRUE(is_row_major(transposed_view(Shape{2, 1, 4}, 0, 1)));  // unit axis
  EXPECT_TRUE(is_row_major(transposed_view(Shape{2, 0, 4}, 0, 2)));  // empty
  EXPECT_TRUE(is_row_major({Shape{}, {}}));                          // scalar
}

TEST(SliceLastAxis, TakesTheSameColumnsOfEveryRow) {
  // [[0,1,2,3],[4,5,6,7]] columns [1,3) -> [[1,2],[5,6]]; the leading axes stay.
  auto t = Tensor::from(Shape{1, 2, 4}, {0, 1, 2, 3, 4, 5, 6, 7}).value();
  auto s = llmfs::tensor::slice_last_axis(t, 1, 3).value();
  EXPECT_EQ(s.shape(), (Shape{1, 2, 2}));
  EXPECT_EQ(std::vector<double>(s.values().begin(), s.values().end()),
            (std::vector<double>{1, 2, 5, 6}));
  auto empty = llmfs::tensor::slice_last_axis(t, 4, 4).value();
  EXPECT_EQ(empty.shape(), (Shape{1, 2, 0}));
  EXPECT_TRUE(bitwise_equal(llmfs::tensor::slice_last_axis(t, 0, 4).value(), t));
}

TEST(SliceLastAxis, RejectsScalarsAndColumnsOutsideTheAxis) {
  auto scalar = llmfs::tensor::slice_last_axis(Tensor::scalar(1.0), 0, 0);
  ASSERT_FALSE(scalar.has_value());
  EXPECT_EQ(scalar.error().code, TensorErrorCode::rank_too_small);
  const Tensor t = Tensor::zeros(Shape{2, 3});
  auto past = llmfs::tensor::slice_last_axis(t, 2, 4);
  ASSERT_FALSE(past.has_value());
  EXPECT_EQ(past.error().code, TensorErrorCode::index_out_of_range);
  EXPECT_EQ(fmt::format("{}", past.error()),
            "slice_last_axis: index out of range: [2,3] (columns [2, 4) of 3)");
  auto reversed = llmfs::tensor::slice_last_axis(t, 2, 1);
  ASSERT_FALSE(reversed.has_value());
  EXPECT_EQ(reversed.error().code, TensorErrorCode::index_out_of_range);
}

TEST(Transpose, SwapsTwoAxesOfAMatrix) {
  // [[0,1,2],[3,4,5]]ᵀ = [[0,3],[1,4],[2,5]]
  auto t = Tensor::from(Shape{2, 3}, {0, 1, 2, 3, 4, 5}).value();
  auto tt = llmfs::tensor::transpose(t, 0, 1).value();
  EXPECT_EQ(tt.shape(), (Shape{3, 2}));
  EXPECT_EQ(std::vector<double>(tt.values().begin(), tt.values().end()),
            (std::vector<double>{0, 3, 1, 4, 2, 5}));
}

TEST(Transpose, MatchesNaiveLoopsOnRandomRank4) {
  // The head split's transpose(1,2) of [B,T,h,d_h], checked against four nested loops.
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const std::size_t B = seed % 3 + 1, T = seed + 1, h = 4 - seed % 3,
                      d = seed % 2 + 2;
    auto x = random_tensor(Shape{B, T, h, d}, seed);
    auto y = llmfs::tensor::transpose(x, 1, 2).value();
    ASSERT_EQ(y.shape(), (Shape{B, h, T, d}));
    for (std::size_t b = 0; b < B; ++b)
      for (std::size_t t = 0; t < T; ++t)
        for (std::size_t i = 0; i < h; ++i)
          for (std::size_t j = 0; j < d; ++j)
            EXPECT_EQ(y.values()[naive_offset(y.shape(), {b, i, t, j})],
                      x.values()[naive_offset(x.shape(), {b, t, i, j})]);
  }
}

TEST(Transpose, TwiceIsIdentityAndSameAxisCopies) {
  auto x = random_tensor(Shape{2, 3, 4}, 7);
  EXPECT_TRUE(bitwise_equal(
      llmfs::tensor::transpose(llmfs::tensor::transpose(x, 0, 2).value(), 0, 2).value(),
      x));
  EXPECT_TRUE(bitwise_equal(llmfs::tensor::transpose(x, 1, 1).value(), x));
}

TEST(Transpose, EmptyAxisGivesEmptyResult) {
  auto y = llmfs::tensor::transpose(Tensor::zeros(Shape{0, 3, 4}), 1, 2).value();
  EXPECT_EQ(y.shape(), (Shape{0, 4, 3}));
  EXPECT_EQ(y.size(), 0u);
}

TEST(Transpose, RejectsAxisPastRank) {
  auto r = llmfs::tensor::transpose(Tensor::zeros(Shape{2, 3}), 0, 2);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, TensorErrorCode::axis_out_of_range);
  EXPECT_EQ(fmt::format("{}", r.error()),
            "transpose: axis out of range: [2,3] (axes 0 and 2 for rank 2)");
}

TEST(StridedCursor, VisitsRowMajorOffsets) {
  // Extent [2,3] with contiguous strides {3,1}: offsets 0..5 in order; with zero
  // strides on axis 0 (a broadcast row): 0,1,2,0,1,2.
  std::vector<std::size_t> own{3, 1}, row{0, 1};
  std::vector<std::size_t> seen_own, seen_row;
  llmfs::tensor::for_each_strided<2>(
      Shape{2, 3},
      {std::span<const std::size_t>(own), std::span<const std::size_t>(row)},
      [&](const std::array<std::size_t, 2>& at) {
        seen_own.push_back(at[0]);
        seen_row.push_back(at[1]);
      });
  EXPECT_EQ(seen_own, (std::vector<std::size_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(seen_row, (std::vector<std::size_t>{0, 1, 2, 0, 1, 2}));
}

TEST(StridedCursor, ScalarExtentVisitsOnceEmptyExtentNever) {
  int scalar_visits = 0, empty_visits = 0;
  llmfs::tensor::for_each_strided<1>(Shape{}, {std::span<const std::size_t>()},
                                     [&](const auto&) { ++scalar_visits; });
  std::vector<std::size_t> s{1, 1};
  llmfs::tensor::for_each_strided<1>(Shape{3, 0}, {std::span<const std::size_t>(s)},
                                     [&](const auto&) { ++empty_visits; });
  EXPECT_EQ(scalar_visits, 1);
  EXPECT_EQ(empty_visits, 0);
}

}  // namespace
