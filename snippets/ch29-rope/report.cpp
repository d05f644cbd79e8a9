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

std::string within(double difference) {
  return difference <= kTolerance ? "true" : "false";
}

}  // namespace

std::string render_report(const Evidence& e) {
  std::vector<std::string> lines;
  lines.push_back(
      "chapter=29 rotary position embedding: turn query and key pairs by position "
      "times rate");
  lines.push_back(fmt::format(
      "config=width:{} pairs:{} base:{} capacity:{} tokens:{} offsets:[{},{}] scale:{}",
      Fixture::width, Fixture::width / 2, format_number(Fixture::base),
      Fixture::capacity, Fixture::tokens, Fixture::offsets[0], Fixture::offsets[1],
      format_number(1.0 / std::sqrt(double(Fixture::width)))));
  lines.push_back("theta=" + format_values(e.theta));
  lines.push_back("cos=" + format_tensor(e.cos_table));
  lines.push_back("sin=" + format_tensor(e.sin_table));
  lines.push_back("input=" + format_tensor(e.input));
  lines.push_back("values=" + format_tensor(e.values));
  for (const OffsetRun& run : e.runs) {
    const std::string at = fmt::format("offset{}.", run.offset);
    lines.push_back(at + "angles=" + format_values(run.angles));
    lines.push_back(at + "rotated=" + format_tensor(run.relative.rotated_query));
    lines.push_back(at + "scores=" + format_tensor(run.relative.scores));
    lines.push_back(at + "weights=" + format_tensor(run.attention.weights));
    lines.push_back(at + "output=" + format_tensor(run.attention.output));
    lines.push_back(at + "output_if_values_rotated=" +
                    format_tensor(run.attention.output_if_values_rotated));
  }
  lines.push_back(fmt::format(
      "norms=before:{} offset0:{} offset3:{} preserved:{}",
      format_values(e.runs[0].norms_before), format_values(e.runs[0].norms_after),
      format_values(e.runs[1].norms_after), within(e.norm_difference)));
  lines.push_back(fmt::format(
      "relative=same_gap_same_score:{} shift_preserves_scores:{} tolerance:1e-12",
      within(e.score_diagonal_spread), within(e.score_shift_difference)));
  lines.push_back(fmt::format("shared_offset=weights_preserved:{} outputs_preserved:{}",
                              within(e.weight_shift_difference),
                              within(e.output_shift_difference)));
  lines.push_back(fmt::format(
      "value_policy=rotated:query,key unrotated:value position0_output_is_v0:{}",
      e.position0_output_is_v0));
  lines.push_back(
      fmt::format("gradient=coordinates:{} step:{:g} tolerance:{:g} passed:{}",
                  e.gradient.coordinates, e.gradient.step, e.gradient.tolerance,
                  e.gradient.passed));
  lines.push_back("error.zero_width=" + e.errors.zero_width);
  lines.push_back("error.odd_width=" + e.errors.odd_width);
  lines.push_back("error.base=" + e.errors.base);
  lines.push_back("error.zero_capacity=" + e.errors.zero_capacity);
  lines.push_back("error.capacity=" + e.errors.capacity);
  lines.push_back("error.offset_overflow=" + e.errors.offset_overflow);
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
  return fmt::format("{}\n", fmt::join(lines, "\n"));
}

}  // namespace ch29
