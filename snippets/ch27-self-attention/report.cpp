// Chapter 27
// The report (one `key=value` line per fact, tensors as `shape:[..] values:[..]`) and
// the trace (the records behind docs/_ext/diagrams/ch27.py).
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <llmfs/report/format.hpp>
#include <llmfs/report/record.hpp>

#include "evidence.hpp"

namespace ch27 {

using llmfs::report::format_number;
using llmfs::report::format_tensor;
using llmfs::report::format_values;
using llmfs::report::Record;

namespace {

std::span<const double> row(const Tensor& t, std::size_t index, std::size_t width) {
  return t.values().subspan(index * width, width);
}

// `name:[shape]` for each stage of a pass: input (when given), Q, K, V, S, A, Y
std::string shapes_line(const std::vector<std::string>& names,
                        const std::vector<llmfs::tensor::Shape>& shapes) {
  std::string line;
  for (std::size_t i = 0; i < names.size() && i < shapes.size(); ++i)
    line += fmt::format("{}{}:{}", i ? " " : "", names[i], shapes[i]);
  return line;
}

std::vector<llmfs::tensor::Shape> stage_shapes(const HeadPass& p) {
  return {p.query.shape(),  p.key.shape(),     p.value.shape(),
          p.scores.shape(), p.weights.shape(), p.output.shape()};
}

}  // namespace

std::string render_report(const Evidence& e) {
  const HeadPass& f = e.fixture;
  const HeadPass &unscaled = e.saturation.unscaled, &scaled = e.saturation.scaled;
  const double unscaled_derivative = max_softmax_derivative(unscaled.weights.values());
  const double scaled_derivative = max_softmax_derivative(scaled.weights.values());
  const Exercises& x = e.exercises;
  auto fixture_shapes = stage_shapes(f);
  fixture_shapes.insert(fixture_shapes.begin(), e.input.shape());
  return snippets::join_lines({
      "chapter=27-self-attention",
      "prediction=each query row becomes one probability row over all keys; the output "
      "row is that row's blend of value rows; one [T,T] table serves every value "
      "feature",
      fmt::format("config=batch:{} tokens:{} d_model:{} d_k:{} d_v:{} scale:{} "
                  "projections:identity",
                  kBatch, kTokens, kWidth, kWidth, kWidth,
                  format_number(1.0 / std::sqrt(2.0))),
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
      fmt::format("history=query:0 additive_scores:{} dot_product_scores:{} "
                  "additive_networks_per_table:{} matrix_products_per_table:1",
                  format_values(e.additive),
                  format_values(f.scores.values().first(kTokens)), kTokens * kTokens),
      fmt::format("upstream={} loss:{}", format_tensor(e.upstream),
                  format_number(e.gradients.loss)),
      "input_gradient=" + format_tensor(e.gradients.gradients.at(0)),
      "query_weight_gradient=" + format_tensor(e.gradients.gradients.at(1)),
      "key_weight_gradient=" + format_tensor(e.gradients.gradients.at(2)),
      "value_weight_gradient=" + format_tensor(e.gradients.gradients.at(3)),
      fmt::format(
          "gradcheck=input:{} query_weight:{} key_weight:{} value_weight:{} total:{} "
          "step:{:g} tolerance:{:g} passed:{}",
          e.check.inputs.at(0).coordinates, e.check.inputs.at(1).coordinates,
          e.check.inputs.at(2).coordinates, e.check.inputs.at(3).coordinates,
          e.check.coordinates(), kGradStep, kGradTolerance, e.check.passed()),
      "shapes=" +
          shapes_line({"input", "query", "key", "value", "scores", "weights", "output"},
                      fixture_shapes) +
          fmt::format(" empty_batch_output:{}", e.empty_batch_output),
      "error_key_width=" + e.error_key_width,
      "error_token_count=" + e.error_token_count,
      "error_rank=" + e.error_rank,
      "exercise_1=" +
          shapes_line({"Q", "K", "V", "S", "A", "Y"}, stage_shapes(x.wide)) +
          fmt::format(" parameters:{}", x.parameters),
      fmt::format("exercise_2=weights:{} output:{}",
                  format_values(x.blind.weights.values()),
                  format_values(x.blind.output.values())),
      fmt::format("exercise_3=max_weight_change:{:.1e}", x.weight_change),
      fmt::format("exercise_4=output:{} max_difference_from_permuted_rows:{:.1e}",
                  format_values(x.swapped.output.values()), x.swap_mismatch),
      fmt::format(
          "exercise_5=unscaled_weights:{} unscaled_key_1:{:.6e} scaled_weights:{}",
          format_values(x.wide_keys.unscaled.weights.values()),
          x.wide_keys.unscaled.weights.values()[1],
          format_values(x.wide_keys.scaled.weights.values())),
      "next=block every key to the right of its query: 28-causal-masking",
  });
}

// region: trace-mixture-records
std::string mixture_records(const Evidence& e) {
  const HeadPass& f = e.fixture;
  std::string out;
  auto emit = [&out](const Record& record) { out += record.str() + '\n'; };
  // Each query's weight row, its sum, and the value mixture it produces
  for (std::size_t i = 0; i < kTokens; ++i) {
    emit(Record("MIX")
             .field("query", i)
             .field("weights", row(f.weights, i, kTokens))
             .field("row_sum", f.row_sums.values()[i])
             .field("output", row(f.output, i, kWidth)));
  }
  // The same keys without and with the 1/√d_k scale
  const Saturation& s = e.saturation;
  for (const auto& [scale, pass] :
       {std::pair{"none", &s.unscaled}, std::pair{"1/sqrt(d_k)", &s.scaled}}) {
    emit(Record("SATURATION")
             .field("scale", scale)
             .field("d_k", pass->key.shape()[2])
             .field("scores", pass->scores.values())
             .field("weights", pass->weights.values())
             .field("max_derivative", max_softmax_derivative(pass->weights.values())));
  }
  emit(Record("ADDITIVE")
           .field("query", 0)
           .field("additive", std::span<const double>(e.additive))
           .field("dot", f.scores.values().first(kTokens)));
  return out;
}
// endregion: trace-mixture-records

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
  return out + mixture_records(e);
}
// endregion: trace-records

}  // namespace ch27
