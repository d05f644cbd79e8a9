// Chapter 27
#pragma once
// What Chapters 27 and 28 share: the fixture as tensors, refusals, the loss
// `Σ head(X·W_Q, X·W_K, X·W_V).output ⊙ upstream` (Chapter 27's report and both
// chapters' gradient tests), and the report's config= line.

#include <cmath>
#include <expected>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/autograd/tape.hpp>
#include <llmfs/autograd/tape_gradcheck.hpp>
#include <llmfs/core/try.hpp>
#include <llmfs/report/format.hpp>
#include <llmfs/tensor/tensor.hpp>

#include "../common/chapter.hpp"
#include "fixture.hpp"

namespace snippets {

using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

/// Chapter 27's fixture as tensors: X, W_Q = W_K = W_V = I, and ∂loss/∂output.
struct FixtureTensors {
  Tensor input, identity, upstream;
  /// The head's inputs {X, W_Q, W_K, W_V}.
  [[nodiscard]] std::vector<Tensor> head_inputs() const {
    return {input, identity, identity, identity};
  }
};

/// Builds FixtureTensors from fixture.hpp's constants.
[[nodiscard]] inline Step<FixtureTensors> fixture_tensors() {
  using namespace ch27;
  const Shape rows{kBatch, kTokens, kWidth};
  return FixtureTensors{
      LLMFS_TRY_AT("input", Tensor::from(rows, kInput)),
      LLMFS_TRY_AT("identity", Tensor::from(Shape{kWidth, kWidth}, kIdentity)),
      LLMFS_TRY_AT("upstream", Tensor::from(rows, kUpstream))};
}

/// error_text of `head` called on constants Q, K, V.
template <class Head>
[[nodiscard]] std::string refusal(Head head, const Tensor& q, const Tensor& k,
                                  const Tensor& v) {
  llmfs::autograd::Tape tape;
  return error_text(head(tape.constant(q), tape.constant(k), tape.constant(v)));
}

/// `loss = Σ head(X·W_Q, X·W_K, X·W_V).output ⊙ upstream` on inputs {X, W_Q, W_K, W_V}.
template <class Head>
[[nodiscard]] llmfs::autograd::LossBuilder head_loss(Head head, Tensor upstream) {
  namespace ag = llmfs::autograd;
  return [head, upstream](ag::Tape& tape, std::span<const ag::TensorValue> in)
             -> std::expected<ag::TensorValue, ag::AutogradError> {
    auto q = LLMFS_TRY(ag::matmul(in[0], in[1]));
    auto k = LLMFS_TRY(ag::matmul(in[0], in[2]));
    auto v = LLMFS_TRY(ag::matmul(in[0], in[3]));
    auto attended = head(q, k, v);
    if (!attended)  // the loss speaks AutogradError: keep the head's text
      return llmfs::reject(ag::AutogradErrorCode::invalid_argument, "attention head",
                           error_text(attended));
    return ag::sum(LLMFS_TRY(ag::multiply(attended->output, tape.constant(upstream))));
  };
}

/// The report's `config=` line for the fixture.
[[nodiscard]] inline std::string config_line() {
  using namespace ch27;
  return fmt::format(
      "config=batch:{} tokens:{} d_model:{} d_k:{} d_v:{} scale:{} "
      "projections:identity",
      kBatch, kTokens, kWidth, kWidth, kWidth,
      llmfs::report::format_number(1.0 / std::sqrt(2.0)));
}

}  // namespace snippets
