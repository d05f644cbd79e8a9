// Chapter 29
// Gathers every value the report and the trace print.

#include "evidence.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <utility>

#include <fmt/format.h>

#include <llmfs/attention/causal.hpp>
#include <llmfs/autograd/ops.hpp>
#include <llmfs/autograd/tape.hpp>
#include <llmfs/autograd/tape_gradcheck.hpp>

#include "../common/expect.hpp"

namespace ch29 {

namespace ag = llmfs::autograd;
using llmfs::attention::RotaryEmbedding;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

namespace {

// Any library error, turned into text that names the step that failed.
using snippets::need;

std::vector<double> row_norms(const Tensor& rows) {
  // rows: [1, T, d] -> [T]
  const std::size_t width = rows.shape()[rows.rank() - 1];
  const auto values = rows.values();
  std::vector<double> norms;
  for (std::size_t start = 0; start < values.size(); start += width) {
    double sum = 0.0;
    for (std::size_t j = 0; j < width; ++j)
      sum += values[start + j] * values[start + j];
    norms.push_back(std::sqrt(sum));
  }
  return norms;
}

}  // namespace

std::expected<RotaryEmbedding, std::string> fixture_rope() {
  return need(RotaryEmbedding::create(Fixture::width, Fixture::capacity, Fixture::base),
              "fixture RoPE");
}

Tensor fixture_content_rows() {
  std::vector<double> rows;
  for (std::size_t t = 0; t < Fixture::tokens; ++t)
    rows.insert(rows.end(), Fixture::content.begin(), Fixture::content.end());
  return *Tensor::from(Shape{1, Fixture::tokens, Fixture::width}, std::move(rows));
}

Tensor fixture_value_rows() {
  return *Tensor::from(
      Shape{1, Fixture::tokens, Fixture::width},
      std::vector<double>(Fixture::values.begin(), Fixture::values.end()));
}

// region: relative-scores
// Rotate queries and keys at one offset, then compare every pair of positions:
// S[p][s] = q̃_p · k̃_s, unscaled, so the numbers match the chapter's cosines.
std::expected<RelativeScores, std::string> relative_scores(const RotaryEmbedding& rope,
                                                           const Tensor& query,
                                                           const Tensor& key,
                                                           std::size_t offset) {
  // query, key: [1, T, d] -> scores: [1, T, T]
  ag::Tape tape;
  auto rotated_query =
      need(rope.rotate(tape.constant(query), offset), "rotate queries");
  if (!rotated_query) return std::unexpected(rotated_query.error());
  auto rotated_key = need(rope.rotate(tape.constant(key), offset), "rotate keys");
  if (!rotated_key) return std::unexpected(rotated_key.error());
  auto key_columns = need(ag::transpose(*rotated_key, 1, 2), "transpose keys");
  if (!key_columns) return std::unexpected(key_columns.error());
  auto scores = need(ag::matmul(*rotated_query, *key_columns), "score table");
  if (!scores) return std::unexpected(scores.error());
  return RelativeScores{*rotated_query->value(), *rotated_key->value(),
                        *scores->value()};
}

double max_difference(const Tensor& a, const Tensor& b) {
  double largest = 0.0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
    largest = std::max(largest, std::abs(a.values()[i] - b.values()[i]));
  return a.size() == b.size() ? largest : std::numeric_limits<double>::infinity();
}

// Every cell S[p][s] against the cell S[p-s][0] or S[0][s-p] that starts its diagonal.
double max_diagonal_spread(const Tensor& scores) {
  // scores: [1, T, T]
  const std::size_t tokens = scores.shape()[scores.rank() - 1];
  const auto s = scores.values();
  double spread = 0.0;
  for (std::size_t p = 0; p < tokens; ++p) {
    for (std::size_t k = 0; k < tokens; ++k) {
      const std::size_t shift = std::min(p, k);
      spread = std::max(
          spread, std::abs(s[p * tokens + k] - s[(p - shift) * tokens + (k - shift)]));
    }
  }
  return spread;
}
// endregion: relative-scores

// region: value-policy
// Only queries and keys are rotated: the weights then depend on gaps alone, and the
// values they average keep no trace of absolute position. The contrast rotates the
// values too.
std::expected<ValuePolicy, std::string> value_policy(const RotaryEmbedding& rope,
                                                     const Tensor& query,
                                                     const Tensor& key,
                                                     const Tensor& value,
                                                     std::size_t offset) {
  // query, key, value: [1, T, d] -> weights [1, T, T], outputs [1, T, d]
  ag::Tape tape;
  auto q = need(rope.rotate(tape.constant(query), offset), "rotate queries");
  if (!q) return std::unexpected(q.error());
  auto k = need(rope.rotate(tape.constant(key), offset), "rotate keys");
  if (!k) return std::unexpected(k.error());
  const ag::TensorValue v = tape.constant(value);  // the values stay as they are
  auto attention =
      need(llmfs::attention::causal_self_attention(*q, *k, v), "causal attention");
  if (!attention) return std::unexpected(attention.error());

  // What the layer does NOT do: rotate the values by their own positions as well
  auto v_rotated = need(rope.rotate(v, offset), "rotate values (contrast)");
  if (!v_rotated) return std::unexpected(v_rotated.error());
  auto contrast = need(ag::matmul(attention->weights, *v_rotated), "contrast output");
  if (!contrast) return std::unexpected(contrast.error());
  return ValuePolicy{*attention->weights.value(), *attention->output.value(),
                     *contrast->value()};
}
// endregion: value-policy

namespace {

std::expected<OffsetRun, std::string> run_at(const RotaryEmbedding& rope,
                                             std::size_t offset) {
  const Tensor rows = fixture_content_rows();
  auto relative = relative_scores(rope, rows, rows, offset);
  if (!relative) return std::unexpected(relative.error());
  auto attention = value_policy(rope, rows, rows, fixture_value_rows(), offset);
  if (!attention) return std::unexpected(attention.error());
  OffsetRun run{offset, std::move(*relative), std::move(*attention),
                {},     row_norms(rows),      {}};
  run.norms_after = row_norms(run.relative.rotated_query);
  for (std::size_t t = 0; t < Fixture::tokens; ++t)
    for (const double theta : rope.frequencies())
      run.angles.push_back(static_cast<double>(offset + t) * theta);
  return run;
}

ErrorCases error_cases(const RotaryEmbedding& rope) {
  auto message = [](const auto& result) {
    return result ? std::string("accepted") : fmt::format("{}", result.error());
  };
  const Tensor rows = fixture_content_rows();
  ErrorCases errors;
  errors.zero_width =
      message(RotaryEmbedding::create(0, Fixture::capacity, Fixture::base));
  errors.odd_width =
      message(RotaryEmbedding::create(3, Fixture::capacity, Fixture::base));
  errors.base =
      message(RotaryEmbedding::create(Fixture::width, Fixture::capacity, 1.0));
  errors.zero_capacity =
      message(RotaryEmbedding::create(Fixture::width, 0, Fixture::base));
  errors.capacity = message(rope.rotate(rows, Fixture::offsets[1] + 1));
  errors.offset_overflow =
      message(rope.rotate(rows, std::numeric_limits<std::size_t>::max() - 1));
  return errors;
}

std::expected<GradientEvidence, std::string> gradient_evidence(
    const RotaryEmbedding& rope) {
  // Loss: Σ RoPE(x) ⊙ u with a fixed upstream u; the analytic gradient is R(−pθ) u.
  const Tensor upstream =
      *Tensor::from(Shape{1, Fixture::tokens, Fixture::width},
                    {1.0, -0.5, 0.25, 0.75, -0.3, 0.8, 1.2, -0.4, 0.6, 0.1, -0.7, 0.9});
  auto loss = [&](ag::Tape& tape, std::span<const ag::TensorValue> inputs)
      -> std::expected<ag::TensorValue, ag::AutogradError> {
    auto rotated = rope.rotate(inputs[0], Fixture::offsets[1]);
    if (!rotated) {
      if (rotated.error().cause) return std::unexpected(*rotated.error().cause);
      return std::unexpected(ag::AutogradError{ag::AutogradErrorCode::invalid_argument,
                                               "rope",
                                               fmt::format("{}", rotated.error()),
                                               {}});
    }
    auto weighted = ag::multiply(*rotated, tape.constant(upstream));
    if (!weighted) return std::unexpected(weighted.error());
    return ag::sum(*weighted);
  };
  const ag::GradientCheckOptions options{
      .step = 1e-6, .absolute_tolerance = 1e-8, .relative_tolerance = 0.0};
  const std::array<Tensor, 1> inputs{fixture_content_rows()};
  auto report = need(ag::check_tape_gradients(loss, inputs, options), "gradient check");
  if (!report) return std::unexpected(report.error());
  return GradientEvidence{report->coordinates(), report->max_abs_error(), options.step,
                          options.absolute_tolerance, report->passed()};
}

}  // namespace

std::expected<Evidence, std::string> gather_evidence() {
  auto rope = fixture_rope();
  if (!rope) return std::unexpected(rope.error());
  Evidence evidence;
  evidence.theta.assign(rope->frequencies().begin(), rope->frequencies().end());
  evidence.cos_table = rope->cos_table();
  evidence.sin_table = rope->sin_table();
  evidence.input = fixture_content_rows();
  evidence.values = fixture_value_rows();
  for (std::size_t r = 0; r < Fixture::offsets.size(); ++r) {
    auto run = run_at(*rope, Fixture::offsets[r]);
    if (!run) return std::unexpected(run.error());
    evidence.runs[r] = std::move(*run);
  }
  const OffsetRun& first = evidence.runs[0];
  const OffsetRun& shifted = evidence.runs[1];
  evidence.score_shift_difference =
      max_difference(first.relative.scores, shifted.relative.scores);
  evidence.score_diagonal_spread =
      std::max(max_diagonal_spread(first.relative.scores),
               max_diagonal_spread(shifted.relative.scores));
  evidence.weight_shift_difference =
      max_difference(first.attention.weights, shifted.attention.weights);
  evidence.output_shift_difference =
      max_difference(first.attention.output, shifted.attention.output);
  for (const OffsetRun& run : evidence.runs)
    for (std::size_t t = 0; t < Fixture::tokens; ++t)
      evidence.norm_difference = std::max(
          evidence.norm_difference, std::abs(run.norms_after[t] - run.norms_before[t]));
  evidence.position0_output_is_v0 =
      std::ranges::all_of(evidence.runs, [&](const OffsetRun& run) {
        return std::ranges::equal(run.attention.output.values().first(Fixture::width),
                                  evidence.values.values().first(Fixture::width));
      });
  auto gradient = gradient_evidence(*rope);
  if (!gradient) return std::unexpected(gradient.error());
  evidence.gradient = *gradient;
  evidence.errors = error_cases(*rope);
  auto exercises = answer_exercises();
  if (!exercises) return std::unexpected(exercises.error());
  evidence.exercises = std::move(*exercises);
  return evidence;
}

}  // namespace ch29
