// Chapter 10: the library against NumPy float64 on a larger random case, read from
// tests/reference/data/tensor/ch10_broadcast.txt (make_broadcast_reference.py; the
// inputs are stored beside the outputs). Elementwise results agree to the bit (one IEEE
// operation each); sums may differ by a few ulps, because NumPy adds pairwise and the
// library in index order, so they are compared to 1e-14 relative to the sum of
// magnitudes.
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include <llmfs/tensor/broadcast.hpp>

#include "support/reference_data.hpp"

namespace {

using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

const llmfs::testing::ReferenceData& ch10_reference() {
  static const auto data = llmfs::testing::load_reference(
      LLMFS_SOURCE_DIR "/tests/reference/data/tensor/ch10_broadcast.txt");
  return data;
}

Tensor ch10_stored(std::string_view name) {
  const auto& t = ch10_reference().at(name);
  return Tensor::from(Shape(t.shape), t.values).value();
}

void ch10_expect_close(const Tensor& got, std::string_view name, double tolerance) {
  const Tensor want = ch10_stored(name);
  ASSERT_EQ(got.shape(), want.shape()) << name;
  for (std::size_t k = 0; k < want.size(); ++k)
    EXPECT_NEAR(got.values()[k], want.values()[k], tolerance)
        << name << " element " << k;
}

TEST(Ch10Reference, ElementwiseMatchesNumPyToTheBit) {
  const Tensor a = ch10_stored("a"), b = ch10_stored("b");
  EXPECT_EQ(llmfs::tensor::add(a, b).value(), ch10_stored("add"));
  EXPECT_EQ(llmfs::tensor::subtract(a, b).value(), ch10_stored("subtract"));
  EXPECT_EQ(llmfs::tensor::multiply(a, b).value(), ch10_stored("multiply"));
}

TEST(Ch10Reference, ReductionsOverEachAxisMatchNumPy) {
  const Tensor big = ch10_stored("big");  // [7,6,9], values in [-1,1)
  for (std::size_t axis = 0; axis < 3; ++axis) {
    const double n = static_cast<double>(big.shape()[axis]);
    const double tolerance = 1e-14 * n;  // n terms of magnitude ≤ 1
    ch10_expect_close(llmfs::tensor::reduce_sum(big, axis).value(),
                      fmt::format("sum_axis{}", axis), tolerance);
    ch10_expect_close(llmfs::tensor::reduce_mean(big, axis).value(),
                      fmt::format("mean_axis{}", axis), tolerance);
    // A maximum does no arithmetic: equal to the bit.
    EXPECT_EQ(llmfs::tensor::reduce_max(big, axis).value(),
              ch10_stored(fmt::format("max_axis{}", axis)));
  }
}

TEST(Ch10Reference, SumToMatchesNumPy) {
  const Tensor product = ch10_stored("multiply");  // [4,3,5]
  ch10_expect_close(llmfs::tensor::sum_to(product, Shape{3, 1}).value(), "sum_to_b",
                    1e-14 * 20);
  ch10_expect_close(llmfs::tensor::sum_to(product, Shape{4, 1, 5}).value(), "sum_to_a",
                    1e-14 * 3);
  ch10_expect_close(llmfs::tensor::sum_to(product, Shape{5}).value(), "sum_to_last",
                    1e-14 * 12);
  ch10_expect_close(llmfs::tensor::sum(product).value(), "sum_all", 1e-14 * 60);
}

}  // namespace
