// Chapter 29
// The diagram's trace records (docs/_ext/diagrams/ch29.py draws them).

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <llmfs/report/format.hpp>
#include <llmfs/report/record.hpp>

#include "evidence.hpp"

namespace ch29 {

using llmfs::report::Record;

namespace {

std::vector<double> slice(std::span<const double> values, std::size_t start,
                          std::size_t count) {
  return {values.begin() + static_cast<std::ptrdiff_t>(start),
          values.begin() + static_cast<std::ptrdiff_t>(start + count)};
}

const char* verdict(double difference, const char* good, const char* bad) {
  return difference <= kTolerance ? good : bad;
}

}  // namespace

std::string render_trace(const Evidence& e) {
  constexpr std::size_t pairs = Fixture::width / 2;
  constexpr std::size_t tokens = Fixture::tokens;
  std::vector<std::string> lines;
  const std::string offsets =
      fmt::format("[{},{}]", Fixture::offsets[0], Fixture::offsets[1]);

  lines.push_back(
      Record("CONFIG")
          .field("width", Fixture::width)
          .field("pairs", pairs)
          .field("base", Fixture::base)
          .field("capacity", Fixture::capacity)
          .field("tokens", tokens)
          .field("offsets", std::string_view(offsets))
          .field("content", std::span<const double>(Fixture::content))
          .field("scale", 1.0 / std::sqrt(static_cast<double>(Fixture::width)))
          .str());
  for (std::size_t i = 0; i < pairs; ++i) {
    const std::string coordinates = fmt::format("[{},{}]", 2 * i, 2 * i + 1);
    lines.push_back(Record("RATE")
                        .field("pair", i)
                        .field("coordinates", std::string_view(coordinates))
                        .field("theta", e.theta[i])
                        .field("period", 2.0 * std::numbers::pi / e.theta[i])
                        .str());
  }

  // One TURN per offset, token and pair: the pair before and after its rotation
  for (const OffsetRun& run : e.runs) {
    for (std::size_t t = 0; t < tokens; ++t) {
      const std::size_t position = run.offset + t;
      for (std::size_t i = 0; i < pairs; ++i) {
        const std::size_t at = t * Fixture::width + 2 * i;
        const auto before = slice(e.input.values(), at, 2);
        const auto after = slice(run.relative.rotated_query.values(), at, 2);
        lines.push_back(Record("TURN")
                            .field("offset", run.offset)
                            .field("token", t)
                            .field("position", position)
                            .field("pair", i)
                            .field("angle", run.angles[t * pairs + i])
                            .field("cos", e.cos_table.values()[position * pairs + i])
                            .field("sin", e.sin_table.values()[position * pairs + i])
                            .field("before", std::span<const double>(before))
                            .field("after", std::span<const double>(after))
                            .field("length_before", std::hypot(before[0], before[1]))
                            .field("length_after", std::hypot(after[0], after[1]))
                            .str());
      }
    }
  }

  // One SCORE per query and key, with the value at each offset side by side
  for (std::size_t p = 0; p < tokens; ++p) {
    for (std::size_t s = 0; s < tokens; ++s) {
      Record record("SCORE");
      record.field("query", p)
          .field("key", s)
          .field("gap", static_cast<long long>(p) - static_cast<long long>(s))
          .field("visible", s <= p);
      for (const OffsetRun& run : e.runs)
        record.field(fmt::format("offset_{}", run.offset),
                     run.relative.scores.values()[p * tokens + s]);
      lines.push_back(record.str());
    }
  }
  for (std::size_t p = 0; p < tokens; ++p) {
    Record record("WEIGHTS");
    record.field("query", p);
    for (const OffsetRun& run : e.runs)
      record.field(fmt::format("offset_{}", run.offset),
                   std::span<const double>(
                       slice(run.attention.weights.values(), p * tokens, tokens)));
    lines.push_back(record.str());
  }
  for (std::size_t t = 0; t < tokens; ++t) {
    Record record("OUTPUT");
    record.field("token", t);
    for (const OffsetRun& run : e.runs)
      record.field(fmt::format("offset_{}", run.offset),
                   std::span<const double>(slice(run.attention.output.values(),
                                                 t * Fixture::width, Fixture::width)));
    const OffsetRun& last = e.runs.back();
    record.field(
        fmt::format("values_rotated_offset_{}", last.offset),
        std::span<const double>(slice(last.attention.output_if_values_rotated.values(),
                                      t * Fixture::width, Fixture::width)));
    lines.push_back(record.str());
  }
  lines.push_back(
      Record("PROOF")
          .field("relative",
                 verdict(std::max(e.score_diagonal_spread, e.score_shift_difference),
                         "same-gap-same-score", "violated"))
          .field("shared_offset",
                 verdict(e.weight_shift_difference, "weights-preserved", "changed"))
          .field("outputs",
                 verdict(e.output_shift_difference, "outputs-preserved", "changed"))
          .field("norms", verdict(e.norm_difference, "preserved", "changed"))
          .field("values", e.position0_output_is_v0 ? "unrotated" : "rotated")
          .field("tolerance", "0.000000000001")
          .str());
  return fmt::format("{}\n", fmt::join(lines, "\n"));
}

}  // namespace ch29
