// Chapter 28
#include "evidence.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include <llmfs/attention/causal.hpp>
#include <llmfs/autograd/tape.hpp>
#include <llmfs/core/try.hpp>
#include <llmfs/report/format.hpp>
#include <llmfs/tensor/broadcast.hpp>
#include <llmfs/tensor/layout.hpp>
#include <llmfs/tensor/matmul.hpp>
#include <llmfs/tensor/softmax.hpp>

namespace ch28 {

namespace at = llmfs::attention;
namespace tensor = llmfs::tensor;
using tensor::Shape;

Step<CausalPass> run_causal(const Tensor& input, const Tensor& query_weight,
                            const Tensor& key_weight, const Tensor& value_weight) {
  auto query = LLMFS_TRY_AT("query projection", tensor::matmul(input, query_weight));
  auto key = LLMFS_TRY_AT("key projection", tensor::matmul(input, key_weight));
  auto value = LLMFS_TRY_AT("value projection", tensor::matmul(input, value_weight));
  llmfs::autograd::Tape tape;
  const auto head = LLMFS_TRY_AT(
      "causal head", at::causal_self_attention(tape.constant(query), tape.constant(key),
                                               tape.constant(value)));
  CausalPass pass{value,
                  LLMFS_TRY_AT("mask", at::causal_mask(input.shape()[1])),
                  LLMFS_TRY_AT("read scores", head.scores.value()),
                  LLMFS_TRY_AT("read masked scores", head.masked_scores.value()),
                  LLMFS_TRY_AT("read weights", head.weights.value()),
                  LLMFS_TRY_AT("read output", head.output.value()),
                  {}};
  pass.row_sums = LLMFS_TRY(snippets::row_sums(pass.weights));
  return pass;
}

// region: prefix-invariance
Tensor with_last_token_replaced(const Tensor& input) {
  // Replace only the last token; every earlier row is then compared bit for bit
  Tensor changed = input;
  std::ranges::copy(kReplacement, changed.mutable_values().end() - kWidth);
  return changed;
}

bool same_row(const Tensor& before, const Tensor& after, std::size_t row) {
  const std::size_t width = before.shape()[before.rank() - 1];
  return tensor::bitwise_equal(llmfs::report::row(before, row, width),
                               llmfs::report::row(after, row, width));
}
// endregion: prefix-invariance

namespace {

// The number of blocked (−∞) entries of the [T,T] mask.
[[nodiscard]] Step<std::size_t> blocked_entries(std::size_t tokens) {
  const auto mask = LLMFS_TRY_AT("mask", at::causal_mask(tokens));
  return static_cast<std::size_t>(
      std::ranges::count_if(mask.values(), [](double m) { return std::isinf(m); }));
}

// Exercise 5: the causal head by hand (Q = K = V = X), the mask's −∞ entries replaced
// by `blocked`; returns the weights and the output.
[[nodiscard]] Step<std::pair<Tensor, Tensor>> finite_mask_head(const Tensor& x,
                                                               double blocked) {
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
  const auto changed = LLMFS_TRY(snippets::tensor_from(input.shape(), kToken1Changed));
  answers.token_1_changed_output =
      LLMFS_TRY(run_causal(changed, identity, identity, identity)).output;

  // 4. Chapter 27's unmasked head on the same rows (identity projections: Q = K = V)
  llmfs::autograd::Tape tape;
  const auto x = tape.constant(input);
  const auto unmasked =
      LLMFS_TRY_AT("unmasked head", at::scaled_dot_product_attention(x, x, x));
  answers.unmasked_weights = LLMFS_TRY_AT("read weights", unmasked.weights.value());
  answers.unmasked_output = LLMFS_TRY_AT("read output", unmasked.output.value());

  // 5. A finite mask of −10 instead of −∞, before and after token 2 := [3,-2]
  const auto [weights, before] = LLMFS_TRY(finite_mask_head(input, kFiniteMask));
  answers.future_weight = weights.values()[1] + weights.values()[2];
  answers.finite_before = before;
  answers.finite_after =
      LLMFS_TRY(finite_mask_head(with_last_token_replaced(input), kFiniteMask)).second;
  return answers;
}
// endregion: exercise-answers

Step<Evidence> gather_evidence() {
  Evidence e{};
  static_cast<snippets::FixtureTensors&>(e) = LLMFS_TRY(snippets::fixture_tensors());
  const Tensor &input = e.input, &identity = e.identity;
  e.fixture = LLMFS_TRY(run_causal(input, identity, identity, identity));
  e.changed = LLMFS_TRY(
      run_causal(with_last_token_replaced(input), identity, identity, identity));

  // Gradients of Σ output ⊙ upstream with respect to X, W_Q, W_K, W_V
  const auto head = &at::causal_self_attention;
  e.gradients = LLMFS_TRY(snippets::head_gradients(head, e.head_inputs(), e.upstream));
  e.check = LLMFS_TRY(snippets::check_head_gradients(head, e));
  // A loss that reads rows 0 and 1 only: no gradient may reach token 2
  Tensor early = e.upstream;
  std::ranges::fill(early.mutable_values().last(kWidth), 0.0);
  e.early = LLMFS_TRY(snippets::head_gradients(head, e.head_inputs(), early));

  // Typed errors, each call wrong in one way
  const Tensor empty = Tensor::zeros(Shape{1, 0, 2}),
               two = Tensor::zeros(Shape{1, 2, 2});
  e.error_empty_tokens = snippets::refusal(head, empty, empty, empty);
  e.error_token_mismatch = snippets::refusal(head, input, two, two);
  const double blocked = -std::numeric_limits<double>::infinity();
  const auto all_blocked = LLMFS_TRY_AT(
      "masked row", Tensor::from(Shape{2, 2}, {0.0, blocked, blocked, blocked}));
  e.error_fully_masked_row =
      snippets::error_text(tensor::softmax_last_axis(all_blocked));

  const Tensor none = Tensor::zeros(Shape{0, kTokens, kWidth});
  e.empty_batch_output =
      LLMFS_TRY(run_causal(none, identity, identity, identity)).output.shape();
  e.exercises = LLMFS_TRY(exercise_answers(input, identity));
  return e;
}

}  // namespace ch28
