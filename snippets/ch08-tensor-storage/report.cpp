// Chapter 8
// The report, one `key=value` line per fact, and the trace records of the diagram.
#include <fmt/ranges.h>

#include <llmfs/tensor/number_format.hpp>

#include "evidence.hpp"

namespace ch08 {

namespace {

std::string shape_line(const ShapeFacts& f) {
  return fmt::format("shape:{} rank:{} count:{} strides:[{}]", f.shape, f.shape.rank(),
                     f.count, fmt::join(f.strides, ","));
}

// `1*12+2*4+3*1`: the terms of Σ index · stride.
std::string terms(const Cell& c, const std::vector<std::size_t>& strides) {
  std::vector<std::string> parts;
  for (std::size_t a = 0; a < c.index.size(); ++a)
    parts.push_back(fmt::format("{}*{}", c.index[a], strides[a]));
  return fmt::format("{}", fmt::join(parts, "+"));
}

}  // namespace

// The prediction, the storage order, the edge shapes, the refusals, the exercises.
std::string render_report(const Evidence& e) {
  std::vector<std::string> lines;
  lines.push_back("predict_shape=" + shape_line(e.fixture));
  for (const Cell& c : e.picks)
    lines.push_back(fmt::format("predict_offset_{}=terms:{} offset:{} at:{}",
                                fmt::join(c.index, "_"), terms(c, e.fixture.strides),
                                c.offset, llmfs::tensor::format_number(c.value)));
  std::vector<std::size_t> order, dots;
  for (const Cell& c : e.cells) {
    order.push_back(c.offset);
    dots.push_back(c.dot);
  }
  lines.push_back(fmt::format("order_offsets=[{}]", fmt::join(order, ",")));
  lines.push_back(fmt::format("order_dot_equals_horner={}", dots == order));
  lines.push_back("edge_scalar=" + shape_line(e.scalar));
  lines.push_back("edge_empty=" + shape_line(e.empty));
  for (const std::string& error : e.errors)
    lines.push_back("error_" + error);
  const Exercises& x = e.exercises;
  lines.push_back(fmt::format("exercise_1=strides:[{}] offset:{}",
                              fmt::join(x.strides, ","), x.offset));
  lines.push_back(fmt::format("exercise_2=offset:{} index:[{}]", kExerciseOffset,
                              fmt::join(x.index, ",")));
  lines.push_back(fmt::format("exercise_3=side:{} count:{} next_overflows:{}",
                              x.cube_side, x.cube_count, x.next_cube_overflows));
  lines.push_back(
      fmt::format("misconception=right_distinct:{} wrong_distinct:{} "
                  "wrong_largest:{}",
                  order.size(), e.wrong_distinct, e.wrong_largest));
  return snippets::join_lines(lines);
}

// region: trace-records
// SHAPE once, CELL per element in storage order, PICK per predicted index with the
// terms of its sum. The diagram reads these records and recomputes nothing.
std::string render_trace(const Evidence& e) {
  std::vector<std::string> records;
  records.push_back(fmt::format("SHAPE|shape={}|strides={}",
                                fmt::join(e.fixture.shape.dims(), ","),
                                fmt::join(e.fixture.strides, ",")));
  for (const Cell& c : e.cells)
    records.push_back(fmt::format("CELL|index={}|offset={}|value={}",
                                  fmt::join(c.index, ","), c.offset,
                                  llmfs::tensor::format_number(c.value)));
  for (const Cell& c : e.picks)
    records.push_back(fmt::format("PICK|index={}|terms={}|offset={}",
                                  fmt::join(c.index, ","), terms(c, e.fixture.strides),
                                  c.offset));
  return snippets::join_lines(records);
}
// endregion: trace-records

}  // namespace ch08
