// Chapter 27
// The exercise answers: each one runs the library's head.
#include <algorithm>
#include <cmath>

#include <llmfs/core/try.hpp>

#include "evidence.hpp"

namespace ch27 {

using llmfs::tensor::Shape;

namespace {

double max_abs_difference(std::span<const double> a, std::span<const double> b) {
  double largest = 0.0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
    largest = std::max(largest, std::abs(a[i] - b[i]));
  return largest;
}

}  // namespace

// region: exercise-answers
Step<Exercises> exercise_answers(const Tensor& input, const Tensor& identity,
                                 const HeadPass& original) {
  Exercises answers;
  // 1. Shapes for B=2, T=5, d_model=8, d_k=d_v=4 (zeros are enough to see shapes)
  const Tensor weight = Tensor::zeros(Shape{8, 4});
  answers.wide =
      LLMFS_TRY(run_head(Tensor::zeros(Shape{2, 5, 8}), weight, weight, weight));
  answers.parameters = 3 * weight.size();

  // 2. W_Q = 0: every score is 0
  answers.blind =
      LLMFS_TRY(run_head(input, Tensor::zeros(Shape{2, 2}), identity, identity));

  // 3. Add c = [5,-3] to every key row
  const auto keys = LLMFS_TRY_AT(
      "shifted keys",
      Tensor::from(input.shape(), {kShiftedKeys.begin(), kShiftedKeys.end()}));
  const auto shifted = LLMFS_TRY(run_head_on(original.query, keys, original.value));
  answers.weight_change =
      max_abs_difference(shifted.weights.values(), original.weights.values());

  // 4. Swap tokens 0 and 2: compare with the original output rows in order 2, 1, 0
  const auto swapped_input = LLMFS_TRY_AT(
      "swapped input",
      Tensor::from(input.shape(), {kSwappedInput.begin(), kSwappedInput.end()}));
  answers.swapped = LLMFS_TRY(run_head(swapped_input, identity, identity, identity));
  const auto y = original.output.values();
  const std::vector<double> permuted{y[4], y[5], y[2], y[3], y[0], y[1]};
  answers.swap_mismatch = max_abs_difference(answers.swapped.output.values(), permuted);

  // 5. The saturation fixture at d_k = 64
  answers.wide_keys = LLMFS_TRY(saturation(64));
  return answers;
}
// endregion: exercise-answers

}  // namespace ch27
