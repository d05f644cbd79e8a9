// Chapter 27
// The report (one `key=value` line per fact, tensors as `shape:[..] values:[..]`) and
// the trace (the records behind docs/_ext/diagrams/ch27.py).
#include <cmath>
#include <string>

#include <fmt/format.h>

#include <llmfs/report/format.hpp>
#include <llmfs/report/record.hpp>

#include "evidence.hpp"

namespace ch27 {

using llmfs::report::format_number;
using llmfs::report::format_tensor;
using llmfs::report::format_values;
using llmfs::report::record;
using llmfs::report::row;

std::string render_report(const Evidence& e) {
  const HeadPass& f = e.fixture;
  const HeadPass &unscaled = e.saturation.unscaled, &scaled = e.saturation.scaled;
  const double unscaled_derivative = max_softmax_derivative(unscaled.weights.values()),
               scaled_derivative = max_softmax_derivative(scaled.weights.values());
  const Exercises& x = e.exercises;
  const HeadPass& w = x.wide;
  return snippets::join_lines({
      "chapter=27-self-attention",
      snippets::config_line(),
      "input=" + format_tensor(e.input),
      "query=" + format_tensor(f.query),
      "key=" + format_tensor(f.key),
      "value=" + format_tensor(f.value),
      "dots=" + format_tensor(f.dots),
      "scores=" + format_tensor(f.scores),
      "weights=" + format_tensor(f.weights),
      "row_sums=" + format_values(f.row_sums.values()),
      "output=" + format_tensor(f.output),
      fmt::format(
          "saturation=d_k:{} dots:{} unscaled_weights:{} unscaled_max_derivative:{} "
          "scaled_scores:{} scaled_weights:{} scaled_max_derivative:{} "
          "derivative_ratio:{:.1f}",
          scaled.key.shape()[2], format_values(scaled.dots.values()),
          format_values(unscaled.weights.values()), format_number(unscaled_derivative),
          format_values(scaled.scores.values()), format_values(scaled.weights.values()),
          format_number(scaled_derivative), scaled_derivative / unscaled_derivative),
      "history=query:0 additive_scores:" + format_values(e.additive),
      snippets::gradient_lines(e.upstream, e.loss, e.gradients),
      "error_key_width=" + e.error_key_width,
      "error_token_count=" + e.error_token_count,
      "error_rank=" + e.error_rank,
      fmt::format("exercise_1=Q:{} K:{} V:{} S:{} A:{} Y:{} parameters:{}",
                  w.query.shape(), w.key.shape(), w.value.shape(), w.scores.shape(),
                  w.weights.shape(), w.output.shape(), x.parameters),
      fmt::format("exercise_2=weights:{} output:{}",
                  format_values(x.blind.weights.values()),
                  format_values(x.blind.output.values())),
      "exercise_3=weights:" + format_values(x.shifted.weights.values()),
      "exercise_4=output:" + format_values(x.swapped.output.values()),
      fmt::format(
          "exercise_5=unscaled_weights:{} unscaled_key_1:{:.6e} scaled_weights:{}",
          format_values(x.wide_keys.unscaled.weights.values()),
          x.wide_keys.unscaled.weights.values()[1],
          format_values(x.wide_keys.scaled.weights.values())),
      "next=block every key to the right of its query: 28-causal-masking",
  });
}

// region: trace-records
std::string render_trace(const Evidence& e) {
  const HeadPass& f = e.fixture;
  std::vector<std::string> out{record(
      "CONFIG", "batch", kBatch, "tokens", kTokens, "d_model", kWidth, "d_k", kWidth,
      "d_v", kWidth, "scale", 1.0 / std::sqrt(2.0), "projections", "identity")};
  // The projected rows, stage by stage
  for (const auto& [name, tensor] :
       {std::pair{"query", &f.query}, {"key", &f.key}, {"value", &f.value}}) {
    for (std::size_t t = 0; t < kTokens; ++t)
      out.push_back(
          record("ROW", "stage", name, "token", t, "values", row(*tensor, t, kWidth)));
  }
  // Every query/key pair: raw dot product, scaled score, weight
  for (std::size_t i = 0; i < kTokens; ++i) {
    for (std::size_t j = 0, at = i * kTokens; j < kTokens; ++j, ++at)
      out.push_back(record("CELL", "query", i, "key", j, "dot", f.dots.values()[at],
                           "score", f.scores.values()[at], "weight",
                           f.weights.values()[at]));
  }
  // Each query's weight row, its sum, and the value mixture it produces
  for (std::size_t i = 0; i < kTokens; ++i)
    out.push_back(record("MIX", "query", i, "weights", row(f.weights, i, kTokens),
                         "row_sum", f.row_sums.values()[i], "output",
                         row(f.output, i, kWidth)));
  // The same keys without and with the 1/√d_k scale
  const Saturation& s = e.saturation;
  for (const auto& [scale, pass] :
       {std::pair{"none", &s.unscaled}, std::pair{"1/sqrt(d_k)", &s.scaled}}) {
    out.push_back(record("SATURATION", "scale", scale, "d_k", pass->key.shape()[2],
                         "scores", pass->scores.values(), "weights",
                         pass->weights.values(), "max_derivative",
                         max_softmax_derivative(pass->weights.values())));
  }
  out.push_back(record("ADDITIVE", "query", 0, "additive", e.additive, "dot",
                       f.scores.values().first(kTokens)));
  return snippets::join_lines(out);
}
// endregion: trace-records

}  // namespace ch27
