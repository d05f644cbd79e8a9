// Chapter 29
// The demo's report, one `key=...` line per fact, and the diagram's trace records
// (docs/_ext/diagrams/ch29.py draws them).

#include <cmath>
#include <numbers>

#include <llmfs/report/format.hpp>
#include <llmfs/report/record.hpp>

#include "evidence.hpp"

namespace ch29 {

using llmfs::report::format_number;
using llmfs::report::format_tensor;
using llmfs::report::format_values;
using llmfs::report::record;
using llmfs::report::Record;
using llmfs::report::row;
using F = Fixture;
constexpr std::size_t pairs = F::width / 2, tokens = F::tokens;

namespace {

// The angle p·θ_i of token t and pair i at one offset.
double angle(const Evidence& e, std::size_t offset, std::size_t t, std::size_t i) {
  return static_cast<double>(offset + t) * e.rope.frequencies()[i];
}

// `record` with one `offset_N` field per run, side by side: `value(run)`.
template <class Value>
Record per_offset(Record record, const Evidence& e, Value value) {
  for (const OffsetRun& run : e.runs)
    record.field(fmt::format("offset_{}", run.offset), value(run));
  return record;
}

}  // namespace

std::string render_report(const Evidence& e) {
  std::vector<std::string> lines{
      "chapter=29 rotary position embedding: turn query and key pairs by position "
      "times rate",
      fmt::format(
          "config=width:{} pairs:{} base:{} capacity:{} tokens:{} offsets:[{},{}] "
          "scale:{}",
          F::width, pairs, format_number(F::base), F::capacity, tokens, F::offsets[0],
          F::offsets[1], format_number(1.0 / std::sqrt(double(F::width)))),
      "theta=" + format_values(e.rope.frequencies()),
      "cos=" + format_tensor(e.rope.cos_table()),
      "sin=" + format_tensor(e.rope.sin_table()),
      "input=" + format_tensor(fixture_content_rows()),
      "values=" + format_tensor(fixture_value_rows()),
  };
  for (const OffsetRun& run : e.runs) {
    std::vector<double> angles;  // [T · pairs]
    for (std::size_t t = 0; t < tokens; ++t)
      for (std::size_t i = 0; i < pairs; ++i)
        angles.push_back(angle(e, run.offset, t, i));
    const std::string at = fmt::format("offset{}.", run.offset);
    lines.push_back(at + "angles=" + format_values(angles));
    lines.push_back(at + "rotated=" + format_tensor(run.relative.rotated_query));
    lines.push_back(at + "scores=" + format_tensor(run.relative.scores));
    lines.push_back(at + "weights=" + format_tensor(run.attention.weights));
    lines.push_back(at + "output=" + format_tensor(run.attention.output));
    lines.push_back(at + "output_if_values_rotated=" +
                    format_tensor(run.attention.output_if_values_rotated));
  }
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

std::string render_trace(const Evidence& e) {
  const auto theta = e.rope.frequencies();
  std::vector<std::string> lines{record(
      "CONFIG", "width", F::width, "pairs", pairs, "base", F::base, "capacity",
      F::capacity, "tokens", tokens, "offsets",
      fmt::format("[{},{}]", F::offsets[0], F::offsets[1]), "content",
      std::span<const double>(F::content), "scale", 1.0 / std::sqrt(double(F::width)))};
  for (std::size_t i = 0; i < pairs; ++i)
    lines.push_back(record("RATE", "pair", i, "coordinates",
                           fmt::format("[{},{}]", 2 * i, 2 * i + 1), "theta", theta[i],
                           "period", 2.0 * std::numbers::pi / theta[i]));
  // One TURN per offset, token and pair: the pair before and after its rotation
  const llmfs::tensor::Tensor input = fixture_content_rows();
  for (const OffsetRun& run : e.runs) {
    for (std::size_t t = 0, position = run.offset; t < tokens; ++t, ++position) {
      for (std::size_t i = 0; i < pairs; ++i) {
        const auto before = row(input, t * pairs + i, 2),
                   after = row(run.relative.rotated_query, t * pairs + i, 2);
        lines.push_back(record("TURN", "offset", run.offset, "token", t, "position",
                               position, "pair", i, "angle", angle(e, run.offset, t, i),
                               "cos", row(e.rope.cos_table(), position, pairs)[i],
                               "sin", row(e.rope.sin_table(), position, pairs)[i],
                               "before", before, "after", after, "length_before",
                               std::hypot(before[0], before[1]), "length_after",
                               std::hypot(after[0], after[1])));
      }
    }
  }
  // One SCORE per query and key, then the weights and outputs, each offset side by side
  for (std::size_t p = 0; p < tokens; ++p) {
    for (std::size_t s = 0; s < tokens; ++s) {
      const auto gap = std::ptrdiff_t(p) - std::ptrdiff_t(s);
      lines.push_back(
          per_offset(Record("SCORE").fields("query", p, "key", s, "gap", gap, "visible",
                                            s <= p),
                     e,
                     [&](auto& run) { return row(run.relative.scores, p, tokens)[s]; })
              .str());
    }
  }
  for (std::size_t p = 0; p < tokens; ++p)
    lines.push_back(per_offset(Record("WEIGHTS").field("query", p), e, [&](auto& run) {
                      return row(run.attention.weights, p, tokens);
                    }).str());
  const OffsetRun& last = e.runs.back();
  for (std::size_t t = 0; t < tokens; ++t)
    lines.push_back(
        per_offset(Record("OUTPUT").field("token", t), e,
                   [&](auto& run) { return row(run.attention.output, t, F::width); })
            .field(fmt::format("values_rotated_offset_{}", last.offset),
                   row(last.attention.output_if_values_rotated, t, F::width))
            .str());
  return snippets::join_lines(lines);
}

}  // namespace ch29
