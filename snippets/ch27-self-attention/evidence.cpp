// Chapter 27
#include "evidence.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include <fmt/format.h>

#include <llmfs/attention/self_attention.hpp>
#include <llmfs/autograd/ops.hpp>
#include <llmfs/autograd/tape.hpp>
#include <llmfs/tensor/layout.hpp>
#include <llmfs/tensor/matmul.hpp>

#include "../common/expect.hpp"

namespace ch27 {

namespace ag = llmfs::autograd;
namespace at = llmfs::attention;
using llmfs::tensor::Shape;

namespace {

// The fixtures are constants: a failed step is a bug in the program, reported with its
// stage.
using snippets::guarded;
using snippets::ok;

Tensor make(Shape shape, std::vector<double> values) {
  return ok(Tensor::from(std::move(shape), std::move(values)), "fixture tensor");
}

template <std::size_t N>
Tensor make(Shape shape, const std::array<double, N>& values) {
  return make(std::move(shape), std::vector<double>(values.begin(), values.end()));
}

std::vector<double> row_sums(const Tensor& weights) {
  const std::size_t keys = weights.shape()[weights.rank() - 1];
  std::vector<double> sums;
  for (std::size_t start = 0; keys > 0 && start < weights.size(); start += keys) {
    double total = 0.0;
    for (std::size_t j = 0; j < keys; ++j)
      total += weights.values()[start + j];
    sums.push_back(total);
  }
  return sums;
}

}  // namespace

// region: fixture-forward
std::expected<HeadPass, std::string> run_head(const Tensor& input,
                                              const Tensor& query_weight,
                                              const Tensor& key_weight,
                                              const Tensor& value_weight) {
  return guarded([&] {
    ag::Tape tape;
    const auto x = tape.constant(input);
    // Project every token row three ways (Chapter 26): Q = X·W_Q, K = X·W_K, V = X·W_V
    const auto query =
        ok(ag::matmul(x, tape.constant(query_weight)), "query projection");
    const auto key = ok(ag::matmul(x, tape.constant(key_weight)), "key projection");
    const auto value =
        ok(ag::matmul(x, tape.constant(value_weight)), "value projection");
    // One head: scores, weights and the value mixture
    const auto head = ok(at::scaled_dot_product_attention(query, key, value), "head");

    HeadPass pass{input, query_weight, key_weight, value_weight, {}, {},
                  {},    {},           {},         {},           {}, {}};
    pass.query = ok(query.value(), "read Q");
    pass.key = ok(key.value(), "read K");
    pass.value = ok(value.value(), "read V");
    // The raw dot products, for the chapter's hand derivation: Q·Kᵀ without the scale
    const auto key_t =
        ok(llmfs::tensor::transpose(pass.key, pass.key.rank() - 2, pass.key.rank() - 1),
           "Kᵀ");
    pass.dots = ok(llmfs::tensor::matmul(pass.query, key_t), "Q·Kᵀ");
    pass.scores = ok(head.scores.value(), "read scores");
    pass.weights = ok(head.weights.value(), "read weights");
    pass.output = ok(head.output.value(), "read output");
    pass.row_sums = row_sums(pass.weights);
    return pass;
  });
}
// endregion: fixture-forward

std::expected<HeadPass, std::string> run_head_on(const Tensor& query, const Tensor& key,
                                                 const Tensor& value) {
  return guarded([&] {
    ag::Tape tape;
    const auto head =
        ok(at::scaled_dot_product_attention(tape.constant(query), tape.constant(key),
                                            tape.constant(value)),
           "head");
    HeadPass pass{};
    pass.query = query;
    pass.key = key;
    pass.value = value;
    pass.scores = ok(head.scores.value(), "read scores");
    pass.weights = ok(head.weights.value(), "read weights");
    pass.output = ok(head.output.value(), "read output");
    pass.row_sums = row_sums(pass.weights);
    return pass;
  });
}

double max_softmax_derivative(const std::vector<double>& p) {
  double largest = 0.0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    for (std::size_t j = 0; j < p.size(); ++j) {
      const double entry = p[i] * ((i == j ? 1.0 : 0.0) - p[j]);
      largest = std::max(largest, std::abs(entry));
    }
  }
  return largest;
}

// region: saturation
std::expected<SaturationEvidence, std::string> saturation_evidence(std::size_t d_k) {
  // One query of d_k ones; key 0 all ones, key 1 three quarters ones, key 2 half ones
  // (the rest −1), so the raw dot products are [d_k, d_k/2, 0]
  std::vector<double> keys(3 * d_k, 1.0);
  for (std::size_t c = 3 * d_k / 4; c < d_k; ++c)
    keys[d_k + c] = -1.0;
  for (std::size_t c = d_k / 2; c < d_k; ++c)
    keys[2 * d_k + c] = -1.0;
  const std::vector<double> identity{1, 0, 0, 0, 1,
                                     0, 0, 0, 1};  // V = I: output row = weights

  // The head always multiplies by 1/√d_k. Scaling the query by √d_k first cancels that,
  // so the softmax sees the raw dot products: the head without its scale.
  const double root = std::sqrt(static_cast<double>(d_k));
  auto run = [&](double query_entry) -> std::expected<SaturationRow, std::string> {
    const auto pass = run_head_on(Tensor::full(Shape{1, 1, d_k}, query_entry),
                                  Tensor::from(Shape{1, 3, d_k}, keys).value(),
                                  Tensor::from(Shape{1, 3, 3}, identity).value());
    if (!pass) return std::unexpected(pass.error());
    SaturationRow row;
    row.scale = query_entry / root;  // the softmax input is query_entry/√d_k times q·k
    row.scores.assign(pass->scores.values().begin(), pass->scores.values().end());
    row.weights.assign(pass->weights.values().begin(), pass->weights.values().end());
    row.max_derivative = max_softmax_derivative(row.weights);
    return row;
  };
  auto unscaled = run(root);
  if (!unscaled) return std::unexpected(unscaled.error());
  auto scaled = run(1.0);
  if (!scaled) return std::unexpected(scaled.error());
  return SaturationEvidence{
      d_k, {double(d_k), double(d_k) / 2.0, 0.0}, *unscaled, *scaled};
}
// endregion: saturation

