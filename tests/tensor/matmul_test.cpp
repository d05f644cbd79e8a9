#include <array>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <llmfs/tensor/matmul.hpp>

#include "support/random_tensor.hpp"

namespace {

using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
using llmfs::tensor::TensorErrorCode;
using llmfs::test::random_tensor;

TEST(Matmul, TwoByTwoByHand) {
  // [[1,2],[3,4]]·[[5,6],[7,8]]: 1*5+2*7=19, 1*6+2*8=22, 3*5+4*7=43, 3*6+4*8=50.
  auto a = Tensor::from(Shape{2, 2}, {1, 2, 3, 4}).value();
  auto b = Tensor::from(Shape{2, 2}, {5, 6, 7, 8}).value();
  EXPECT_EQ(llmfs::tensor::matmul(a, b).value(),
            Tensor::from(Shape{2, 2}, {19, 22, 43, 50}).value());
}

// The naive reference: c[batch,i,j] = Σ_p a[batch_a,i,p]·b[batch_b,p,j], added from 0.0
// in p order.
Tensor naive_batched(const Tensor& a, const Tensor& b, std::size_t batches,
                     bool a_shared, bool b_shared, std::size_t n, std::size_t k,
                     std::size_t m, const Shape& out_shape) {
  std::vector<double> c(batches * n * m, 0.0);
  for (std::size_t s = 0; s < batches; ++s)
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < m; ++j) {
        double acc = 0.0;
        for (std::size_t p = 0; p < k; ++p) {
          acc += a.values()[(a_shared ? 0 : s) * n * k + i * k + p] *
                 b.values()[(b_shared ? 0 : s) * k * m + p * m + j];
        }
        c[s * n * m + i * m + j] = acc;
      }
  return Tensor::from(out_shape, std::move(c)).value();
}

TEST(Matmul, BatchedAttentionShapesAreBitwiseEqualToNaiveLoops) {
  // scores = Q·Kᵀ: [B,h,T,d_h]·[B,h,d_h,T] -> [B,h,T,T], for several random sizes.
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const std::size_t B = seed % 2 + 1, h = seed % 3 + 1, T = seed + 2, d = 2 * seed;
    auto q = random_tensor(Shape{B, h, T, d}, seed);
    auto kt = random_tensor(Shape{B, h, d, T}, seed + 100);
    auto out = llmfs::tensor::matmul(q, kt).value();
    EXPECT_TRUE(bitwise_equal(
        out, naive_batched(q, kt, B * h, false, false, T, d, T, Shape{B, h, T, T})));
  }
}

TEST(Matmul, RightOperandBroadcastsAcrossBatchLikeALinearLayer) {
  // X·W: [B,T,d_in]·[d_in,d_out] -> [B,T,d_out]; W is reused for every batch row.
  auto x = random_tensor(Shape{3, 5, 4}, 31);
  auto w = random_tensor(Shape{4, 6}, 32);
  auto out = llmfs::tensor::matmul(x, w).value();
  EXPECT_TRUE(
      bitwise_equal(out, naive_batched(x, w, 3, false, true, 5, 4, 6, Shape{3, 5, 6})));
}

TEST(Matmul, UnitBatchAxisBroadcastsOnTheLeft) {
  // [1,2,3] · [4,3,2] -> [4,2,2]: the single left matrix meets each of four right
  // matrices.
  auto a = random_tensor(Shape{1, 2, 3}, 41);
  auto b = random_tensor(Shape{4, 3, 2}, 42);
  auto out = llmfs::tensor::matmul(a, b).value();
  EXPECT_TRUE(
      bitwise_equal(out, naive_batched(a, b, 4, true, false, 2, 3, 2, Shape{4, 2, 2})));
}

TEST(Matmul, EmptyBatchAndEmptyInnerAxis) {
  EXPECT_EQ(
      llmfs::tensor::matmul(Tensor::zeros(Shape{0, 3, 4}), Tensor::zeros(Shape{4, 4}))
          .value()
          .shape(),
      (Shape{0, 3, 4}));
  // k = 0: every output element is the empty sum 0.
  EXPECT_EQ(
      llmfs::tensor::matmul(Tensor::zeros(Shape{2, 0}), Tensor::zeros(Shape{0, 3}))
          .value(),
      Tensor::zeros(Shape{2, 3}));
}

TEST(Matmul, RejectsRankBelowTwo) {
  auto r = llmfs::tensor::matmul(Tensor::zeros(Shape{3}), Tensor::zeros(Shape{3, 2}));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, TensorErrorCode::rank_too_small);
}

TEST(Matmul, RejectsInnerDimensionMismatch) {
  auto r =
      llmfs::tensor::matmul(Tensor::zeros(Shape{2, 3}), Tensor::zeros(Shape{4, 5}));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, TensorErrorCode::inner_dimension_mismatch);
  EXPECT_EQ(fmt::format("{}", r.error()),
            "matmul: inner dimension mismatch: [2,3] and [4,5] (3 != 4)");
}

TEST(Matmul, RejectsBatchAxesThatDoNotBroadcast) {
  auto r = llmfs::tensor::matmul(Tensor::zeros(Shape{2, 2, 3}),
                                 Tensor::zeros(Shape{3, 3, 2}));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, TensorErrorCode::broadcast_mismatch);
  EXPECT_EQ(
      fmt::format("{}", r.error()),
      "matmul: shapes do not broadcast: [2,2,3] and [3,3,2] (batch axes [2] and [3])");
}

// Chapter 11's fast path under the sanitizers: every path this processor runs, on 1, 2
// and 3 threads (split even though the product is small), across the column, inner and
// row blocks' edges and a batch whose rows the slabs cut mid-matrix, against the
// teaching loop bit for bit.
TEST(Matmul, FastPathsAndThreadsMatchTheTeachingLoopBitwise) {
  using llmfs::tensor::MatmulOptions;
  using llmfs::tensor::MatmulPath;
  const std::array<std::array<std::size_t, 4>, 4> cases{
      {{3, 67, 131, 45}, {1, 5, 129, 1025}, {2, 257, 9, 33}, {4, 1, 1, 1}}};
  for (const auto& [batch, n, k, m] : cases) {
    const Tensor a = random_tensor(Shape{batch, n, k}, 51 + n);
    const Tensor b = random_tensor(Shape{k, m}, 52 + m);
    const auto teaching = llmfs::tensor::matmul(a, b, {MatmulPath::teaching, 1});
    ASSERT_TRUE(teaching.has_value());
    for (const MatmulPath path :
         {MatmulPath::portable, MatmulPath::avx2, MatmulPath::avx512f}) {
      if (!llmfs::tensor::matmul_path_supported(path)) continue;
      for (const std::size_t threads : {1, 2, 3}) {
        const auto fast =
            llmfs::tensor::matmul(a, b, MatmulOptions{path, threads, 0.0});
        ASSERT_TRUE(fast.has_value());
        EXPECT_TRUE(bitwise_equal(*fast, *teaching))
            << fmt::format("{}·{} {} threads {}", a.shape(), b.shape(),
                           llmfs::tensor::matmul_path_name(path), threads);
      }
    }
  }
}

}  // namespace
