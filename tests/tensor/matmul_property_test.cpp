// Chapter 42's property test of the blocked kernel: random shapes drawn from lengths
// that matter to it (0, 1, primes, and each block's edge ± 1: mr, nr, kc, mc, nc),
// every fast path this processor runs on 1, 2 and 3 threads, for matmul and for both
// transposed operands of matmul_transposed, against the teaching loop, bit for bit.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <llmfs/tensor/matmul.hpp>

#include "support/random_tensor.hpp"

namespace {

using llmfs::tensor::MatmulBlocking;
using llmfs::tensor::MatmulOptions;
using llmfs::tensor::MatmulPath;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
using llmfs::tensor::Transpose;
using llmfs::test::random_tensor;

constexpr std::array kFastPaths{MatmulPath::portable, MatmulPath::avx2,
                                MatmulPath::avx512f};

// Lengths around one block size b: b−1, b, b+1 (and 2b+1, two blocks and one more).
void add_edges(std::vector<std::size_t>& lengths, std::size_t b) {
  for (std::size_t v : {b - 1, b, b + 1, 2 * b + 1})
    lengths.push_back(v);
}

// The stored [rows, cols] matrix of `t` ([rows, cols] or a stack of them) transposed:
// [..., cols, rows], written out by index (the test's own transpose, no library view).
Tensor transposed_copy(const Tensor& t) {
  const Shape& s = t.shape();
  const std::size_t rows = s[s.rank() - 2], cols = s[s.rank() - 1];
  const std::size_t count = rows * cols == 0 ? 0 : t.size() / (rows * cols);
  std::vector<double> out(t.size());
  for (std::size_t e = 0; e < count; ++e)
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t j = 0; j < cols; ++j)
        out[e * rows * cols + j * rows + i] =
            t.values()[e * rows * cols + i * cols + j];
  std::vector<std::size_t> dims = s.as_vector();
  std::swap(dims[dims.size() - 2], dims[dims.size() - 1]);
  return Tensor::from(Shape(std::move(dims)), std::move(out)).value();
}

TEST(MatmulProperty, BlockEdgesPrimesAndEmptyShapesMatchTheTeachingLoopBitwise) {
  std::size_t checked = 0;
  for (const MatmulPath path : kFastPaths) {
    if (!llmfs::tensor::matmul_path_supported(path)) continue;
    const MatmulBlocking blk = llmfs::tensor::matmul_blocking(path);
    std::vector<std::size_t> rows{0, 1, 2, 7, 13}, inner{0, 1, 3, 31},
        cols{0, 1, 5, 17};
    add_edges(rows, blk.mr);
    rows.insert(rows.end(), {blk.mc - 1, blk.mc, blk.mc + 1});
    add_edges(inner, blk.kc);
    add_edges(cols, blk.nr);
    cols.insert(cols.end(), {blk.nc - 1, blk.nc, blk.nc + 1});
    std::mt19937_64 draw(4200 + static_cast<std::size_t>(path));
    auto pick = [&](const std::vector<std::size_t>& from) {
      return from[std::uniform_int_distribution<std::size_t>(0, from.size() - 1)(draw)];
    };
    for (int trial = 0; trial < 24; ++trial) {
      const std::size_t batch = 1 + trial % 3, n = pick(rows), k = pick(inner),
                        m = pick(cols);
      if (batch * n * k * m > 1'500'000) continue;  // the sanitizer build stays quick
      const Tensor a = random_tensor(Shape{batch, n, k}, 100 + trial);
      const Tensor b = random_tensor(Shape{k, m}, 200 + trial);
      const auto teaching = llmfs::tensor::matmul(a, b, {MatmulPath::teaching, 1});
      ASSERT_TRUE(teaching.has_value());
      const Tensor at = transposed_copy(a), bt = transposed_copy(b);
      for (const std::size_t threads : {1, 2, 3}) {
        const MatmulOptions options{path, threads, 0.0};
        const std::string what = fmt::format("{} [{},{},{}]·[{},{}] {} threads",
                                             llmfs::tensor::matmul_path_name(path),
                                             batch, n, k, k, m, threads);
        const auto plain = llmfs::tensor::matmul(a, b, options);
        const auto tn = llmfs::tensor::matmul_transposed(at, Transpose::yes, b,
                                                         Transpose::no, options);
        const auto nt = llmfs::tensor::matmul_transposed(a, Transpose::no, bt,
                                                         Transpose::yes, options);
        ASSERT_TRUE(plain && tn && nt) << what;
        EXPECT_TRUE(bitwise_equal(*plain, *teaching)) << what;
        EXPECT_TRUE(bitwise_equal(*tn, *teaching)) << what << " (aᵀ read in place)";
        EXPECT_TRUE(bitwise_equal(*nt, *teaching)) << what << " (bᵀ read in place)";
        ++checked;
      }
    }
  }
  EXPECT_GE(checked, 36u);  // at least the portable path's draws ran
}

