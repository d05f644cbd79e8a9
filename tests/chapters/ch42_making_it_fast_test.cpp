// Chapter 42's claims: the blocks cut a product as derived by hand in
// chapters/42-making-it-fast.md, every checked shape's bits equal the teaching loop's,
// FMA and a split sum change bits the fast path keeps, the FLOP counts and the roofline
// from the chapter's formulas, and the exercises' hand answers.
#include <cmath>
#include <cstdlib>
#include <sstream>

#include <gtest/gtest.h>

#include <llmfs/core/splitmix64.hpp>
#include <llmfs/tensor/matmul.hpp>

#include "evidence.hpp"
#include "support/records.hpp"

namespace {

using llmfs::tensor::MatmulPath;

const ch42::Evidence& ch42_evidence() {
  static const ch42::Evidence e = [] {
    auto gathered = ch42::gather();
    EXPECT_TRUE(gathered.has_value());
    return gathered.value_or(ch42::Evidence{});
  }();
  return e;
}

// Predict, by hand: [7,300]·[300,33] with 6 × 32 tiles and kc = 256 is ⌈7/6⌉ = 2 row
// tiles, ⌈33/32⌉ = 2 column tiles, ⌈300/256⌉ = 2 k-blocks, 8 tile calls; only the tile
// of rows 0–5 and columns 0–31 is whole, so 3 of 4 tiles per k-block are edge tiles: 6.
TEST(Ch42Blocks, PredictCutByHand) {
  const ch42::Cut& c = ch42_evidence().predict;
  EXPECT_EQ(c.row_tiles, 2u);
  EXPECT_EQ(c.col_tiles, 2u);
  EXPECT_EQ(c.k_blocks, 2u);
  EXPECT_EQ(c.tile_calls, 8u);
  EXPECT_EQ(c.edge_calls, 6u);
  EXPECT_TRUE(ch42_evidence().predict_equal);
}

TEST(Ch42Blocks, TheAvx512TileFitsTheRegisterFile) {
  const auto b = llmfs::tensor::matmul_blocking(MatmulPath::avx512f);
  EXPECT_EQ(b.w, 8u);
  EXPECT_EQ(b.mr * b.vectors + b.vectors + 1, 29u);  // accumulators, b's row, a's value
  EXPECT_LE(ch42_evidence().exercises.avx512_registers, 32u);
  EXPECT_LE(ch42_evidence().exercises.avx2_registers, 16u);
}

TEST(Ch42Bits, EveryCheckedShapeEqualsTheTeachingLoop) {
  ASSERT_EQ(ch42_evidence().checks.size(), ch42::kChecked.size());
  for (const ch42::BitCheck& c : ch42_evidence().checks) {
    EXPECT_EQ(c.compared, 5u);
    EXPECT_EQ(c.equal, c.compared) << c.shape.n << "," << c.shape.k << "," << c.shape.m;
  }
}

// The misconception: the fast path keeps every bit; FMA and a split sum do not (most of
// the 97·65 = 6305 outputs change in their last bits).
TEST(Ch42Bits, FmaAndSplitSumsChangeBitsTheFastPathKeeps) {
  const ch42::OrderCheck& o = ch42_evidence().order;
  EXPECT_EQ(o.outputs, 6305u);
  EXPECT_EQ(o.fast_differs, 0u);
  EXPECT_GT(o.fma_differs, o.outputs / 2);
  EXPECT_GT(o.split_differs, o.outputs / 2);
  EXPECT_GT(o.fma_max_relative, 0.0);
  EXPECT_LT(o.fma_max_relative, 1e-6);
}

// FLOPs by hand: 2·1024³ = 2,147,483,648; attention at (4,128,128,4):
// 8·4·128·128² + 4·4·128²·128 = 67,108,864 + 33,554,432 = 100,663,296.
TEST(Ch42Flops, CountsByHand) {
  const ch42::Evidence& e = ch42_evidence();
  EXPECT_EQ(e.square_flops[0], 2147483648.0);
  EXPECT_EQ(e.square_flops[1], 17179869184.0);
  EXPECT_EQ(e.attention_flops[0], 100663296.0);
  EXPECT_EQ(e.exercises.attention_forward_flops, 100663296.0);
  // (8,256,256,8): 8·8·256·256² + 4·8·256²·256 = 1,073,741,824 + 536,870,912.
  EXPECT_EQ(e.attention_flops[1], 1610612736.0);
}

// The roofline by hand. Zen 3 (the benchmark's machine): 2.45 GHz · 2 multiply-add
// pairs · 4 lanes · 2 FLOPs = 39.2 GFLOP/s without FMA, and 2.45 · 2 FMAs · 4 · 2
// = 39.2 with: the same; a 6 × 8 tile: 2·48 / (14·8) = 0.857 flop/byte; ridge 39.2 / 10
// = 3.92; n/12 ≥ 3.92 first at n = 48 (47.04 rounded up). Skylake-X: 2.6 · 1 pair · 8 ·
// 2 = 41.6, with FMA 2.6 · 2 · 8 · 2 = 83.2, twice; a 6 × 32 tile: 2·192 / (38·8)
// = 1.2632; ridge 4.16.
void expect_roofline(const ch42::Roofline& r, double peak_mul_add, double peak_fma,
                     double tile_intensity, double ridge) {
  EXPECT_NEAR(r.peak_mul_add, peak_mul_add, 1e-12);
  EXPECT_NEAR(r.peak_fma, peak_fma, 1e-12);
  EXPECT_NEAR(r.tile_intensity, tile_intensity, 1e-12);
  EXPECT_NEAR(r.ridge, ridge, 1e-12);
  EXPECT_NEAR(r.attainable_1024, peak_mul_add, 1e-12);  // n/12 · 10 = 853 > peak
}

TEST(Ch42Roofline, NumbersByHand) {
  expect_roofline(ch42_evidence().roofline, 39.2, 39.2, 96.0 / 112.0, 3.92);
  EXPECT_EQ(ch42_evidence().exercises.smallest_compute_bound_n, 48u);
  expect_roofline(ch42_evidence().roofline_skylake_x, 41.6, 83.2, 384.0 / 304.0, 4.16);
}

// Exercise 2 by hand: n = 1024 with the AVX2 kernel's 6 × 8 tiles: ⌈1024/6⌉ = 171 row
// tiles, 1024/8 = 128 column tiles, 4 k-blocks: 87,552 calls; the last row tile (rows
// 1020–1023) is an edge tile in each of 128 columns and 4 k-blocks: 512.
TEST(Ch42Exercises, SquareCutByHand) {
  const ch42::Cut& c = ch42_evidence().exercises.square_1024;
  EXPECT_EQ(c.row_tiles, 171u);
  EXPECT_EQ(c.col_tiles, 128u);
  EXPECT_EQ(c.k_blocks, 4u);
  EXPECT_EQ(c.tile_calls, 87552u);
  EXPECT_EQ(c.edge_calls, 512u);
}

// The independent reference (tests/reference/make_matmul_order_reference.py, Python
// floats and exact rationals, no torch): the same FMA and split-sum counts, and row 0
// of the teaching product bit for bit — which the fast path must equal too.
TEST(Ch42Reference, PythonFloatsAgreeBitForBit) {
  const auto records =
      llmfs::testing::read_keyed_records("tests/reference/data/tensor/ch42_orders.txt");
  ASSERT_EQ(records.size(), 2u);
  const ch42::OrderCheck& o = ch42_evidence().order;
  EXPECT_EQ(std::stoul(records[0].fields.at("fma_differs")), o.fma_differs);
  EXPECT_EQ(std::stoul(records[0].fields.at("split_differs")), o.split_differs);
  const std::size_t n = 97, k = 257, m = 65;
  auto draw = [](std::size_t rows, std::size_t cols, std::uint64_t seed) {
    llmfs::SplitMix64 rng(seed);
    std::vector<double> v(rows * cols);
    for (double& x : v)
      x = 2.0 * rng.next_unit() - 1.0;
    return llmfs::tensor::Tensor::from(llmfs::tensor::Shape{rows, cols}, std::move(v))
        .value();
  };
  const auto a = draw(n, k, 7), b = draw(k, m, 8);
  const auto teaching = llmfs::tensor::matmul(a, b, {MatmulPath::teaching, 1}).value();
  const auto fast = llmfs::tensor::matmul(a, b).value();
  std::istringstream values(records[1].fields.at("values"));
  std::string hex;
  for (std::size_t j = 0; std::getline(values, hex, ','); ++j) {
    ASSERT_LT(j, m);
    const double want = std::strtod(hex.c_str(), nullptr);
    EXPECT_EQ(teaching.values()[j], want) << "column " << j;
    EXPECT_EQ(fast.values()[j], want) << "column " << j;
  }
}

}  // namespace
