// Chapter 11: property tests over many seeded random batched shapes against naive loops
// written from the definition c[..., i, j] = Σ_p a[..., i, p]·b[..., p, j], with the
// batch axes broadcast by chapter 10's rule (index 0 on a batch axis of length 1,
// missing axes skipped). Both add from 0.0 in increasing p, so every comparison is bit
// for bit.
#include <cstdint>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/tensor/matmul.hpp>

#include "support/random_tensor.hpp"

namespace {

using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
using llmfs::tensor::TensorErrorCode;
using Index = std::vector<std::size_t>;

constexpr int kCh11Cases = 200;

// The offset of matrix `batch_index` (an index of the broadcast batch) in an operand
// with these batch axes and matrices of `size` elements.
std::size_t ch11_matrix_offset(const Index& own, const Index& batch_index,
                               std::size_t size) {
  const std::size_t lead = batch_index.size() - own.size();
  std::size_t offset = 0;
  for (std::size_t axis = 0; axis < own.size(); ++axis)
    offset = offset * own[axis] + (own[axis] == 1 ? 0 : batch_index[lead + axis]);
  return offset * size;
}

TEST(Ch11Property, BatchedMatmulEqualsNaiveLoops) {
  std::mt19937_64 rng(1111);
  for (int c = 0; c < kCh11Cases; ++c) {
    Index batch(rng() % 3);
    for (auto& d : batch)
      d = 1 + rng() % 3;
    // Each operand: a suffix of the batch axes, some set to 1.
    auto operand_batch = [&] {
      Index own(batch.begin() + static_cast<std::ptrdiff_t>(rng() % (batch.size() + 1)),
                batch.end());
      for (auto& d : own)
        if (rng() % 3 == 0) d = 1;
      return own;
    };
    const Index ba = operand_batch(), bb = operand_batch();
    const std::size_t n = rng() % 5, k = rng() % 5, m = rng() % 5;  // 0 allowed
    Index da = ba, db = bb;
    da.insert(da.end(), {n, k});
    db.insert(db.end(), {k, m});
    const Tensor a = llmfs::test::random_tensor(Shape(da), 3 * c),
                 b = llmfs::test::random_tensor(Shape(db), 3 * c + 1);
    const auto got = llmfs::tensor::matmul(a, b);
    ASSERT_TRUE(got.has_value()) << fmt::format("{}", got.error());
    // The broadcast batch, per axis from the right.
    Index out_batch(std::max(ba.size(), bb.size()));
    for (std::size_t i = 0; i < out_batch.size(); ++i) {
      const std::size_t la = i < ba.size() ? ba[ba.size() - 1 - i] : 1;
      const std::size_t lb = i < bb.size() ? bb[bb.size() - 1 - i] : 1;
      out_batch[out_batch.size() - 1 - i] = la == 1 ? lb : la;
    }
    Index out_dims = out_batch;
    out_dims.insert(out_dims.end(), {n, m});
    ASSERT_EQ(got->shape(), Shape(out_dims));
    std::size_t at = 0;
    for (const Index& bi : llmfs::test::all_indices(out_batch)) {
      const std::size_t oa = ch11_matrix_offset(ba, bi, n * k);
      const std::size_t ob = ch11_matrix_offset(bb, bi, k * m);
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < m; ++j, ++at) {
          double sum = 0.0;
          for (std::size_t p = 0; p < k; ++p)
            sum += a.values()[oa + i * k + p] * b.values()[ob + p * m + j];
          ASSERT_EQ(got->values()[at], sum)
              << fmt::format("{}·{} at {}", a.shape(), b.shape(), at);
        }
    }
  }
}

TEST(Ch11Property, MismatchedShapesAreRefused) {
  std::mt19937_64 rng(1112);
  for (int c = 0; c < kCh11Cases; ++c) {
    const std::size_t n = 1 + rng() % 4, k = 1 + rng() % 4, m = 1 + rng() % 4;
    const auto inner = llmfs::tensor::matmul(Tensor::zeros(Shape{n, k}),
                                             Tensor::zeros(Shape{k + 1, m}));
    ASSERT_FALSE(inner.has_value());
    EXPECT_EQ(inner.error().code, TensorErrorCode::inner_dimension_mismatch);
    const std::size_t batch = 2 + rng() % 3;
    const auto batched = llmfs::tensor::matmul(Tensor::zeros(Shape{batch, n, k}),
                                               Tensor::zeros(Shape{batch + 1, k, m}));
    ASSERT_FALSE(batched.has_value());
    EXPECT_EQ(batched.error().code, TensorErrorCode::broadcast_mismatch);
    EXPECT_EQ(batched.error().detail,
              fmt::format("batch axes [{}] and [{}]", batch, batch + 1));
  }
}

}  // namespace
