// Chapter 27
// The report: one `key=value` line per fact, tensors as `shape:[..]
// values:[..]`.
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <llmfs/report/format.hpp>

#include "evidence.hpp"

namespace ch27 {

using llmfs::report::format_number;
using llmfs::report::format_tensor;
using llmfs::report::format_values;

namespace {

std::string shapes_line(const std::vector<std::string>& names,
                        const std::vector<llmfs::tensor::Shape>& shapes) {
  std::string line;
  for (std::size_t i = 0; i < names.size() && i < shapes.size(); ++i) {
    line += fmt::format("{}{}:{}", i ? " " : "", names[i], shapes[i]);
  }
  return line;
}

bool all_rows_sum_to_one(const std::vector<double>& sums) {
  for (double s : sums) {
    if (std::abs(s - 1.0) > 1e-12) return false;
  }
  return true;
}

}  // namespace

std::string render_report(const Evidence& e) {
  const HeadPass& f = e.fixture;
  const GradientEvidence& g = e.gradients;
  const SaturationEvidence& s = e.saturation;
  const ExerciseAnswers& x = e.exercises;
  std::vector<std::string> lines{
      "chapter=27-self-attention",
      "prediction=each query row becomes one probability row over all keys; the output "
      "row is "
      "that row's blend of value rows; one [T,T] table serves every value feature",
      fmt::format("config=batch:{} tokens:{} d_model:{} d_k:{} d_v:{} scale:{} "
                  "projections:identity",
                  kBatch, kTokens, kWidth, kWidth, kWidth,
                  format_number(1.0 / std::sqrt(2.0))),
      "input=" + format_tensor(f.input),
      "query=" + format_tensor(f.query),
      "key=" + format_tensor(f.key),
      "value=" + format_tensor(f.value),
      "dots=" + format_tensor(f.dots),
      "scores=" + format_tensor(f.scores),
      "weights=" + format_tensor(f.weights),
      "row_sums=" + format_values(f.row_sums),
      "output=" + format_tensor(f.output),
      fmt::format(
          "saturation=d_k:{} dots:{} unscaled_weights:{} unscaled_max_derivative:{} "
          "scaled_scores:{} scaled_weights:{} scaled_max_derivative:{} "
          "derivative_ratio:{:.1f}",
          s.d_k, format_values(s.dots), format_values(s.unscaled.weights),
          format_number(s.unscaled.max_derivative), format_values(s.scaled.scores),
          format_values(s.scaled.weights), format_number(s.scaled.max_derivative),
          s.scaled.max_derivative / s.unscaled.max_derivative),
      fmt::format("history=query:0 additive_scores:{} dot_product_scores:{} "
                  "additive_networks_per_table:{} matrix_products_per_table:1",
                  format_values(e.history.additive), format_values(e.history.dot),
                  kTokens * kTokens),
      fmt::format("upstream={} loss:{}", format_tensor(g.upstream),
                  format_number(g.loss)),
      "input_gradient=" + format_tensor(g.input_gradient),
      "query_weight_gradient=" + format_tensor(g.query_weight_gradient),
      "key_weight_gradient=" + format_tensor(g.key_weight_gradient),
      "value_weight_gradient=" + format_tensor(g.value_weight_gradient),
      fmt::format(
          "gradcheck=input:{} query_weight:{} key_weight:{} value_weight:{} total:{} "
          "step:{:g} tolerance:{:g} passed:{}",
          g.check.inputs.at(0).coordinates, g.check.inputs.at(1).coordinates,
          g.check.inputs.at(2).coordinates, g.check.inputs.at(3).coordinates,
          g.check.coordinates(), kGradStep, kGradTolerance, g.check.passed()),
      "shapes=" +
          shapes_line({"input", "query", "key", "value", "scores", "weights", "output"},
                      e.shapes.stages) +
          fmt::format(" empty_batch_output:{}", e.shapes.empty_batch_output),
      "error_key_width=" + e.errors.key_width,
      "error_token_count=" + e.errors.token_count,
      "error_rank=" + e.errors.rank,
      "exercise_1=" + shapes_line({"Q", "K", "V", "S", "A", "Y"}, x.e1_shapes) +
          fmt::format(" parameters:{}", x.e1_parameters),
      fmt::format("exercise_2=weights:{} output:{}",
                  format_values(x.e2_weights.values()),
                  format_values(x.e2_output.values())),
      fmt::format("exercise_3=max_weight_change:{:.1e} unchanged:{}",
                  x.e3_max_weight_change, x.e3_max_weight_change < 1e-15),
      fmt::format("exercise_4=output:{} max_difference_from_permuted_rows:{:.1e}",
                  format_values(x.e4_output.values()), x.e4_max_mismatch),
      fmt::format(
          "exercise_5=unscaled_weights:{} unscaled_key_1:{:.6e} scaled_weights:{}",
          format_values(x.e5_unscaled_weights), x.e5_unscaled_weights.at(1),
          format_values(x.e5_scaled_weights)),
      fmt::format("proof=rows_sum_to_one:{} gradients:{} saturation_without_scale:{}",
                  all_rows_sum_to_one(f.row_sums),
                  g.check.passed() ? "central-differences" : "FAILED",
                  s.unscaled.weights.at(0) > 0.999 ? "yes" : "no"),
      "next=block every key to the right of its query: 28-causal-masking",
  };
  std::string text;
  for (const auto& line : lines)
    text += line + '\n';
  return text;
}

}  // namespace ch27
