// Chapter 10
// The report, one `key=value` line per fact, and the trace records of the diagram.
#include <fmt/ranges.h>

#include "evidence.hpp"

namespace ch10 {

namespace {

// `shape:[2,3] values:[11,22,33,...]`, values in the shortest form that round-trips.
std::string show(const Tensor& t) {
  return fmt::format("shape:{} values:[{}]", t.shape(), fmt::join(t.values(), ","));
}

}  // namespace

std::string render_report(const Evidence& e) {
  std::vector<std::string> lines;
  lines.push_back(fmt::format("predict_x_plus_row={}", show(e.x_plus_row)));
  lines.push_back(fmt::format("predict_row_plus_column={}", show(e.row_plus_column)));
  lines.push_back(fmt::format("predict_sum_axis0={}", show(e.sum_axis0)));
  lines.push_back(fmt::format("predict_sum_axis1={}", show(e.sum_axis1)));
  lines.push_back(fmt::format("strides=row:[{}] column:[{}]",
                              fmt::join(e.strides[0], ","),
                              fmt::join(e.strides[1], ",")));
  lines.push_back(fmt::format("reduce_mean_axis1={}", show(e.mean_axis1)));
  lines.push_back(fmt::format("reduce_max_axis0={}", show(e.max_axis0)));
  lines.push_back(fmt::format("centered={}", show(e.centered)));
  lines.push_back(fmt::format("sum_to_row={}", show(e.sum_to_row)));
  lines.push_back(fmt::format("sum_to_column={}", show(e.sum_to_column)));
  lines.push_back(fmt::format("adjoint=broadcast_row_dot_x:{} row_dot_sum_to_x:{}",
                              e.adjoint_left, e.adjoint_right));
  for (const auto& [name, text] : e.errors)
    lines.push_back(fmt::format("error_{}={}", name, text));
  const Exercises& x = e.exercises;
  lines.push_back(fmt::format("exercise_1=shape:{}", x.broadcast));
  lines.push_back(fmt::format("exercise_2={}", show(x.ones_summed)));
  lines.push_back(fmt::format("exercise_3=means:{} centered_sums:{}",
                              show(x.column_means), show(x.centered_rows_sum)));
  lines.push_back(
      fmt::format("misconception=row_[3]_plus_column_[3,1]:{}", e.misconception));
  return snippets::join_lines(lines);
}

// region: trace-records
// OPERAND per input of row + column (shape, strides as read against [2,3], values),
// CELL per output element (the offsets read in each operand and the sum), SUMTO per
// element of sum_to(x, [3]) with the terms it added. The diagram reads these and
// recomputes nothing.
std::string render_trace(const Evidence& e) {
  std::vector<std::string> records;
  records.push_back(fmt::format("OPERAND|name=row|shape=[3]|strides={}|values={}",
                                fmt::join(e.strides[0], ","), fmt::join(kRow, ",")));
  records.push_back(fmt::format("OPERAND|name=column|shape=[2,1]|strides={}|values={}",
                                fmt::join(e.strides[1], ","), fmt::join(kColumn, ",")));
  for (const Cell& c : e.cells)
    records.push_back(
        fmt::format("CELL|i={}|j={}|row_offset={}|column_offset={}|value={}", c.i, c.j,
                    c.row_offset, c.column_offset, c.value));
  const auto x = e.x.values();
  for (std::size_t j = 0; j < e.sum_to_row.size(); ++j)
    records.push_back(fmt::format("SUMTO|j={}|terms={},{}|total={}", j, x[j], x[3 + j],
                                  e.sum_to_row.values()[j]));
  return snippets::join_lines(records);
}
// endregion: trace-records

}  // namespace ch10
