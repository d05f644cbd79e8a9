// Chapter 27
#pragma once
/// \file
/// \brief What Chapters 27 and 28 share: the fixture as tensors, refusals, row sums,
/// the gradients of `Σ head(X·W_Q, X·W_K, X·W_V).output ⊙ upstream`, and the report
/// lines both print about them.

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
#include <llmfs/tensor/broadcast.hpp>
#include <llmfs/tensor/tensor.hpp>

#include "../common/chapter.hpp"
#include "fixture.hpp"

namespace snippets {

using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

/// `Tensor::from(shape, values)` for a constant array of the fixture.
[[nodiscard]] inline Step<Tensor> tensor_from(Shape shape, std::span<const double> v) {
  return LLMFS_TRY_AT("fixture tensor", Tensor::from(shape, {v.begin(), v.end()}));
}

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
  return FixtureTensors{LLMFS_TRY(tensor_from(rows, kInput)),
                        LLMFS_TRY(tensor_from(Shape{kWidth, kWidth}, kIdentity)),
                        LLMFS_TRY(tensor_from(rows, kUpstream))};
}

/// error_text of `head` called on constants Q, K, V.
template <class Head>
[[nodiscard]] std::string refusal(Head head, const Tensor& q, const Tensor& k,
                                  const Tensor& v) {
  llmfs::autograd::Tape tape;
  return error_text(head(tape.constant(q), tape.constant(k), tape.constant(v)));
}

/// The sum of each weight row: `[..., T_q, T_k] -> [..., T_q, 1]`.
[[nodiscard]] inline Step<Tensor> row_sums(const Tensor& weights) {
  auto rows = weights.shape().as_vector();
  rows.back() = 1;
  return LLMFS_TRY_AT("row sums", llmfs::tensor::sum_to(weights, Shape(rows)));
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

/// The loss and its gradients, one backward pass with every input a parameter.
struct HeadGradients {
  double loss = 0.0;              ///< Σ output ⊙ upstream
  std::vector<Tensor> gradients;  ///< ∂loss/∂X, ∂W_Q, ∂W_K, ∂W_V
};

/// head_loss(head, upstream) at `inputs`, and its gradients (autograd::tape_gradients).
template <class Head>
[[nodiscard]] Step<HeadGradients> head_gradients(Head head,
                                                 const std::vector<Tensor>& inputs,
                                                 const Tensor& upstream) {
  namespace ag = llmfs::autograd;
  const ag::LossBuilder loss = head_loss(head, upstream);
  return HeadGradients{
      LLMFS_TRY_AT("loss", ag::evaluate_loss(loss, inputs)).values()[0],
      LLMFS_TRY_AT("gradients", ag::tape_gradients(loss, inputs))};
}

/// Central differences on head_loss at the fixture (Chapter 13's checker through the
/// tape): step kGradStep, absolute tolerance only.
template <class Head>
[[nodiscard]] Step<llmfs::autograd::GradientCheckReport> check_head_gradients(
    Head head, const FixtureTensors& f) {
  return LLMFS_TRY_AT("gradcheck", llmfs::autograd::check_tape_gradients(
                                       head_loss(head, f.upstream), f.head_inputs(),
                                       {.step = ch27::kGradStep,
                                        .absolute_tolerance = ch27::kGradTolerance,
                                        .relative_tolerance = 0.0}));
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

/// The report's upstream, four gradient and gradcheck lines (no final newline).
[[nodiscard]] inline std::string gradient_lines(
    const Tensor& upstream, const HeadGradients& g,
    const llmfs::autograd::GradientCheckReport& check) {
  using llmfs::report::format_tensor;
  const auto& in = check.inputs;
  return fmt::format(
      "upstream={} loss:{}\ninput_gradient={}\nquery_weight_gradient={}\n"
      "key_weight_gradient={}\nvalue_weight_gradient={}\ngradcheck=input:{} "
      "query_weight:{} key_weight:{} value_weight:{} total:{} step:{:g} tolerance:{:g} "
      "passed:{}",
      format_tensor(upstream), llmfs::report::format_number(g.loss),
      format_tensor(g.gradients.at(0)), format_tensor(g.gradients.at(1)),
      format_tensor(g.gradients.at(2)), format_tensor(g.gradients.at(3)),
      in.at(0).coordinates, in.at(1).coordinates, in.at(2).coordinates,
      in.at(3).coordinates, check.coordinates(), ch27::kGradStep, ch27::kGradTolerance,
      check.passed());
}

}  // namespace snippets
