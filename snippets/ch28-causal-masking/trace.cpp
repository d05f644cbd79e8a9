// Chapter 28
// The trace: the records behind the diagram (docs/_ext/diagrams/ch28.py).
#include <cmath>
#include <span>
#include <string>

#include <llmfs/report/record.hpp>

#include "evidence.hpp"

namespace ch28 {

using llmfs::report::Record;

namespace {

std::span<const double> row(const Tensor& t, std::size_t index, std::size_t width) {
  return t.values().subspan(index * width, width);
}

}  // namespace

// region: trace-records
std::string render_trace(const Evidence& e) {
  const CausalPass& f = e.fixture;
  std::string out;
  auto emit = [&out](const Record& record) { out += record.str() + '\n'; };

  emit(Record("CONFIG")
           .field("batch", kBatch)
           .field("tokens", kTokens)
           .field("d_k", kWidth)
           .field("scale", 1.0 / std::sqrt(2.0))
           .field("mask", "additive causal"));
  // Every query/key pair: visibility, score, mask entry, masked score, weight
  for (std::size_t i = 0; i < kTokens; ++i) {
    for (std::size_t j = 0; j < kTokens; ++j) {
      const std::size_t at = i * kTokens + j;
      emit(Record("CELL")
               .field("query", i)
               .field("key", j)
               .field("visibility", j <= i ? "allowed" : "blocked")
               .field("diagonal", i == j)
               .field("score", f.scores.values()[at])
               .field("mask", f.mask.values()[at])
               .field("masked_score", f.masked_scores.values()[at])
               .field("weight", f.weights.values()[at]));
    }
  }
  // Each row's sum and value mixture
  for (std::size_t i = 0; i < kTokens; ++i) {
    emit(Record("MIX")
             .field("query", i)
             .field("allowed_keys", i + 1)
             .field("row_sum", f.row_sums[i])
             .field("output", row(f.output, i, kWidth)));
  }
  // The prefix check: the last token replaced, every output row compared bit for bit
  for (std::size_t i = 0; i < kTokens; ++i) {
    emit(Record("PREFIX")
             .field("token", i)
             .field("before", row(f.output, i, kWidth))
             .field("after", row(e.prefix.changed.output, i, kWidth))
             .field("status",
                    e.prefix.output_row_unchanged[i] ? "bitwise-unchanged" : "changed")
             .field("replaced", kTokens - 1)
             .field("replacement", std::span<const double>(kReplacement)));
  }
  // A finite mask leaks: exercise 5
  const ExerciseAnswers& x = e.exercises;
  emit(Record("LEAK")
           .field("mask", kFiniteMask)
           .field("future_weight", x.e5_future_weight)
           .field("row0_before", std::span<const double>(x.e5_row0_before))
           .field("row0_after", std::span<const double>(x.e5_row0_after))
           .field("prefix", x.e5_row0_before == x.e5_row0_after ? "holds" : "broken"));
  return out;
}
// endregion: trace-records

}  // namespace ch28
