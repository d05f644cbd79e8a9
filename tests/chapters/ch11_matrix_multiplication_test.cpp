// Chapter 11: the chapter's claims on the fixture, each expected value derived by hand
// beside its assertion (row-times-column sums of small integers), never taken from the
// code under test.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "evidence.hpp"
#include "fixture.hpp"

namespace {

using ch11::Shape;
using ch11::Tensor;

const ch11::Evidence& ch11_evidence() {
  static const ch11::Evidence e = [] {
    auto gathered = ch11::gather();
    EXPECT_TRUE(gathered.has_value()) << fmt::format("{}", gathered.error());
    return gathered.value_or(ch11::Evidence{});
  }();
  return e;
}

void ch11_expect_tensor(const Tensor& t, const Shape& shape,
                        const std::vector<double>& values) {
  EXPECT_EQ(t.shape(), shape);
  ASSERT_EQ(t.size(), values.size());
  for (std::size_t k = 0; k < values.size(); ++k)
    EXPECT_EQ(t.values()[k], values[k]) << "element " << k;
}

TEST(Ch11Predict, TheProductByHand) {
  const auto& e = ch11_evidence();
  // 1·7+2·9+3·11 = 58, 1·8+2·10+3·12 = 64, 4·7+5·9+6·11 = 139, 4·8+5·10+6·12 = 154.
  ch11_expect_tensor(e.product, Shape{2, 2}, {58, 64, 139, 154});
  EXPECT_EQ(e.flops, 24.0);  // 2·n·k·m = 2·2·3·2
}

TEST(Ch11Predict, BatchAxesBroadcast) {
  const auto& e = ch11_evidence();
  // The second left matrix picks b's rows 0 and 1: (7, 8) and (9, 10).
  ch11_expect_tensor(e.stacked, Shape{2, 2, 2}, {58, 64, 139, 154, 7, 8, 9, 10});
  EXPECT_EQ(e.broadcast_batch, (Shape{2, 3, 2, 2}));  // batch [2,1] with [3] -> [2,3]
}

// region: naive-bits
// The random [37,53]·[53,29] of the chapter: the naive i-j-k loop adds the same terms
// in the same order as the library's i-p-j kernel, so every element has the same bits.
TEST(Ch11Orders, NaiveLoopHasTheLibrarysBits) {
  const auto [a, b] = ch11::random_operands();
  const auto library = llmfs::tensor::matmul(a, b);
  ASSERT_TRUE(library.has_value()) << fmt::format("{}", library.error());
  EXPECT_TRUE(llmfs::tensor::bitwise_equal(*library, ch11::naive_matmul(a, b)));
}
// endregion: naive-bits

TEST(Ch11Orders, DifferentSumsDifferentBitsDifferentWalks) {
  const auto& e = ch11_evidence();
  // Summing backwards changes the rounding of some of the 37·29 = 1073 elements.
  EXPECT_GT(e.changes.reversed_differ, 0u);
  EXPECT_LT(e.changes.reversed_differ, 37u * 29u);
  // Two halves of each sum added at the end: another order, other roundings.
  EXPECT_GT(e.changes.split_differ, 0u);
  EXPECT_LT(e.changes.split_differ, 37u * 29u);
  // i-j-k reads b[0,0], b[1,0], b[2,0] (offsets 0, 2, 4); i-k-j reads b[0,0], b[0,1].
  EXPECT_EQ(e.reads[0], (std::vector<std::size_t>{0, 2, 4}));
  EXPECT_EQ(e.reads[1], (std::vector<std::size_t>{0, 1}));
}

TEST(Ch11Orders, TheDiagramsWalksThroughAnEightBySixteenB) {
  const auto& e = ch11_evidence();
  // i-j-k: b[0,0], b[1,0], …, b[7,0], offsets 16·p: 8 reads, each in its own 64-byte
  // line (8 doubles). i-k-j: b[0,0] … b[0,15], offsets 0 … 15: 16 reads, 2 lines.
  std::vector<std::size_t> column, row;
  for (std::size_t p = 0; p < 8; ++p)
    column.push_back(16 * p);
  for (std::size_t j = 0; j < 16; ++j)
    row.push_back(j);
  EXPECT_EQ(e.walks[0], column);
  EXPECT_EQ(e.walks[1], row);
  const std::string trace = ch11::render_trace(e);
  EXPECT_NE(trace.find("|lines=0,2,4,6,8,10,12,14\n"), std::string::npos);
  EXPECT_NE(trace.find("|lines=0,1\n"), std::string::npos);
}

// A fused multiply-add rounds a·b + c once; the build's -ffp-contract=off keeps the
// library's two roundings, round(round(a·b) + c).
TEST(Ch11Contraction, FusingRoundsOnceAndChangesTheBits) {
  // By hand: (1 + 2⁻³⁰)(1 − 2⁻³⁰) = 1 − 2⁻⁶⁰ exactly, which rounds to 1 (the doubles
  // next to 1 are 2⁻⁵³ apart): 1 − 1 = 0 with two roundings, −2⁻⁶⁰ with one.
  volatile double x = 1.0 + 0x1p-30, y = 1.0 - 0x1p-30, c = -1.0;
  EXPECT_EQ(x * y + c, 0.0);
  EXPECT_EQ(std::fma(x, y, c), -0x1p-60);
  // The program's random case: the reported element, recomputed here.
  const auto& e = ch11_evidence();
  const auto& f = e.changes.first_fused;
  EXPECT_GT(e.changes.fused_differ, 0u);
  EXPECT_LT(e.changes.fused_differ, 37u * 29u);
  const auto [a, b] = ch11::random_operands();
  double separate = 0.0, fused = 0.0;
  for (std::size_t p = 0; p < 53; ++p) {
    separate += a.values()[f.i * 53 + p] * b.values()[p * 29 + f.j];
    fused = std::fma(a.values()[f.i * 53 + p], b.values()[p * 29 + f.j], fused);
  }
  EXPECT_EQ(f.separate, separate);
  EXPECT_EQ(f.fused, fused);
  EXPECT_NE(f.fused, f.separate);
  // ulps: the count of doubles from one to the other, stepping with std::nextafter.
  std::int64_t steps = 0;
  for (double v = std::min(f.fused, f.separate); v < std::max(f.fused, f.separate);
       v = std::nextafter(v, std::numeric_limits<double>::infinity()))
    ++steps;
  EXPECT_EQ(f.ulps, steps);
}

TEST(Ch11Errors, EveryShapeErrorIsTypedAndNamed) {
  const auto& e = ch11_evidence();
  ASSERT_EQ(e.errors.size(), 3u);
  EXPECT_EQ(e.errors[0][1],
            "matmul: rank too small: [3] and [3,2] (both operands need rank >= 2)");
  EXPECT_EQ(e.errors[1][1],
            "matmul: inner dimension mismatch: [2,3] and [2,3] (3 != 2)");
  EXPECT_EQ(
      e.errors[2][1],
      "matmul: shapes do not broadcast: [2,2,3] and [3,3,2] (batch axes [2] and [3])");
}

TEST(Ch11Exercises, AnswersMatchTheHandDerivation) {
  const auto& x = ch11_evidence().exercises;
  EXPECT_EQ(x.linear_flops, 2.0 * 16 * 16 * 64);  // (B·T)=16 rows, k = 16, m = 64
  EXPECT_EQ(x.batched_shape, (Shape{2, 5, 4, 6}));
  EXPECT_EQ(x.kernel_calls, 10u);
  EXPECT_EQ(x.stride_bytes[0], 512u * 8u);  // down a column: one row of 512 doubles
  EXPECT_EQ(x.stride_bytes[1], 8u);         // along a row: the next double
  EXPECT_EQ(x.lines_touched[0], 512u);      // every read a new 64-byte line
  EXPECT_EQ(x.lines_touched[1], 64u);       // 512·8/64
  EXPECT_EQ(x.elements_read[0], 512u);
}

TEST(Ch11Report, PrintsTheFixtureValues) {
  const std::string report = ch11::render_report(ch11_evidence());
  EXPECT_NE(report.find("predict_product=shape:[2,2] "
                        "values:[58.000000,64.000000,139.000000,154.000000] "
                        "flops:24\n"),
            std::string::npos);
  const std::string trace = ch11::render_trace(ch11_evidence());
  EXPECT_NE(trace.find("ENTRY|i=1|j=1|terms=4*8,5*10,6*12|value=154\n"),
            std::string::npos);
}

}  // namespace
