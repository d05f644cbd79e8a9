// Chapter 11: the library's matmul against NumPy float64 np.matmul on three random
// cases (a plain product, broadcast batch axes, a linear layer), read from
// tests/reference/data/tensor/ch11_matmul.txt (make_matmul_reference.py; inputs stored
// beside the outputs). NumPy's BLAS may add in another order, so each element is
// compared to 1e-14 per term of its sum (the inputs lie in [-1, 1)).
#include <string>

#include <gtest/gtest.h>

#include <llmfs/tensor/matmul.hpp>

#include "support/reference_data.hpp"

namespace {

using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

Tensor ch11_stored(std::string_view name) {
  static const auto data = llmfs::testing::load_reference(
      LLMFS_SOURCE_DIR "/tests/reference/data/tensor/ch11_matmul.txt");
  const auto& t = data.at(name);
  return Tensor::from(Shape(t.shape), t.values).value();
}

class Ch11Reference : public ::testing::TestWithParam<const char*> {};

TEST_P(Ch11Reference, MatmulMatchesNumPy) {
  const std::string name = GetParam();
  const Tensor a = ch11_stored(name + "_a"), b = ch11_stored(name + "_b");
  const Tensor want = ch11_stored(name + "_c");
  const auto got = llmfs::tensor::matmul(a, b);
  ASSERT_TRUE(got.has_value()) << fmt::format("{}", got.error());
  ASSERT_EQ(got->shape(), want.shape());
  const double k = static_cast<double>(a.shape()[a.rank() - 1]);
  for (std::size_t x = 0; x < want.size(); ++x)
    EXPECT_NEAR(got->values()[x], want.values()[x], 1e-14 * k)
        << name << " element " << x;
}

INSTANTIATE_TEST_SUITE_P(Cases, Ch11Reference,
                         ::testing::Values("plain", "batched", "linear"));

}  // namespace
