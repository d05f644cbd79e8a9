#pragma once
// Tensor helpers shared by the unit tests.

#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/tensor/tensor.hpp>

namespace llmfs::testing {

/// A tensor from a shape and row-major values; a mismatch fails the calling test.
inline tensor::Tensor make(tensor::Shape shape, std::vector<double> values) {
  auto tensor = tensor::Tensor::from(std::move(shape), std::move(values));
  EXPECT_TRUE(tensor.has_value());
  return tensor ? *tensor : tensor::Tensor();
}

}  // namespace llmfs::testing
