#include <cmath>
#include <limits>
#include <span>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <llmfs/tensor/number_format.hpp>
#include <llmfs/tensor/tensor.hpp>

#include "support/random_tensor.hpp"

namespace {

using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
using llmfs::tensor::TensorErrorCode;

TEST(Shape, FormatsWithoutSpaces) {
  EXPECT_EQ(fmt::format("{}", Shape{1, 3, 4}), "[1,3,4]");
  EXPECT_EQ(fmt::format("{}", Shape{}), "[]");
  EXPECT_EQ(fmt::format("{}", Shape{0}), "[0]");
}

TEST(Shape, ElementCountIsProductAndDetectsOverflow) {
  EXPECT_EQ(Shape({2, 3, 4}).element_count(), 24u);
  EXPECT_EQ(Shape{}.element_count(), 1u);
  EXPECT_EQ(Shape({0, 3, 4}).element_count(), 0u);
  const std::size_t big = std::size_t{1} << 40;
  EXPECT_FALSE(Shape({big, big}).element_count().has_value());
  // An empty axis makes the count 0 even when the other axes would overflow.
  EXPECT_EQ(Shape({big, big, 0}).element_count(), 0u);
}

TEST(Shape, RowMajorStridesEndInOne) {
  // [2,3,4]: stride of axis 2 is 1, axis 1 is 4, axis 0 is 3*4 = 12.
  EXPECT_EQ(row_major_strides(Shape{2, 3, 4}), (std::vector<std::size_t>{12, 4, 1}));
  EXPECT_TRUE(row_major_strides(Shape{}).empty());
}

TEST(Shape, RowMajorOffsetIsTheDotProductWithTheStrides) {
  // [2,3,4]: (1,2,3) -> 1*12 + 2*4 + 3 = 23; (0,1,2) -> 6; the scalar's () -> 0.
  const std::vector<std::size_t> last{1, 2, 3}, middle{0, 1, 2}, none{};
  EXPECT_EQ(row_major_offset(Shape{2, 3, 4}, last), 23u);
  EXPECT_EQ(row_major_offset(Shape{2, 3, 4}, middle), 6u);
  EXPECT_EQ(row_major_offset(Shape{}, none), 0u);
}

TEST(Tensor, FromRejectsWrongValueCount) {
  auto t = Tensor::from(Shape{2, 3}, {1, 2, 3, 4, 5});
  ASSERT_FALSE(t.has_value());
  EXPECT_EQ(t.error().code, TensorErrorCode::size_mismatch);
  EXPECT_EQ(fmt::format("{}", t.error()),
            "tensor: size mismatch: [2,3] (shape holds 6 elements, got 5 values)");
}

TEST(Tensor, FromRejectsOverflowingShape) {
  const std::size_t big = std::size_t{1} << 40;
  auto t = Tensor::from(Shape{big, big}, {});
  ASSERT_FALSE(t.has_value());
  EXPECT_EQ(t.error().code, TensorErrorCode::element_count_overflow);
}

TEST(Tensor, AtReadsRowMajorOffset) {
  // [2,3] values 0..5: element (1,2) is at offset 1*3 + 2 = 5.
  auto t = Tensor::from(Shape{2, 3}, {0, 1, 2, 3, 4, 5}).value();
  EXPECT_EQ(t.at({1, 2}).value(), 5.0);
  EXPECT_EQ(t.at({0, 1}).value(), 1.0);
  EXPECT_EQ(t.rank(), 2u);
  EXPECT_EQ(t.size(), 6u);
}

TEST(Tensor, AtRejectsBadIndexAsValue) {
  auto t = Tensor::zeros(Shape{2, 3});
  auto wrong_rank = t.at({1});
  ASSERT_FALSE(wrong_rank.has_value());
  EXPECT_EQ(wrong_rank.error().code, TensorErrorCode::index_out_of_range);
  auto past_end = t.at({0, 3});
  ASSERT_FALSE(past_end.has_value());
  EXPECT_EQ(
      fmt::format("{}", past_end.error()),
      "at: index out of range: [2,3] (index [0,3]: entry 3 on axis 1 of length 3)");
}

TEST(Tensor, ZerosFullAndScalar) {
  auto z = Tensor::zeros(Shape{2, 2});
  for (double v : z.values())
    EXPECT_EQ(v, 0.0);
  auto f = Tensor::full(Shape{3}, 2.5);
  EXPECT_EQ(f.values().size(), 3u);
  for (double v : f.values())
    EXPECT_EQ(v, 2.5);
  auto s = Tensor::scalar(7.0);
  EXPECT_EQ(s.rank(), 0u);
  EXPECT_EQ(s.at({}).value(), 7.0);
  auto empty = Tensor::zeros(Shape{0, 3, 4});
  EXPECT_EQ(empty.size(), 0u);
}

// Storage's allocator changes only elements created without a value: values, copies
// and pushes are std::vector<double>'s.
TEST(Storage, ValuesCopiesAndPushesAreThoseOfAStdVector) {
  llmfs::tensor::Storage filled(4, -0.0);
  for (double v : filled)
    EXPECT_TRUE(std::signbit(v) && v == 0.0);
  llmfs::tensor::Storage pushed;
  for (int i = 0; i < 100; ++i)
    pushed.push_back(0.5 * i);
  const llmfs::tensor::Storage copied = pushed;
  ASSERT_EQ(copied.size(), 100u);
  for (std::size_t i = 0; i < copied.size(); ++i)
    EXPECT_EQ(copied[i], 0.5 * static_cast<double>(i));
  const llmfs::tensor::Storage listed{1.0, 2.0};
  EXPECT_EQ(listed, (llmfs::tensor::Storage{1.0, 2.0}));
}

// uninitialized(): the shape asked for; in a build without NDEBUG every element is the
// quiet NaN a kernel must overwrite (with NDEBUG the values are unspecified, and only
// the shape is checked).
TEST(Tensor, UninitializedHasTheShapeAndIsPoisonedInCheckedBuilds) {
  auto t = Tensor::uninitialized(Shape{3, 5});
  EXPECT_EQ(t.shape(), (Shape{3, 5}));
  EXPECT_EQ(t.size(), 15u);
#ifndef NDEBUG
  for (double v : t.values())
    EXPECT_TRUE(std::isnan(v));
#endif
  EXPECT_EQ(Tensor::uninitialized(Shape{0, 7}).size(), 0u);
  EXPECT_EQ(Tensor::uninitialized(Shape{}).size(), 1u);
}

TEST(Tensor, FromStorageAgreesWithFromAndRefusesTheSame) {
  auto a = Tensor::from(Shape{2, 2}, {1, 2, 3, 4}).value();
  auto b = Tensor::from_storage(Shape{2, 2}, {1, 2, 3, 4}).value();
  EXPECT_EQ(a, b);
  auto wrong = Tensor::from_storage(Shape{2, 3}, {1, 2, 3, 4, 5});
  ASSERT_FALSE(wrong.has_value());
  EXPECT_EQ(fmt::format("{}", wrong.error()),
            "tensor: size mismatch: [2,3] (shape holds 6 elements, got 5 values)");
  const std::size_t big = std::size_t{1} << 40;
  EXPECT_EQ(Tensor::from_storage(Shape{big, big}, {}).error().code,
            TensorErrorCode::element_count_overflow);
}

TEST(Tensor, FormatsShapeAndSixDecimals) {
  auto t = Tensor::from(Shape{2, 2}, {1.0, -0.0, 0.5403023058681398,
                                      -std::numeric_limits<double>::infinity()})
               .value();
  EXPECT_EQ(fmt::format("{}", t),
            "shape:[2,2] values:[1.000000,0.000000,0.540302,-inf]");
}

TEST(NumberFormat, SixDecimalsWithoutNegativeZeroAndOneNanSpelling) {
  EXPECT_EQ(llmfs::tensor::format_number(-0.841470984807896), "-0.841471");
  EXPECT_EQ(llmfs::tensor::format_number(-4e-7),
            "0.000000");  // rounds to zero: no sign
  EXPECT_EQ(llmfs::tensor::format_number(-std::numeric_limits<double>::quiet_NaN()),
            "nan");
  EXPECT_EQ(llmfs::tensor::format_values(std::vector<double>{}), "[]");
  EXPECT_EQ(llmfs::tensor::format_values(std::vector<double>{2.5, -0.0}),
            "[2.500000,0.000000]");
}

TEST(Tensor, BitwiseEqualSeparatesNegativeZero) {
  auto a = Tensor::from(Shape{1}, {0.0}).value();
  auto b = Tensor::from(Shape{1}, {-0.0}).value();
  EXPECT_TRUE(a == b);  // IEEE equality
  EXPECT_FALSE(bitwise_equal(a, b));
  EXPECT_TRUE(bitwise_equal(a, a));
  EXPECT_FALSE(bitwise_equal(a, Tensor::from(Shape{1, 1}, {0.0}).value()));
}

TEST(Tensor, BitwiseEqualOnValuesComparesLengthAndBitsOnly) {
  const std::vector<double> row{1.0, 0.0}, negative{1.0, -0.0}, longer{1.0, 0.0, 2.0};
  EXPECT_TRUE(llmfs::tensor::bitwise_equal(std::span<const double>(row),
                                           std::span<const double>(row)));
  EXPECT_FALSE(llmfs::tensor::bitwise_equal(std::span<const double>(row), negative));
  EXPECT_FALSE(llmfs::tensor::bitwise_equal(std::span<const double>(row), longer));
  const auto t = Tensor::from(Shape{2, 2}, {1.0, 0.0, 1.0, 0.0}).value();
  EXPECT_TRUE(llmfs::tensor::bitwise_equal(t.values().first(2),
                                           t.values().last(2)));  // shape ignored
}

// A shape's count is checked before any allocation: an overflow of std::size_t and a
// count past max_element_count() are both element_count_overflow, never an exception.
TEST(CheckedElementCount, RefusesOverflowAndOversizedCounts) {
  constexpr std::size_t most = std::numeric_limits<std::size_t>::max();
  std::expected<std::size_t, llmfs::tensor::TensorError> wraps, too_big, fits;
  EXPECT_NO_THROW(wraps =
                      llmfs::tensor::checked_element_count(Shape{most / 2, 3}, "t"));
  ASSERT_FALSE(wraps.has_value());
  EXPECT_EQ(wraps.error().code, TensorErrorCode::element_count_overflow);
  EXPECT_EQ(wraps.error().op, "t");
  EXPECT_EQ(wraps.error().shapes, std::vector<Shape>{Shape({most / 2, 3})});
  const std::size_t past = llmfs::tensor::max_element_count() + 1;  // 2^60 on x86-64
  EXPECT_NO_THROW(too_big = llmfs::tensor::checked_element_count(Shape{past}, "t"));
  ASSERT_FALSE(too_big.has_value());
  EXPECT_EQ(too_big.error().code, TensorErrorCode::element_count_overflow);
  EXPECT_NO_THROW(fits = llmfs::tensor::checked_element_count(Shape{0, most}, "t"));
  EXPECT_EQ(fits.value(), 0u);
  EXPECT_EQ(llmfs::tensor::checked_element_count(Shape{2, 3}, "t").value(), 6u);
  EXPECT_EQ(llmfs::tensor::checked_element_count(Shape{}, "t").value(), 1u);
}

}  // namespace
