// Chapter 27
#pragma once
/// \file
/// \brief Helpers Chapters 27 and 28 share: an attention call's refusal as text, the
/// weight rows' sums, and
/// the gradients of `Σ head(X·W_Q, X·W_K, X·W_V).output ⊙ upstream` for a head
/// (scaled_dot_product_attention or causal_self_attention).

#include <expected>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/autograd/tape.hpp>
#include <llmfs/autograd/tape_gradcheck.hpp>
#include <llmfs/core/try.hpp>
#include <llmfs/tensor/broadcast.hpp>
#include <llmfs/tensor/tensor.hpp>

#include "../common/chapter.hpp"

namespace snippets {

/// The formatted error of a call that should have been refused, or `accepted`.
template <class Result>
[[nodiscard]] std::string error_text(const Result& result) {
  return result ? std::string("accepted") : fmt::format("{}", result.error());
}

/// The sum of each weight row: `[..., T_q, T_k] -> [..., T_q, 1]`.
[[nodiscard]] inline Step<llmfs::tensor::Tensor> row_sums(
    const llmfs::tensor::Tensor& weights) {
  auto rows = weights.shape().as_vector();
  rows.back() = 1;
  return LLMFS_TRY_AT("row sums",
                      llmfs::tensor::sum_to(weights, llmfs::tensor::Shape(rows)));
}

/// `loss = Σ head(X·W_Q, X·W_K, X·W_V).output ⊙ upstream` on inputs {X, W_Q, W_K, W_V}.
template <class Head>
[[nodiscard]] llmfs::autograd::LossBuilder projected_head_loss(
    Head head, llmfs::tensor::Tensor upstream) {
  namespace ag = llmfs::autograd;
  return [head, upstream](ag::Tape& tape, std::span<const ag::TensorValue> in)
             -> std::expected<ag::TensorValue, ag::AutogradError> {
    auto q = LLMFS_TRY(ag::matmul(in[0], in[1]));
    auto k = LLMFS_TRY(ag::matmul(in[0], in[2]));
    auto v = LLMFS_TRY(ag::matmul(in[0], in[3]));
    auto attended = head(q, k, v);
    if (!attended) {  // the loss builder speaks AutogradError: keep the head's text
      return std::unexpected(ag::AutogradError{ag::AutogradErrorCode::invalid_argument,
                                               "attention head",
                                               fmt::format("{}", attended.error()),
                                               {}});
    }
    auto weighted = LLMFS_TRY(ag::multiply(attended->output, tape.constant(upstream)));
    return ag::sum(weighted);
  };
}

/// The loss and its gradients, one backward pass with every input a parameter.
struct HeadGradients {
  double loss = 0.0;                             ///< Σ output ⊙ upstream
  std::vector<llmfs::tensor::Tensor> gradients;  ///< ∂loss/∂X, ∂W_Q, ∂W_K, ∂W_V
};

/// Runs projected_head_loss(head, upstream) on `inputs` and reads every gradient.
template <class Head>
[[nodiscard]] Step<HeadGradients> head_gradients(
    Head head, const std::vector<llmfs::tensor::Tensor>& inputs,
    const llmfs::tensor::Tensor& upstream) {
  namespace ag = llmfs::autograd;
  ag::Tape tape;
  std::vector<ag::TensorValue> leaves;
  for (const auto& input : inputs)
    leaves.push_back(tape.parameter(input));
  const auto loss =
      LLMFS_TRY_AT("loss", projected_head_loss(head, upstream)(tape, leaves));
  LLMFS_TRY_AT("backward", ag::backward(loss, llmfs::tensor::Tensor::scalar(1.0)));
  HeadGradients result{LLMFS_TRY_AT("read loss", loss.value()).values()[0], {}};
  for (const auto& leaf : leaves)
    result.gradients.push_back(LLMFS_TRY_AT("read gradient", leaf.gradient()));
  return result;
}

/// Central differences on projected_head_loss(head, upstream) at `inputs` (Chapter 13's
/// checker through the tape): step δ and an absolute tolerance only.
template <class Head>
[[nodiscard]] Step<llmfs::autograd::GradientCheckReport> check_head_gradients(
    Head head, const std::vector<llmfs::tensor::Tensor>& inputs,
    const llmfs::tensor::Tensor& upstream, double step, double tolerance) {
  return LLMFS_TRY_AT(
      "gradcheck",
      llmfs::autograd::check_tape_gradients(
          projected_head_loss(head, upstream), inputs,
          {.step = step, .absolute_tolerance = tolerance, .relative_tolerance = 0.0}));
}

}  // namespace snippets
