// Chapter 27
// The exercises: each answer is computed by running the library's head.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "evidence.hpp"

namespace ch27 {

using llmfs::tensor::Shape;

namespace {

double max_abs_difference(std::span<const double> a, std::span<const double> b) {
  double largest = 0.0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    largest = std::max(largest, std::abs(a[i] - b[i]));
  }
  return largest;
}

Tensor fixture_tensor(Shape shape, std::vector<double> values) {
  return Tensor::from(std::move(shape), std::move(values)).value();
}

}  // namespace

// region: exercise-answers
std::expected<ExerciseAnswers, std::string> exercise_answers() {
  ExerciseAnswers answers;
  const Tensor input = fixture_tensor(Shape{1, 3, 2}, {1, 0, 0, 1, 1, 1});
  const Tensor identity = fixture_tensor(Shape{2, 2}, {1, 0, 0, 1});
  const auto original = run_head(input, identity, identity, identity);
  if (!original) return std::unexpected(original.error());

  // 1. Shapes for B=2, T=5, d_model=8, d_k=d_v=4 (zeros are enough to see shapes)
  const Tensor weight = Tensor::zeros(Shape{8, 4});
  const auto wide = run_head(Tensor::zeros(Shape{2, 5, 8}), weight, weight, weight);
  if (!wide) return std::unexpected(wide.error());
  answers.e1_shapes = {wide->query.shape(),   wide->key.shape(),
                       wide->value.shape(),   wide->scores.shape(),
                       wide->weights.shape(), wide->output.shape()};
  answers.e1_parameters = 3 * weight.size();

  // 2. W_Q = 0: every score is 0
  const auto blind = run_head(input, Tensor::zeros(Shape{2, 2}), identity, identity);
  if (!blind) return std::unexpected(blind.error());
  answers.e2_weights = blind->weights;
  answers.e2_output = blind->output;

  // 3. Add c = [5,-3] to every key row
  const Tensor shifted_keys = fixture_tensor(Shape{1, 3, 2}, {6, -3, 5, -2, 6, -2});
  const auto shifted = run_head_on(original->query, shifted_keys, original->value);
  if (!shifted) return std::unexpected(shifted.error());
  answers.e3_max_weight_change =
      max_abs_difference(shifted->weights.values(), original->weights.values());

  // 4. Swap tokens 0 and 2
  const Tensor swapped_input = fixture_tensor(Shape{1, 3, 2}, {1, 1, 0, 1, 1, 0});
  const auto swapped = run_head(swapped_input, identity, identity, identity);
  if (!swapped) return std::unexpected(swapped.error());
  answers.e4_output = swapped->output;
  const auto y = original->output.values();
  const std::vector<double> permuted{y[4], y[5], y[2], y[3], y[0], y[1]};
  answers.e4_max_mismatch = max_abs_difference(swapped->output.values(), permuted);

  // 5. The saturation fixture at d_k = 64
  const auto wide_keys = saturation_evidence(64);
  if (!wide_keys) return std::unexpected(wide_keys.error());
  answers.e5_unscaled_weights = wide_keys->unscaled.weights;
  answers.e5_scaled_weights = wide_keys->scaled.weights;
  return answers;
}
// endregion: exercise-answers

}  // namespace ch27
