// Chapter 28
// The exercise answers: each one runs the library's mask and heads.
#include <algorithm>
#include <cmath>

#include <llmfs/attention/causal.hpp>
#include <llmfs/autograd/tape.hpp>
#include <llmfs/core/try.hpp>
#include <llmfs/tensor/broadcast.hpp>
#include <llmfs/tensor/layout.hpp>
#include <llmfs/tensor/matmul.hpp>
#include <llmfs/tensor/softmax.hpp>

#include "evidence.hpp"

namespace ch28 {

namespace at = llmfs::attention;
namespace tensor = llmfs::tensor;
using tensor::Shape;

namespace {

// The number of blocked (−∞) entries of the [T,T] mask.
Step<std::size_t> blocked_entries(std::size_t tokens) {
  const auto mask = LLMFS_TRY_AT("mask", at::causal_mask(tokens));
  return static_cast<std::size_t>(
      std::ranges::count_if(mask.values(), [](double m) { return std::isinf(m); }));
}

// Exercise 5: the causal head by hand (Q = K = V = X), the mask's −∞ entries replaced
// by `blocked`; returns the weights and the output.
Step<std::pair<Tensor, Tensor>> finite_mask_head(const Tensor& x, double blocked) {
  auto mask = LLMFS_TRY_AT("mask", at::causal_mask(x.shape()[1]));
  std::ranges::replace_if(
      mask.mutable_values(), [](double m) { return std::isinf(m); }, blocked);
  const auto x_t = LLMFS_TRY_AT("Xᵀ", tensor::transpose(x, 1, 2));
  const auto dots = LLMFS_TRY_AT("X·Xᵀ", tensor::matmul(x, x_t));
  const auto scores = LLMFS_TRY_AT("scale", tensor::scale(dots, 1.0 / std::sqrt(2.0)));
  const auto masked = LLMFS_TRY_AT("finite mask", tensor::add(scores, mask));
  auto weights = LLMFS_TRY_AT("softmax", tensor::softmax_last_axis(masked));
  auto output = LLMFS_TRY_AT("mix", tensor::matmul(weights, x));
  return std::pair{std::move(weights), std::move(output)};
}

}  // namespace

// region: exercise-answers
Step<Exercises> exercise_answers(const Tensor& input, const Tensor& identity) {
  Exercises answers;
  // 1. Count the mask's allowed (0) and blocked (−∞) entries
  answers.blocked_4 = LLMFS_TRY(blocked_entries(4));
  answers.allowed_4 = 4 * 4 - answers.blocked_4;
  answers.total_1024 = 1024 * 1024;
  answers.allowed_1024 = answers.total_1024 - LLMFS_TRY(blocked_entries(1024));

  // 2. W_Q = 0: equal scores, so each row is uniform over the keys it may see
  answers.blind =
      LLMFS_TRY(run_causal(input, Tensor::zeros(Shape{2, 2}), identity, identity));

  // 3. Change token 1 only
  const auto changed = LLMFS_TRY_AT(
      "token 1 changed",
      Tensor::from(input.shape(), {kToken1Changed.begin(), kToken1Changed.end()}));
  answers.token_1_changed_output =
      LLMFS_TRY(run_causal(changed, identity, identity, identity)).output;

  // 4. Chapter 27's unmasked head on the same rows (identity projections: Q = K = V =
  // X)
  llmfs::autograd::Tape tape;
  const auto x = tape.constant(input);
  const auto unmasked =
      LLMFS_TRY_AT("unmasked head", at::scaled_dot_product_attention(x, x, x));
  answers.unmasked_weights = LLMFS_TRY_AT("read weights", unmasked.weights.value());
  answers.unmasked_output = LLMFS_TRY_AT("read output", unmasked.output.value());

  // 5. A finite mask of −10 instead of −∞, before and after token 2 := [3,-2]
  Tensor replaced = input;
  std::ranges::copy(kReplacement, replaced.mutable_values().end() - kWidth);
  std::tie(answers.finite_weights, answers.finite_before) =
      LLMFS_TRY(finite_mask_head(input, kFiniteMask));
  answers.finite_after = LLMFS_TRY(finite_mask_head(replaced, kFiniteMask)).second;
  answers.future_weight =
      answers.finite_weights.values()[1] + answers.finite_weights.values()[2];
  return answers;
}
// endregion: exercise-answers

}  // namespace ch28
