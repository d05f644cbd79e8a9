// Chapter 29
// The demo's report, one `key=...` line per fact.

#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <llmfs/report/format.hpp>

#include "evidence.hpp"

namespace ch29 {

using llmfs::report::format_number;
using llmfs::report::format_tensor;
using llmfs::report::format_values;

namespace {

// The angle p·θ_i of every token and pair at one offset: [T · pairs].
std::vector<double> angles(std::span<const double> theta, std::size_t offset) {
  std::vector<double> out;
  for (std::size_t t = 0; t < Fixture::tokens; ++t)
    for (const double rate : theta)
      out.push_back(static_cast<double>(offset + t) * rate);
  return out;
}

// The length of every row of a [1, T, d] tensor: [T].
std::vector<double> row_norms(const llmfs::tensor::Tensor& rows) {
  std::vector<double> norms;
  for (std::size_t start = 0; start < rows.size(); start += Fixture::width) {
    double sum = 0.0;
    for (const double x : rows.values().subspan(start, Fixture::width))
      sum += x * x;
    norms.push_back(std::sqrt(sum));
  }
  return norms;
}

}  // namespace

std::string render_report(const Evidence& e) {
  std::vector<std::string> lines{
      "chapter=29 rotary position embedding: turn query and key pairs by position "
      "times rate",
      fmt::format(
          "config=width:{} pairs:{} base:{} capacity:{} tokens:{} offsets:[{},{}] "
          "scale:{}",
          Fixture::width, Fixture::width / 2, format_number(Fixture::base),
          Fixture::capacity, Fixture::tokens, Fixture::offsets[0], Fixture::offsets[1],
          format_number(1.0 / std::sqrt(double(Fixture::width)))),
      "theta=" + format_values(e.rope.frequencies()),
      "cos=" + format_tensor(e.rope.cos_table()),
      "sin=" + format_tensor(e.rope.sin_table()),
      "input=" + format_tensor(fixture_content_rows()),
      "values=" + format_tensor(fixture_value_rows()),
  };
  for (const OffsetRun& run : e.runs) {
    const std::string at = fmt::format("offset{}.", run.offset);
    lines.push_back(
        at + "angles=" + format_values(angles(e.rope.frequencies(), run.offset)));
    lines.push_back(at + "rotated=" + format_tensor(run.relative.rotated_query));
    lines.push_back(at + "scores=" + format_tensor(run.relative.scores));
    lines.push_back(at + "weights=" + format_tensor(run.attention.weights));
    lines.push_back(at + "output=" + format_tensor(run.attention.output));
    lines.push_back(at + "output_if_values_rotated=" +
                    format_tensor(run.attention.output_if_values_rotated));
  }
  lines.push_back(
      fmt::format("norms=before:{} offset0:{} offset3:{}",
                  format_values(row_norms(fixture_content_rows())),
                  format_values(row_norms(e.runs[0].relative.rotated_query)),
                  format_values(row_norms(e.runs[1].relative.rotated_query))));
  for (const auto& [name, message] : e.errors)
    lines.push_back(fmt::format("error.{}={}", name, message));
  const ExerciseAnswers& x = e.exercises;
  lines.push_back("exercise.1=rates:" + format_values(x.rates_width8_base10000));
  lines.push_back("exercise.2=positions_per_turn:" + format_number(x.slow_pair_period));
  lines.push_back(fmt::format("exercise.3=score_5_2:{} score_3_0:{}",
                              format_number(x.score_5_2), format_number(x.score_3_0)));
  lines.push_back(fmt::format("exercise.4=largest_offset:{} next:{}", x.largest_offset,
                              x.first_invalid));
  lines.push_back(fmt::format("exercise.5=real:{} values_rotated:{}",
                              format_values(x.position0_real),
                              format_values(x.position0_values_rotated)));
  lines.push_back(fmt::format("exercise.6=row:{} rotated:{}",
                              format_values(x.counter_rotated_row),
                              format_values(x.counter_rotated_result)));
  lines.push_back(
      "next=chapter 30 splits the width into heads and rotates each head's queries and "
      "keys with d = head width");
  return snippets::join_lines(lines);
}

}  // namespace ch29
