// Chapter 29
// The diagram's trace records (docs/_ext/diagrams/ch29.py draws them).

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <llmfs/report/record.hpp>

#include "evidence.hpp"

namespace ch29 {

using llmfs::report::Record;

std::string render_trace(const Evidence& e) {
  constexpr std::size_t pairs = Fixture::width / 2, tokens = Fixture::tokens;
  const auto theta = e.rope.frequencies();
  const llmfs::tensor::Tensor input = fixture_content_rows();
  std::vector<std::string> lines;
  const std::string offsets =
      fmt::format("[{},{}]", Fixture::offsets[0], Fixture::offsets[1]);
  lines.push_back(Record("CONFIG")
                      .field("width", Fixture::width)
                      .field("pairs", pairs)
                      .field("base", Fixture::base)
                      .field("capacity", Fixture::capacity)
                      .field("tokens", tokens)
                      .field("offsets", std::string_view(offsets))
                      .field("content", std::span<const double>(Fixture::content))
                      .field("scale", 1.0 / std::sqrt(double(Fixture::width)))
                      .str());
  for (std::size_t i = 0; i < pairs; ++i) {
    const std::string coordinates = fmt::format("[{},{}]", 2 * i, 2 * i + 1);
    lines.push_back(Record("RATE")
                        .field("pair", i)
                        .field("coordinates", std::string_view(coordinates))
                        .field("theta", theta[i])
                        .field("period", 2.0 * std::numbers::pi / theta[i])
                        .str());
  }

  // One TURN per offset, token and pair: the pair before and after its rotation
  for (const OffsetRun& run : e.runs) {
    for (std::size_t t = 0; t < tokens; ++t) {
      const std::size_t position = run.offset + t;
      for (std::size_t i = 0; i < pairs; ++i) {
        const auto before = input.values().subspan(t * Fixture::width + 2 * i, 2);
        const auto after =
            run.relative.rotated_query.values().subspan(t * Fixture::width + 2 * i, 2);
        lines.push_back(
            Record("TURN")
                .field("offset", run.offset)
                .field("token", t)
                .field("position", position)
                .field("pair", i)
                .field("angle", static_cast<double>(position) * theta[i])
                .field("cos", e.rope.cos_table().values()[position * pairs + i])
                .field("sin", e.rope.sin_table().values()[position * pairs + i])
                .field("before", before)
                .field("after", after)
                .field("length_before", std::hypot(before[0], before[1]))
                .field("length_after", std::hypot(after[0], after[1]))
                .str());
      }
    }
  }

  // One SCORE per query and key, then the weights and outputs, each offset side by side
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
                   run.attention.weights.values().subspan(p * tokens, tokens));
    lines.push_back(record.str());
  }
  const OffsetRun& last = e.runs.back();
  for (std::size_t t = 0; t < tokens; ++t) {
    Record record("OUTPUT");
    record.field("token", t);
    for (const OffsetRun& run : e.runs)
      record.field(
          fmt::format("offset_{}", run.offset),
          run.attention.output.values().subspan(t * Fixture::width, Fixture::width));
    record.field(fmt::format("values_rotated_offset_{}", last.offset),
                 last.attention.output_if_values_rotated.values().subspan(
                     t * Fixture::width, Fixture::width));
    lines.push_back(record.str());
  }
  return snippets::join_lines(lines);
}

}  // namespace ch29