std::expected<Evidence, std::string> gather_evidence() {
  return guarded([] {
    Evidence evidence{};
    const Tensor input = make(Shape{kBatch, kTokens, kWidth}, kInput);
    const Tensor identity = make(Shape{kWidth, kWidth}, kIdentity);
    evidence.fixture = ok(run_head(input, identity, identity, identity), "fixture");

    // Gradients: loss = Σ output ⊙ upstream, every input of the head a parameter
    GradientEvidence& grads = evidence.gradients;
    grads.upstream = make(Shape{kBatch, kTokens, kWidth}, kUpstream);
    const ag::LossBuilder loss = [&](ag::Tape& tape,
                                     std::span<const ag::TensorValue> in)
        -> std::expected<ag::TensorValue, ag::AutogradError> {
      auto q = ag::matmul(in[0], in[1]);
      auto k = ag::matmul(in[0], in[2]);
      auto v = ag::matmul(in[0], in[3]);
      if (!q || !k || !v)
        return std::unexpected(!q ? q.error() : !k ? k.error() : v.error());
      auto head = at::scaled_dot_product_attention(*q, *k, *v);
      if (!head) {
        return std::unexpected(
            ag::AutogradError{ag::AutogradErrorCode::invalid_argument,
                              "head",
                              fmt::format("{}", head.error()),
                              {}});
      }
      auto weighted = ag::multiply(head->output, tape.constant(grads.upstream));
      if (!weighted) return std::unexpected(weighted.error());
      return ag::sum(*weighted);
    };
    const std::vector<Tensor> inputs{input, identity, identity, identity};
    {
      ag::Tape tape;
      std::vector<ag::TensorValue> leaves;
      for (const auto& tensor : inputs)
        leaves.push_back(tape.parameter(tensor));
      const auto value = ok(loss(tape, leaves), "loss");
      ok(ag::backward(value, Tensor::scalar(1.0)), "backward");
      grads.loss = ok(value.value(), "read loss").values()[0];
      grads.input_gradient = ok(leaves[0].gradient(), "grad X");
      grads.query_weight_gradient = ok(leaves[1].gradient(), "grad W_Q");
      grads.key_weight_gradient = ok(leaves[2].gradient(), "grad W_K");
      grads.value_weight_gradient = ok(leaves[3].gradient(), "grad W_V");
    }
    grads.check = ok(ag::check_tape_gradients(loss, inputs,
                                              {.step = kGradStep,
                                               .absolute_tolerance = kGradTolerance,
                                               .relative_tolerance = 0.0}),
                     "gradcheck");

    evidence.saturation = ok(saturation_evidence(16), "saturation");

    // History: additive scores v·tanh(W q + U k_j) with W = U = I, v = [1,1], for query
    // 0
    const auto& q = evidence.fixture.query.values();
    const auto& k = evidence.fixture.key.values();
    for (std::size_t j = 0; j < kTokens; ++j) {
      double score = 0.0;
      for (std::size_t c = 0; c < kWidth; ++c)
        score += std::tanh(q[c] + k[j * kWidth + c]);
      evidence.history.additive.push_back(score);
      evidence.history.dot.push_back(evidence.fixture.scores.values()[j]);
    }

    // Shapes of every stage, and a batch holding no sequences
    const auto& f = evidence.fixture;
    evidence.shapes.stages = {f.input.shape(), f.query.shape(),  f.key.shape(),
                              f.value.shape(), f.scores.shape(), f.weights.shape(),
                              f.output.shape()};
    const Tensor none = Tensor::zeros(Shape{0, kTokens, kWidth});
    evidence.shapes.empty_batch_output =
        ok(run_head_on(none, none, none), "empty batch").output.shape();

    // Typed errors: each call is wrong in exactly one way
    auto refused = [](const Tensor& q2, const Tensor& k2, const Tensor& v2) {
      ag::Tape tape;
      auto head = at::scaled_dot_product_attention(tape.constant(q2), tape.constant(k2),
                                                   tape.constant(v2));
      return head ? std::string("accepted") : fmt::format("{}", head.error());
    };
    const Tensor x = f.input;
    evidence.errors.key_width = refused(x, Tensor::zeros(Shape{1, 3, 4}), x);
    evidence.errors.token_count = refused(x, x, Tensor::zeros(Shape{1, 2, 2}));
    evidence.errors.rank = refused(Tensor::zeros(Shape{2}), x, x);

    evidence.exercises = ok(exercise_answers(), "exercises");
    return evidence;
  });
}

}  // namespace ch27
