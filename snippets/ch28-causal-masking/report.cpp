// Chapter 28
// The report: one `key=value` line per fact, tensors as `shape:[..]
// values:[..]`.
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <llmfs/report/format.hpp>

#include "evidence.hpp"

namespace ch28 {

using llmfs::report::format_number;
using llmfs::report::format_tensor;
using llmfs::report::format_values;

namespace {

std::string statuses(const std::vector<bool>& unchanged) {
  std::string text;
  for (std::size_t row = 0; row < unchanged.size(); ++row) {
    text += fmt::format("{}row_{}:{}", row ? " " : "", row,
                        unchanged[row] ? "bitwise-unchanged" : "changed");
  }
  return text;
}

bool blocked_weights_exactly_zero(const Tensor& weights) {
  for (std::size_t i = 0; i < kTokens; ++i) {
    for (std::size_t j = i + 1; j < kTokens; ++j) {
      if (weights.values()[i * kTokens + j] != 0.0) return false;
    }
  }
  return true;
}

}  // namespace

std::string render_report(const Evidence& e) {
  const CausalPass& f = e.fixture;
  const GradientEvidence& g = e.gradients;
  const ExerciseAnswers& x = e.exercises;
  const bool prefix_holds =
      e.prefix.output_row_unchanged.at(0) && e.prefix.output_row_unchanged.at(1) &&
      e.prefix.weights_row_unchanged.at(0) && e.prefix.weights_row_unchanged.at(1) &&
      !e.prefix.output_row_unchanged.at(2);
  bool barrier_zero = true;
  for (double v : g.barrier_gradient_row_2)
    barrier_zero = barrier_zero && v == 0.0;
  std::vector<std::string> lines{
      "chapter=28-causal-masking",
      "prediction=query i reads keys 0..i only; blocked weights are exactly 0; row 0 "
      "copies value 0; "
      "changing the last token leaves every earlier row bitwise unchanged",
      fmt::format("config=batch:{} tokens:{} d_model:{} d_k:{} d_v:{} scale:{} "
                  "projections:identity "
                  "mask:additive",
                  kBatch, kTokens, kWidth, kWidth, kWidth,
                  format_number(1.0 / std::sqrt(2.0))),
      "input=" + format_tensor(f.input),
      "mask=" + format_tensor(f.mask),
      "scores=" + format_tensor(f.scores),
      "masked_scores=" + format_tensor(f.masked_scores),
      "weights=" + format_tensor(f.weights),
      "row_sums=" + format_values(f.row_sums),
      "output=" + format_tensor(f.output),
      fmt::format("blocked=weights_exactly_zero:{} row_0_weight_exactly_one:{} "
                  "row_0_equals_value_0:{}",
                  blocked_weights_exactly_zero(f.weights), f.weights.values()[0] == 1.0,
                  f.output.values()[0] == f.value.values()[0] &&
                      f.output.values()[1] == f.value.values()[1]),
      fmt::format("prefix=replaced_token:{} replacement:{} changed_output:{} weights "
                  "{} | output {}",
                  kTokens - 1, format_values(kReplacement),
                  format_values(e.prefix.changed.output.values()),
                  statuses(e.prefix.weights_row_unchanged),
                  statuses(e.prefix.output_row_unchanged)),
      fmt::format(
          "gradient_barrier=loss_on_rows:[0,1] input_gradient_row_2:{} exactly_zero:{}",
          format_values(g.barrier_gradient_row_2), barrier_zero),
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
      fmt::format(
          "shapes=input:{} mask:{} scores:{} masked_scores:{} weights:{} output:{} "
          "empty_batch_output:{}",
          f.input.shape(), f.mask.shape(), f.scores.shape(), f.masked_scores.shape(),
          f.weights.shape(), f.output.shape(), e.empty_batch_output),
      "error_empty_tokens=" + e.errors.empty_tokens,
      "error_token_mismatch=" + e.errors.token_mismatch,
      "error_fully_masked_row=" + e.errors.fully_masked_row,
      fmt::format(
          "exercise_1=t4_allowed:{} t4_blocked:{} t1024_allowed:{} t1024_total:{}",
          x.e1_allowed_4, x.e1_blocked_4, x.e1_allowed_1024, x.e1_total_1024),
      fmt::format("exercise_2=weights:{} output:{}",
                  format_values(x.e2_weights.values()),
                  format_values(x.e2_output.values())),
      "exercise_3=token_1_changed " + statuses(x.e3_output_row_unchanged),
      fmt::format("exercise_4=last_row_weights_equal_unmasked:{} "
                  "last_row_output_equal_unmasked:{}",
                  x.e4_weights_row_equal ? "bitwise" : "different",
                  x.e4_output_row_equal ? "bitwise" : "different"),
      fmt::format("exercise_5=finite_mask:{} row_0_future_weight:{} row_0_before:{} "
                  "row_0_after_token_2_change:{} "
                  "prefix_invariance:{}",
                  format_number(kFiniteMask), format_number(x.e5_future_weight),
                  format_values(x.e5_row0_before), format_values(x.e5_row0_after),
                  x.e5_row0_before == x.e5_row0_after ? "holds" : "broken"),
      fmt::format("proof=exact_zeros:{} prefix:{} gradient_barrier:{} gradients:{}",
                  blocked_weights_exactly_zero(f.weights),
                  prefix_holds ? "bitwise" : "FAILED",
                  barrier_zero ? "exact-zero" : "FAILED",
                  g.check.passed() ? "central-differences" : "FAILED"),
      "next=rotate queries and keys by position so scores see distance: 29-rope",
  };
  std::string text;
  for (const auto& line : lines)
    text += line + '\n';
  return text;
}

}  // namespace ch28
