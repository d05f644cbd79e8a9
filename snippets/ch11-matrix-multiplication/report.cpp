// Chapter 11
// The report, one `key=value` line per fact, and the trace records of the diagram.
#include <fmt/ranges.h>

#include <llmfs/report/format.hpp>

#include "evidence.hpp"

namespace ch11 {

using llmfs::report::format_tensor;

std::string render_report(const Evidence& e) {
  const Exercises& x = e.exercises;
  std::vector<std::string> lines{
      fmt::format("predict_product={} flops:{}", format_tensor(e.product), e.flops),
      fmt::format("predict_stacked={}", format_tensor(e.stacked)),
      fmt::format("batch_broadcast=[2,1,2,3]·[3,3,2]:{}", e.broadcast_batch),
      fmt::format("inner_reads=ijk:[{}] ikj:[{}]", fmt::join(e.reads[0], ","),
                  fmt::join(e.reads[1], ",")),
      fmt::format(
          "orders=reversed_sums_differ_in:{}_of_{} split_sums_differ_in:{}_of_{}",
          e.changes.reversed_differ, kRandomN * kRandomM, e.changes.split_differ,
          kRandomN * kRandomM),
      fmt::format("contraction=fused_sums_differ_in:{}_of_{} first:c[{},{}] "
                  "separate:{:.17g} fused:{:.17g} ulps:{}",
                  e.changes.fused_differ, kRandomN * kRandomM, e.changes.first_fused.i,
                  e.changes.first_fused.j, e.changes.first_fused.separate,
                  e.changes.first_fused.fused, e.changes.first_fused.ulps)};
  for (const auto& [name, text] : e.errors)
    lines.push_back(fmt::format("error_{}={}", name, text));
  lines.push_back(fmt::format("exercise_1=flops:{}", x.linear_flops));
  lines.push_back(fmt::format("exercise_2=shape:{} kernel_calls:{}", x.batched_shape,
                              x.kernel_calls));
  lines.push_back(fmt::format(
      "exercise_3=ijk_stride_bytes:{} ijk_lines:{} ikj_stride_bytes:{} ikj_lines:{} "
      "elements:{}",
      x.stride_bytes[0], x.lines_touched[0], x.stride_bytes[1], x.lines_touched[1],
      x.elements_read[0]));
  return snippets::join_lines(lines);
}

// region: trace-records
// ENTRY per element of a·b with its terms a[i,p]·b[p,j] and the value; WALK per loop
// order with the b offsets its first inner loop visits on an 8×16 b, and the 64-byte
// cache lines those reads fall in. The diagram draws these.
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
  constexpr std::size_t line_doubles = 64 / sizeof(double);
  for (std::size_t o = 0; o < 2; ++o) {
    std::vector<std::size_t> lines;
    for (const std::size_t offset : e.walks[o])
      if (lines.empty() || lines.back() != offset / line_doubles)
        lines.push_back(offset / line_doubles);
    records.push_back(fmt::format(
        "WALK|order={}|rows={}|cols={}|line_doubles={}|b_offsets={}|lines={}",
        o ? "i-k-j" : "i-j-k", kWalkK, kWalkM, line_doubles, fmt::join(e.walks[o], ","),
        fmt::join(lines, ",")));
  }
  return snippets::join_lines(records);
}
// endregion: trace-records

}  // namespace ch11