// k = 0 on every fast path: each output is the empty sum, +0.0, never the unwritten
// storage of Tensor::uninitialized() (NaN in this file's sanitizer build).
TEST(MatmulProperty, AnEmptyInnerAxisGivesPositiveZerosOnEveryPath) {
  for (const MatmulPath path : kFastPaths) {
    if (!llmfs::tensor::matmul_path_supported(path)) continue;
    for (const std::size_t threads : {1, 2}) {
      const MatmulOptions options{path, threads, 0.0};
      const auto plain = llmfs::tensor::matmul(Tensor::zeros(Shape{2, 5, 0}),
                                               Tensor::zeros(Shape{0, 3}), options);
      const auto tn = llmfs::tensor::matmul_transposed(
          Tensor::zeros(Shape{0, 5}), Transpose::yes, Tensor::zeros(Shape{0, 3}),
          Transpose::no, options);
      ASSERT_TRUE(plain && tn);
      EXPECT_EQ(plain->shape(), (Shape{2, 5, 3}));
      EXPECT_EQ(tn->shape(), (Shape{5, 3}));
      for (const Tensor* t : {&*plain, &*tn})
        for (double v : t->values())
          EXPECT_TRUE(v == 0.0 && !std::signbit(v)) << v;
    }
  }
}

// Past every block at once: mr + 1 rows, kc + 1 inner terms and nc + 1 columns, so the
// product has two row tiles, two k-blocks and two column blocks (the j0 loop runs
// twice), on every path this processor runs, against the teaching loop bit for bit.
TEST(MatmulProperty, OneMoreThanEveryBlockMatchesTheTeachingLoopBitwise) {
  for (const MatmulPath path : kFastPaths) {
    if (!llmfs::tensor::matmul_path_supported(path)) continue;
    const MatmulBlocking blk = llmfs::tensor::matmul_blocking(path);
    const std::size_t n = blk.mr + 1, k = blk.kc + 1, m = blk.nc + 1;
    const Tensor a = random_tensor(Shape{n, k}, 300),
                 b = random_tensor(Shape{k, m}, 301);
    const auto teaching = llmfs::tensor::matmul(a, b, {MatmulPath::teaching, 1});
    const auto fast = llmfs::tensor::matmul(a, b, {path, 2, 0.0});
    const auto tn = llmfs::tensor::matmul_transposed(transposed_copy(a), Transpose::yes,
                                                     b, Transpose::no, {path, 1});
    ASSERT_TRUE(teaching && fast && tn);
    EXPECT_TRUE(bitwise_equal(*fast, *teaching))
        << llmfs::tensor::matmul_path_name(path);
    EXPECT_TRUE(bitwise_equal(*tn, *teaching)) << llmfs::tensor::matmul_path_name(path);
  }
}

// Attention's products (per head [T,dk]·[dk,T] read with bᵀ in place and [T,T]·[T,dk]
// with dk = 32, projections [B·T,d]·[d,d]) and signed zeros: the first p-block starts
// each sum from +0.0 in a register instead of reading c, so a sum whose terms are all
// −0.0 must still end as +0.0, as the teaching loop's 0.0 + (−0.0) does.
TEST(MatmulProperty, AttentionShapesAndSignedZerosMatchTheTeachingLoopBitwise) {
  struct Case {
    std::size_t batch, n, k, m;
  };
  const std::array cases{Case{16, 128, 32, 128}, Case{4, 128, 128, 32},
                         Case{1, 512, 128, 128}, Case{3, 97, 32, 89}};
  for (const MatmulPath path : kFastPaths) {
    if (!llmfs::tensor::matmul_path_supported(path)) continue;
    for (std::size_t c = 0; c < cases.size(); ++c) {
      const auto [batch, n, k, m] = cases[c];
      Tensor a = random_tensor(Shape{batch, n, k}, 500 + c);
      Tensor b = random_tensor(Shape{k, m}, 600 + c);
      // The first and last rows of every a hold −0.0 and the first and last columns of
      // b +0.0, so c's corners (in a whole tile and, for 97 × 89, in an edge tile) sum
      // only −0.0 terms; column 1 of b alternates +0.0 and −0.0.
      for (std::size_t e = 0; e < batch; ++e)
        for (std::size_t p = 0; p < k; ++p) {
          a.mutable_values()[e * n * k + p] = -0.0;
          a.mutable_values()[e * n * k + (n - 1) * k + p] = -0.0;
        }
      for (std::size_t p = 0; p < k; ++p) {
        b.mutable_values()[p * m] = 0.0;
        b.mutable_values()[p * m + m - 1] = 0.0;
        b.mutable_values()[p * m + 1] = p % 2 == 0 ? 0.0 : -0.0;
      }
      const auto teaching = llmfs::tensor::matmul(a, b, {MatmulPath::teaching, 1});
      ASSERT_TRUE(teaching.has_value());
      // The teaching loop's 0.0 + (−0.0) is +0.0, and so is every later sum.
      for (const std::size_t corner : {std::size_t{0}, n * m - 1})
        EXPECT_FALSE(std::signbit(teaching->values()[corner]));
      const MatmulOptions options{path, 1, 0.0};
      const auto plain = llmfs::tensor::matmul(a, b, options);
      const auto nt = llmfs::tensor::matmul_transposed(
          a, Transpose::no, transposed_copy(b), Transpose::yes, options);
      const std::string what =
          fmt::format("{} [{},{},{}]·[{},{}]", llmfs::tensor::matmul_path_name(path),
                      batch, n, k, k, m);
      ASSERT_TRUE(plain && nt) << what;
      EXPECT_TRUE(bitwise_equal(*plain, *teaching)) << what;
      EXPECT_TRUE(bitwise_equal(*nt, *teaching)) << what << " (bᵀ read in place)";
    }
  }
}

