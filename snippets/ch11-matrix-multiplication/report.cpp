// Chapter 11
// The report, one `key=value` line per fact, and the trace records of the diagram.
#include <fmt/ranges.h>

#include "evidence.hpp"

namespace ch11 {

namespace {

std::string show(const Tensor& t) {
  return fmt::format("shape:{} values:[{}]", t.shape(), fmt::join(t.values(), ","));
}

}  // namespace

// region: report-lines
std::string render_report(const Evidence& e) {
  std::vector<std::string> lines;
  lines.push_back(fmt::format("predict_product={} flops:{}", show(e.product), e.flops));
  lines.push_back(fmt::format("predict_stacked={}", show(e.stacked)));
  lines.push_back(
      fmt::format("batch_broadcast=[2,1,2,3]·[3,3,2]:{}", e.broadcast_batch));
  lines.push_back(fmt::format("inner_reads=ijk:[{}] ikj:[{}]",
                              fmt::join(e.reads[0], ","), fmt::join(e.reads[1], ",")));
  lines.push_back(
      fmt::format("orders=naive_ijk_bitwise_equal_library:{} "
                  "reversed_sums_differ_in:{}_of_{}",
                  e.naive_bitwise, e.reversed_differ, kRandomN * kRandomM));
  for (const auto& [name, text] : e.errors)
    lines.push_back(fmt::format("error_{}={}", name, text));
  const Exercises& x = e.exercises;
  lines.push_back(fmt::format("exercise_1=flops:{}", x.linear_flops));
  lines.push_back(fmt::format("exercise_2=shape:{} kernel_calls:{}", x.batched_shape,
                              x.kernel_calls));
  lines.push_back(fmt::format(
      "exercise_3=ijk_stride_bytes:{} ijk_lines:{} ikj_stride_bytes:{} ikj_lines:{} "
      "elements:{}",
      x.stride_bytes[0], x.lines_touched[0], x.stride_bytes[1], x.lines_touched[1],
      x.elements_read[0]));
  lines.push_back(
      fmt::format("misconception=reordered_loops_bitwise_equal:{} "
                  "reordered_sums_differ_in:{}",
                  e.naive_bitwise, e.reversed_differ));
  return snippets::join_lines(lines);
}
// endregion: report-lines

// region: trace-records
// ENTRY per element of a·b with its terms a[i,p]·b[p,j] and the value; READS per loop
// order with the b offsets its first inner loop visits. The diagram draws these.
std::string render_trace(const Evidence& e) {
  std::vector<std::string> records;
  const std::size_t k = 3, m = 2;
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t j = 0; j < m; ++j) {
      std::vector<std::string> terms;
      for (std::size_t p = 0; p < k; ++p)
        terms.push_back(fmt::format("{}*{}", kLeft[i * k + p], kRight[p * m + j]));
      records.push_back(fmt::format("ENTRY|i={}|j={}|terms={}|value={}", i, j,
                                    fmt::join(terms, ","),
                                    e.product.values()[i * m + j]));
    }
  records.push_back(
      fmt::format("READS|order=i-j-k|b_offsets={}", fmt::join(e.reads[0], ",")));
  records.push_back(
      fmt::format("READS|order=i-k-j|b_offsets={}", fmt::join(e.reads[1], ",")));
  return snippets::join_lines(records);
}
// endregion: trace-records

}  // namespace ch11
