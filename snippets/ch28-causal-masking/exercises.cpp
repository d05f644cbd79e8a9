// Chapter 28
// The exercises: each answer is computed with the library's mask and heads.
#include <cmath>
#include <limits>
#include <tuple>

#include <llmfs/attention/causal.hpp>
#include <llmfs/tensor/broadcast.hpp>
#include <llmfs/tensor/layout.hpp>
#include <llmfs/tensor/matmul.hpp>
#include <llmfs/tensor/softmax.hpp>

#include "evidence.hpp"

namespace ch28 {

using llmfs::tensor::Shape;

namespace {

Tensor fixture_tensor(Shape shape, std::vector<double> values) {
  return Tensor::from(std::move(shape), std::move(values)).value();
}

std::pair<std::size_t, std::size_t> allowed_and_blocked(std::size_t tokens) {
  const Tensor mask = llmfs::attention::causal_mask(tokens).value();
  std::size_t blocked = 0;
  for (double entry : mask.values())
    blocked += std::isinf(entry) ? 1 : 0;
  return {mask.size() - blocked, blocked};
}

// Exercise 5: the causal head by hand, with a finite value standing in for −∞.
Tensor finite_mask_output(const Tensor& x, double blocked, Tensor* weights_out) {
  const std::size_t tokens = x.shape()[1];
  Tensor mask = Tensor::zeros(Shape{tokens, tokens});
  for (std::size_t i = 0; i < tokens; ++i) {
    for (std::size_t j = i + 1; j < tokens; ++j)
      mask.mutable_values()[i * tokens + j] = blocked;
  }
  const Tensor x_t = llmfs::tensor::transpose(x, 1, 2).value();
  const Tensor scores =
      llmfs::tensor::scale(llmfs::tensor::matmul(x, x_t).value(), 1.0 / std::sqrt(2.0))
          .value();
  const Tensor weights =
      llmfs::tensor::softmax_last_axis(llmfs::tensor::add(scores, mask).value())
          .value();
  if (weights_out != nullptr) *weights_out = weights;
  return llmfs::tensor::matmul(weights, x).value();
}

}  // namespace

// region: exercise-answers
std::expected<ExerciseAnswers, std::string> exercise_answers() {
  ExerciseAnswers answers;
  const Tensor input = fixture_tensor(Shape{1, 3, 2}, {1, 0, 0, 1, 1, 1});
  const Tensor identity = fixture_tensor(Shape{2, 2}, {1, 0, 0, 1});
  const auto original = run_causal(input, identity, identity, identity);
  if (!original) return std::unexpected(original.error());

  // 1. Count the mask's allowed (0) and blocked (−∞) entries
  std::tie(answers.e1_allowed_4, answers.e1_blocked_4) = allowed_and_blocked(4);
  const auto [allowed, blocked] = allowed_and_blocked(1024);
  answers.e1_allowed_1024 = allowed;
  answers.e1_total_1024 = allowed + blocked;

  // 2. W_Q = 0: equal scores, so each row is uniform over the keys it may see
  const auto blind = run_causal(input, Tensor::zeros(Shape{2, 2}), identity, identity);
  if (!blind) return std::unexpected(blind.error());
  answers.e2_weights = blind->weights;
  answers.e2_output = blind->output;

  // 3. Change token 1 only
  const Tensor changed_input = fixture_tensor(Shape{1, 3, 2}, {1, 0, -2, 5, 1, 1});
  const auto changed = run_causal(changed_input, identity, identity, identity);
  if (!changed) return std::unexpected(changed.error());
  for (std::size_t row = 0; row < 3; ++row) {
    answers.e3_output_row_unchanged.push_back(
        row_bitwise_equal(original->output, changed->output, row, 2));
  }

  // 4. The last row against Chapter 27's unmasked head
  const auto unmasked = run_unmasked(input);
  if (!unmasked) return std::unexpected(unmasked.error());
  answers.e4_weights_row_equal =
      row_bitwise_equal(original->weights, (*unmasked)[0], 2, 3);
  answers.e4_output_row_equal =
      row_bitwise_equal(original->output, (*unmasked)[1], 2, 2);

  // 5. A finite mask of −10 instead of −∞
  Tensor weights;
  const Tensor before = finite_mask_output(input, kFiniteMask, &weights);
  answers.e5_future_weight = weights.values()[1] + weights.values()[2];
  const Tensor replaced = fixture_tensor(Shape{1, 3, 2}, {1, 0, 0, 1, 3, -2});
  const Tensor after = finite_mask_output(replaced, kFiniteMask, nullptr);
  answers.e5_row0_before = {before.values()[0], before.values()[1]};
  answers.e5_row0_after = {after.values()[0], after.values()[1]};
  return answers;
}
// endregion: exercise-answers

}  // namespace ch28
