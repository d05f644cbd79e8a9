// Chapter 27
// The trace: the records behind the diagram (docs/_ext/diagrams/ch27.py).
#include <cmath>
#include <span>
#include <string>

#include <llmfs/report/record.hpp>

#include "evidence.hpp"

namespace ch27 {

using llmfs::report::Record;

namespace {

std::span<const double> row(const Tensor& t, std::size_t index, std::size_t width) {
  return t.values().subspan(index * width, width);
}

}  // namespace

// region: trace-records
std::string render_trace(const Evidence& e) {
  const HeadPass& f = e.fixture;
  std::string out;
  auto emit = [&out](const Record& record) { out += record.str() + '\n'; };

  emit(Record("CONFIG")
           .field("batch", kBatch)
           .field("tokens", kTokens)
           .field("d_model", kWidth)
           .field("d_k", kWidth)
           .field("d_v", kWidth)
           .field("scale", 1.0 / std::sqrt(2.0))
           .field("projections", "identity"));
  // The projected rows, stage by stage
  const std::pair<const char*, const Tensor*> stages[] = {
      {"query", &f.query}, {"key", &f.key}, {"value", &f.value}};
  for (const auto& [name, tensor] : stages) {
    for (std::size_t t = 0; t < kTokens; ++t) {
      emit(Record("ROW")
               .field("stage", name)
               .field("token", t)
               .field("values", row(*tensor, t, kWidth)));
    }
  }
  // Every query/key pair: raw dot product, scaled score, weight
  for (std::size_t i = 0; i < kTokens; ++i) {
    for (std::size_t j = 0; j < kTokens; ++j) {
      const std::size_t at = i * kTokens + j;
      emit(Record("CELL")
               .field("query", i)
               .field("key", j)
               .field("dot", f.dots.values()[at])
               .field("score", f.scores.values()[at])
               .field("weight", f.weights.values()[at]));
    }
  }
  // Each query's weight row, its sum, and the value mixture it produces
  for (std::size_t i = 0; i < kTokens; ++i) {
    emit(Record("MIX")
             .field("query", i)
             .field("weights", row(f.weights, i, kTokens))
             .field("row_sum", f.row_sums[i])
             .field("output", row(f.output, i, kWidth)));
  }
  // The same keys without and with the 1/√d_k scale
  const SaturationEvidence& s = e.saturation;
  for (const auto* r : {&s.unscaled, &s.scaled}) {
    emit(Record("SATURATION")
             .field("scale", r == &s.unscaled ? "none" : "1/sqrt(d_k)")
             .field("d_k", s.d_k)
             .field("scores", std::span<const double>(r->scores))
             .field("weights", std::span<const double>(r->weights))
             .field("max_derivative", r->max_derivative));
  }
  emit(Record("ADDITIVE")
           .field("query", 0)
           .field("additive", std::span<const double>(e.history.additive))
           .field("dot", std::span<const double>(e.history.dot)));
  return out;
}
// endregion: trace-records

}  // namespace ch27
