// Chapter 10: the chapter's claims on the fixture. Every expected value is derived by
// hand beside its assertion (the broadcast rule on a 2×3 matrix, a row and a column),
// never taken from the code under test.
#include <string>

#include <gtest/gtest.h>

#include "evidence.hpp"
#include "fixture.hpp"

namespace {

using ch10::Shape;
using ch10::Tensor;

const ch10::Evidence& ch10_evidence() {
  static const ch10::Evidence e = [] {
    auto gathered = ch10::gather();
    EXPECT_TRUE(gathered.has_value()) << fmt::format("{}", gathered.error());
    return gathered.value_or(ch10::Evidence{});
  }();
  return e;
}

void ch10_expect_tensor(const Tensor& t, const Shape& shape,
                        const std::vector<double>& values) {
  EXPECT_EQ(t.shape(), shape);
  ASSERT_EQ(t.size(), values.size());
  for (std::size_t k = 0; k < values.size(); ++k)
    EXPECT_EQ(t.values()[k], values[k]) << "element " << k;
}

TEST(Ch10Predict, RowAndColumnStretchAsDerived) {
  const auto& e = ch10_evidence();
  // x + row: (1,2,3)+(10,20,30) and (4,5,6)+(10,20,30).
  ch10_expect_tensor(e.x_plus_row, Shape{2, 3}, {11, 22, 33, 14, 25, 36});
  // row [3] against column [2,1]: [1,3] and [2,1] -> [2,3], out[i,j] = row[j] + col[i].
  ch10_expect_tensor(e.row_plus_column, Shape{2, 3}, {110, 120, 130, 210, 220, 230});
  // The row is read with stride 0 down the rows, the column with stride 0 across.
  EXPECT_EQ(e.strides[0], (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(e.strides[1], (std::vector<std::size_t>{1, 0}));
  ASSERT_EQ(e.cells.size(), 6u);
  EXPECT_EQ(e.cells[4].row_offset, 1u);     // out[1,1] reads row[1]
  EXPECT_EQ(e.cells[4].column_offset, 1u);  // and column[1]
}

TEST(Ch10Predict, ReductionsKeepTheAxis) {
  const auto& e = ch10_evidence();
  ch10_expect_tensor(e.sum_axis0, Shape{1, 3}, {5, 7, 9});  // 1+4, 2+5, 3+6
  ch10_expect_tensor(e.sum_axis1, Shape{2, 1}, {6, 15});    // 1+2+3, 4+5+6
  ch10_expect_tensor(e.mean_axis1, Shape{2, 1}, {2, 5});    // 6/3, 15/3
  ch10_expect_tensor(e.max_axis0, Shape{1, 3}, {4, 5, 6});  // the second row wins
  ch10_expect_tensor(e.centered, Shape{2, 3}, {-1, 0, 1, -1, 0, 1});
}

TEST(Ch10SumTo, UndoesTheBroadcastAndIsItsAdjoint) {
  const auto& e = ch10_evidence();
  ch10_expect_tensor(e.sum_to_row, Shape{3}, {5, 7, 9});
  ch10_expect_tensor(e.sum_to_column, Shape{2, 1}, {6, 15});
  // ⟨broadcast(row), x⟩ = 10·1+20·2+30·3+10·4+20·5+30·6 = 460 = 10·5+20·7+30·9.
  EXPECT_EQ(e.adjoint_left, 460.0);
  EXPECT_EQ(e.adjoint_right, 460.0);
}

TEST(Ch10Errors, EveryShapeErrorIsTypedAndNamed) {
  const auto& e = ch10_evidence();
  ASSERT_EQ(e.errors.size(), 7u);
  EXPECT_EQ(e.errors[0][1],
            "add: shapes do not broadcast: [2,3] and [2] (axis -1: 3 vs 2)");
  EXPECT_EQ(e.errors[1][1], "reduce_sum: axis out of range: [2,3] (axis 2 of rank 2)");
  EXPECT_EQ(e.errors[2][1],
            "reduce_mean: reduction over an empty axis: [2,0] (axis 1 has length 0)");
  EXPECT_EQ(e.errors[3][1],
            "reduce_max: reduction over an empty axis: [2,0] (axis 1 has length 0)");
  EXPECT_EQ(e.errors[4][1],
            "sum_to: target shape does not broadcast to input: [2,3] and [2]");
  EXPECT_EQ(e.errors[5][1],
            "sum_to: target shape does not broadcast to input: [2,3] and [1,2,3]");
  EXPECT_EQ(e.errors[6][1],
            "sum_to: target shape does not broadcast to input: [2,3] and [2,2]");
}

TEST(Ch10Exercises, AnswersMatchTheHandDerivation) {
  const auto& x = ch10_evidence().exercises;
  EXPECT_EQ(x.broadcast, (Shape{5, 3, 4}));  // [5,1,4] vs [1,3,1] -> [5,3,4]
  // Each element of [3,1] collects 5·4 = 20 ones.
  ch10_expect_tensor(x.ones_summed, Shape{3, 1}, {20, 20, 20});
  ch10_expect_tensor(x.column_means, Shape{1, 3}, {2.5, 3.5, 4.5});
  ch10_expect_tensor(x.centered_rows_sum, Shape{1, 3},
                     {0, 0, 0});  // ±1.5 cancel exactly
}

TEST(Ch10Misconception, AColumnAndARowMakeAMatrix) {
  EXPECT_EQ(ch10_evidence().misconception, (Shape{3, 3}));  // not [3]
}

TEST(Ch10Report, PrintsTheFixtureValues) {
  const std::string report = ch10::render_report(ch10_evidence());
  EXPECT_NE(report.find("predict_x_plus_row=shape:[2,3] values:[11,22,33,14,25,36]\n"),
            std::string::npos);
  EXPECT_NE(report.find("adjoint=broadcast_row_dot_x:460 row_dot_sum_to_x:460\n"),
            std::string::npos);
  const std::string trace = ch10::render_trace(ch10_evidence());
  EXPECT_NE(trace.find("CELL|i=1|j=2|row_offset=2|column_offset=1|value=230\n"),
            std::string::npos);
  EXPECT_NE(trace.find("SUMTO|j=2|terms=3,6|total=9\n"), std::string::npos);
}

}  // namespace