// The teaching path of matmul_transposed (a copy, then the i-p-j loop) against matmul
// on the test's own transposed copies, and its errors naming the shapes as read.
TEST(MatmulProperty, TransposedTeachingPathAndErrors) {
  const Tensor a = random_tensor(Shape{2, 5, 3}, 7), b = random_tensor(Shape{4, 5}, 8);
  const auto expected = llmfs::tensor::matmul(transposed_copy(a), transposed_copy(b),
                                              {MatmulPath::teaching, 1});
  const auto got = llmfs::tensor::matmul_transposed(
      a, Transpose::yes, b, Transpose::yes, {MatmulPath::teaching, 1});
  ASSERT_TRUE(expected && got);
  EXPECT_EQ(got->shape(), (Shape{2, 3, 4}));
  EXPECT_TRUE(bitwise_equal(*got, *expected));
  const auto bad = llmfs::tensor::matmul_transposed(a, Transpose::no, b, Transpose::no);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(fmt::format("{}", bad.error()),
            "matmul: inner dimension mismatch: [2,5,3] and [4,5] (3 != 4)");
}

// The blocking each path reports: nr = w·vectors, mc a multiple of mr (whole tiles in
// a full row block), and the teaching path unblocked.
TEST(MatmulProperty, BlockingIsConsistent) {
  for (const MatmulPath path : kFastPaths) {
    const MatmulBlocking blk = llmfs::tensor::matmul_blocking(path);
    EXPECT_EQ(blk.nr, blk.w * blk.vectors);
    EXPECT_EQ(blk.mc % blk.mr, 0u);
    EXPECT_GT(blk.kc, 0u);
  }
  const MatmulBlocking teaching = llmfs::tensor::matmul_blocking(MatmulPath::teaching);
  EXPECT_EQ(teaching.kc, 0u);
}

// multiply_into (Chapter 42's entry point for the fused attention kernel): a strided,
// possibly transposed a and b, written into rows of a larger buffer (ldc > m) that is
// filled with NaN first; the product equals the teaching loop's bit for bit on every
// path, and nothing past column m of a row is touched.
TEST(MatmulProperty, MultiplyIntoWritesTheTeachingBitsIntoTheCallersRows) {
  const std::vector<std::size_t> lengths{0, 1, 2, 5, 6, 7, 31, 32, 33, 48, 97, 257};
  std::mt19937_64 pick(11);
  std::size_t checked = 0;
  for (std::size_t c = 0; c < 40; ++c) {
    const std::size_t n = lengths[pick() % lengths.size()],
                      k = lengths[pick() % lengths.size()],
                      m = lengths[pick() % lengths.size()], pad = pick() % 5;
    const bool ta = pick() % 2 == 0, tb = pick() % 2 == 0;
    const Tensor a = random_tensor(ta ? Shape{k, n} : Shape{n, k}, 100 + c);
    const Tensor b = random_tensor(tb ? Shape{m, k} : Shape{k, m}, 200 + c);
    const Tensor expected =
        llmfs::tensor::matmul(ta ? transposed_copy(a) : a, tb ? transposed_copy(b) : b,
                              {MatmulPath::teaching, 1})
            .value();
    const llmfs::tensor::MatrixView va{a.values().data(), n, k, ta ? 1 : k, ta ? n : 1};
    const llmfs::tensor::MatrixView vb{b.values().data(), k, m, tb ? 1 : m, tb ? k : 1};
    for (const MatmulPath path : {MatmulPath::teaching, MatmulPath::portable,
                                  MatmulPath::avx2, MatmulPath::avx512f}) {
      if (!llmfs::tensor::matmul_path_supported(path)) continue;
      const std::size_t ldc = m + pad;
      std::vector<double> out(n * ldc, std::nan(""));
      llmfs::tensor::multiply_into(va, vb, out.data(), ldc, path);
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < ldc; ++j) {
          const double got = out[i * ldc + j];
          if (j >= m) {
            ASSERT_TRUE(std::isnan(got))
                << fmt::format("case {} ({}, {}) touched", c, i, j);
            continue;
          }
          const double want = expected.values()[i * m + j];
          ASSERT_EQ(std::bit_cast<std::uint64_t>(got),
                    std::bit_cast<std::uint64_t>(want))
              << fmt::format("case {}: [{},{}]·[{},{}] {} at ({}, {})", c, n, k, k, m,
                             llmfs::tensor::matmul_path_name(path), i, j);
        }
      ++checked;
    }
  }
  EXPECT_GE(checked, 80u);
}

}  // namespace
