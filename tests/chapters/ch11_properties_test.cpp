// Chapter 11: property tests over many seeded random batched shapes against naive loops
// written from the definition c[..., i, j] = Σ_p a[..., i, p]·b[..., p, j], with the
// batch axes broadcast by chapter 10's rule (index 0 on a batch axis of length 1,
// missing axes skipped). Both add from 0.0 in increasing p, so every comparison is bit
// for bit.
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/core/splitmix64.hpp>
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

// The fast kernel against the teaching loop, bit for bit (see chapter 11, "The fast
// path"): every path this processor runs and 1, 2 and 3 threads, on shapes chosen
// around the kernel's edges and on values that are not all tame.
namespace ch11_fast {

using llmfs::SplitMix64;
using llmfs::tensor::MatmulOptions;
using llmfs::tensor::MatmulPath;

// Lengths around what the kernel cuts at: 0, 1, primes, the vector widths 2, 4, 8, the
// tile widths 8, 16, 32 and height 4, the inner block 128 and the row block 256.
constexpr std::array<std::size_t, 26> kEdges{0,  1,  2,   3,   4,   5,   7,   8,  9,
                                             13, 15, 16,  17,  31,  32,  33,  63, 64,
                                             65, 97, 127, 128, 129, 255, 256, 257};

std::size_t pick(SplitMix64& rng, std::size_t count) {
  return static_cast<std::size_t>(rng.next_u64() % count);
}

// Mostly uniform values in [−1, 1); now and then negative zero, a subnormal, a value
// whose products overflow, ±infinity or NaN. The NaN is made by ∞ − ∞, the processor's
// own default NaN, so every NaN the product can hold has the same bits whichever
// operand an instruction propagates.
double draw(SplitMix64& rng, bool specials) {
  const double u = 2.0 * rng.next_unit() - 1.0;
  if (!specials || rng.next_u64() % 16 != 0) return u;
  volatile double inf = std::numeric_limits<double>::infinity();
  switch (rng.next_u64() % 6) {
    case 0: return -0.0;
    case 1: return u * std::numeric_limits<double>::denorm_min() * 1e6;
    case 2: return u * 1e300;
    case 3: return inf;
    case 4: return -inf;
    default: return inf - inf;
  }
}

Tensor random_operand(SplitMix64& rng, const Index& dims, bool specials) {
  std::vector<double> values(Shape(dims).element_count().value());
  for (double& v : values)
    v = draw(rng, specials);
  return Tensor::from(Shape(dims), std::move(values)).value();
}

TEST(Ch11FastKernel, EveryPathAndThreadCountHasTheTeachingLoopsBits) {
  SplitMix64 rng(1113);
  std::vector<MatmulPath> paths;
  for (const MatmulPath p :
       {MatmulPath::portable, MatmulPath::avx2, MatmulPath::avx512f})
    if (llmfs::tensor::matmul_path_supported(p)) paths.push_back(p);
  std::size_t nonfinite = 0, compared = 0;
  for (int c = 0; c < 120; ++c) {
    // Up to two batch axes, each operand's a suffix with some lengths set to 1.
    Index batch(pick(rng, 3));
    for (auto& d : batch)
      d = 1 + pick(rng, 3);
    auto own = [&] {
      Index axes(
          batch.begin() + static_cast<std::ptrdiff_t>(pick(rng, batch.size() + 1)),
          batch.end());
      for (auto& d : axes)
        if (pick(rng, 3) == 0) d = 1;
      return axes;
    };
    // One length from the edges, the others small, so no case is slow.
    std::array<std::size_t, 3> nkm{kEdges[pick(rng, 13)], kEdges[pick(rng, 13)],
                                   kEdges[pick(rng, 13)]};
    nkm[pick(rng, 3)] = kEdges[pick(rng, kEdges.size())];
    if (c % 10 == 0) nkm[2] = 1023 + pick(rng, 3);  // around the column block, 1024
    Index da = own(), db = own();
    da.insert(da.end(), {nkm[0], nkm[1]});
    db.insert(db.end(), {nkm[1], nkm[2]});
    const bool specials = c % 2 == 1;
    const Tensor a = random_operand(rng, da, specials),
                 b = random_operand(rng, db, specials);
    const auto teaching = llmfs::tensor::matmul(a, b, {MatmulPath::teaching, 1});
    ASSERT_TRUE(teaching.has_value()) << fmt::format("{}", teaching.error());
    for (const double v : teaching->values())
      nonfinite += std::isfinite(v) ? 0 : 1;
    for (const MatmulPath path : paths)
      for (const std::size_t threads : {1, 2, 3}) {
        const MatmulOptions options{path, threads, 0.0};  // split even tiny products
        const auto fast = llmfs::tensor::matmul(a, b, options);
        ASSERT_TRUE(fast.has_value());
        ASSERT_TRUE(llmfs::tensor::bitwise_equal(*fast, *teaching))
            << fmt::format("{}·{} path {} threads {}", a.shape(), b.shape(),
                           llmfs::tensor::matmul_path_name(path), threads);
        ++compared;
      }
  }
  EXPECT_GT(nonfinite, 0u);  // the special values did reach the outputs
  EXPECT_EQ(compared, 120u * paths.size() * 3);
}

TEST(Ch11FastKernel, DefaultsUseTheWidestSupportedPath) {
  const MatmulOptions defaults = llmfs::tensor::matmul_defaults();
  EXPECT_TRUE(llmfs::tensor::matmul_path_supported(defaults.path));
  EXPECT_NE(defaults.path, MatmulPath::teaching);
  EXPECT_GE(defaults.threads, 1u);
  if (llmfs::tensor::matmul_path_supported(MatmulPath::avx512f)) {
    EXPECT_EQ(defaults.path, MatmulPath::avx512f);
  }
}

}  // namespace ch11_fast

}  // namespace
