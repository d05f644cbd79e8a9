// Chapter 9
// The report, one `key=value` line per fact, and the trace records of the diagram.
#include <set>

#include <fmt/ranges.h>

#include <llmfs/tensor/number_format.hpp>

#include "evidence.hpp"

namespace ch09 {

namespace {

// `[0,12,4]`: whole numbers without decimals (every value here is an integer).
std::string integers(const std::vector<double>& values) {
  std::vector<long long> whole(values.begin(), values.end());
  return fmt::format("[{}]", fmt::join(whole, ","));
}

std::string view_line(const Transposed& t) {
  return fmt::format("view_shape:{} view_strides:[{}] row_major:{} values:{}",
                     t.view.shape, fmt::join(t.view.strides, ","), t.row_major,
                     integers(t.values));
}

}  // namespace

// The reshapes, the transposes and their views, the refusals, the exercises.
std::string render_report(const Evidence& e) {
  std::vector<std::string> lines;
  for (const Reshaped& r : e.reshapes)
    lines.push_back(
        fmt::format("predict_reshape_{}=strides:[{}] same_values:{} "
                    "moved_storage:{}",
                    fmt::join(r.shape.dims(), "x"), fmt::join(r.strides, ","),
                    r.same_values, r.moved));
  for (const Transposed& t : e.transposes)
    lines.push_back(
        fmt::format("predict_transpose_{}_{}={}", t.axes[0], t.axes[1], view_line(t)));
  lines.push_back(fmt::format("predict_view_3_1_0=storage_offset:{} value:{}",
                              e.view_offset,
                              llmfs::tensor::format_number(e.view_value)));
  lines.push_back(fmt::format("contiguous_unit_axis={} same_order:{}",
                              view_line(e.unit), e.unit_same_order));
  const std::set<double> steps(e.flat_steps.begin(), e.flat_steps.end());
  lines.push_back(
      fmt::format("contiguous_flatten_steps=distinct:{} steps:{}", steps.size(),
                  integers(std::vector<double>(steps.begin(), steps.end()))));
  for (const std::string& error : e.errors)
    lines.push_back("error_" + error);
  const Exercises& x = e.exercises;
  lines.push_back(fmt::format("exercise_1=storage_offset:{}", x.offset));
  lines.push_back(fmt::format(
      "exercise_2=row_major_0_1:{} row_major_1_2:{} "
      "row_major_0_2:{} values_0_2:{}",
      x.row_major[0], x.row_major[1], x.row_major[2], integers(x.values_0_2)));
  lines.push_back(fmt::format("exercise_3=round_trip:{}", x.round_trip));
  lines.push_back(fmt::format("misconception=positions:24 reshape_equals_transpose:{}",
                              e.misconception_agree));
  return snippets::join_lines(lines);
}

// region: trace-records
// VIEW once per transpose (shape and strides), then READ per element of the view in its
// row-major order: the storage offset it reads. The diagram draws these and recomputes
// nothing.
std::string render_trace(const Evidence& e) {
  std::vector<std::string> records;
  const Transposed& t = e.transposes[0];
  records.push_back(fmt::format("VIEW|axes={},{}|shape={}|strides={}|row_major={}",
                                t.axes[0], t.axes[1],
                                fmt::join(t.view.shape.dims(), ","),
                                fmt::join(t.view.strides, ","), t.row_major));
  for (std::size_t k = 0; k < t.values.size(); ++k)
    records.push_back(fmt::format("READ|position={}|storage_offset={}", k,
                                  static_cast<long long>(t.values[k])));
  return snippets::join_lines(records);
}
// endregion: trace-records

}  // namespace ch09
