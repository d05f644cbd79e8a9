#pragma once
// Helpers shared by tests of taped code (Chapter 15 onwards): read a node's value or
// gradient (a failure fails the calling test), compare values, check finiteness.

#include <cmath>
#include <span>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/autograd/tape.hpp>
#include <llmfs/tensor/tensor.hpp>

namespace llmfs::testing {

inline tensor::Tensor value_of(const autograd::TensorValue& value) {
  auto tensor = value.value();
  EXPECT_TRUE(tensor.has_value());
  return tensor ? *tensor : tensor::Tensor();
}

inline tensor::Tensor gradient_of(const autograd::TensorValue& value) {
  auto tensor = value.gradient();
  EXPECT_TRUE(tensor.has_value());
  return tensor ? *tensor : tensor::Tensor();
}

inline void expect_values_near(const tensor::Tensor& actual,
                               std::span<const double> expected, double tolerance) {
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(actual.values()[i], expected[i], tolerance) << "at flat index " << i;
  }
}

// Every value of `actual` within `tolerance` of `expected`, in order; `what` names the
// quantity in a failure.
inline void expect_values_near(std::span<const double> actual,
                               const std::vector<double>& expected, double tolerance,
                               std::string_view what) {
  ASSERT_EQ(actual.size(), expected.size()) << what;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_NEAR(actual[i], expected[i], tolerance) << what << " at " << i;
  }
}

inline bool all_finite(const tensor::Tensor& tensor) {
  for (double value : tensor.values()) {
    if (!std::isfinite(value)) return false;
  }
  return true;
}

}  // namespace llmfs::testing
