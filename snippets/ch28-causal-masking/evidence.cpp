// Chapter 28
#include "evidence.hpp"

#include <bit>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include <fmt/format.h>

#include <llmfs/attention/causal.hpp>
#include <llmfs/autograd/ops.hpp>
#include <llmfs/autograd/tape.hpp>
#include <llmfs/tensor/softmax.hpp>

#include "../common/expect.hpp"

namespace ch28 {

namespace ag = llmfs::autograd;
namespace at = llmfs::attention;
using llmfs::tensor::Shape;

namespace {

// The fixtures are constants: a failed step is a bug in the program, reported with its
// stage.
using snippets::guarded;
using snippets::ok;

template <std::size_t N>
Tensor make(Shape shape, const std::array<double, N>& values) {
  return ok(
      Tensor::from(std::move(shape), std::vector<double>(values.begin(), values.end())),
      "fixture tensor");
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

Tensor with_last_token(const Tensor& input, std::array<double, kWidth> row) {
  Tensor changed = input;
  auto values = changed.mutable_values();
  for (std::size_t c = 0; c < kWidth; ++c)
    values[(kTokens - 1) * kWidth + c] = row[c];
  return changed;
}

}  // namespace

bool row_bitwise_equal(const Tensor& a, const Tensor& b, std::size_t row,
                       std::size_t width) {
  for (std::size_t c = 0; c < width; ++c) {
    const double x = a.values()[row * width + c];
    const double y = b.values()[row * width + c];
    if (std::bit_cast<std::uint64_t>(x) != std::bit_cast<std::uint64_t>(y))
      return false;
  }
  return true;
}

std::expected<CausalPass, std::string> run_causal(const Tensor& input,
                                                  const Tensor& query_weight,
                                                  const Tensor& key_weight,
                                                  const Tensor& value_weight) {
  return guarded([&] {
    ag::Tape tape;
    const auto x = tape.constant(input);
    const auto q = ok(ag::matmul(x, tape.constant(query_weight)), "query projection");
    const auto k = ok(ag::matmul(x, tape.constant(key_weight)), "key projection");
    const auto v = ok(ag::matmul(x, tape.constant(value_weight)), "value projection");
    const auto head = ok(at::causal_self_attention(q, k, v), "causal head");
    CausalPass pass{};
    pass.input = input;
    pass.query = ok(q.value(), "read Q");
    pass.key = ok(k.value(), "read K");
    pass.value = ok(v.value(), "read V");
    pass.mask = ok(at::causal_mask(input.shape()[1]), "mask");
    pass.scores = ok(head.scores.value(), "read scores");
    pass.masked_scores = ok(head.masked_scores.value(), "read masked scores");
    pass.weights = ok(head.weights.value(), "read weights");
    pass.output = ok(head.output.value(), "read output");
    pass.row_sums = row_sums(pass.weights);
    return pass;
  });
}

std::expected<std::array<Tensor, 2>, std::string> run_unmasked(const Tensor& input) {
  return guarded([&] {
    ag::Tape tape;
    const auto x = tape.constant(input);  // identity projections: Q = K = V = X
    const auto head = ok(at::scaled_dot_product_attention(x, x, x), "unmasked head");
    return std::array<Tensor, 2>{ok(head.weights.value(), "read weights"),
                                 ok(head.output.value(), "read output")};
  });
}

// region: prefix-invariance
std::expected<PrefixEvidence, std::string> prefix_evidence(const CausalPass& original,
                                                           const Tensor& identity) {
  // Replace only the last token, then compare every earlier row bit for bit
  const Tensor changed_input = with_last_token(original.input, kReplacement);
  auto changed = run_causal(changed_input, identity, identity, identity);
  if (!changed) return std::unexpected(changed.error());
  PrefixEvidence evidence{*changed, {}, {}};
  for (std::size_t row = 0; row < kTokens; ++row) {
    evidence.weights_row_unchanged.push_back(
        row_bitwise_equal(original.weights, changed->weights, row, kTokens));
    evidence.output_row_unchanged.push_back(
        row_bitwise_equal(original.output, changed->output, row, kWidth));
  }
  return evidence;
}
// endregion: prefix-invariance

std::expected<Evidence, std::string> gather_evidence() {
  return guarded([] {
    Evidence evidence{};
    const Tensor input = make(Shape{kBatch, kTokens, kWidth}, kInput);
    const Tensor identity = make(Shape{kWidth, kWidth}, kIdentity);
    evidence.fixture = ok(run_causal(input, identity, identity, identity), "fixture");
    evidence.prefix = ok(prefix_evidence(evidence.fixture, identity), "prefix");

    // Gradients of Σ output ⊙ upstream with respect to X, W_Q, W_K, W_V
    GradientEvidence& grads = evidence.gradients;
    grads.upstream = make(Shape{kBatch, kTokens, kWidth}, kUpstream);
    auto loss_with = [](const Tensor& upstream) -> ag::LossBuilder {
      return [upstream](ag::Tape& tape, std::span<const ag::TensorValue> in)
                 -> std::expected<ag::TensorValue, ag::AutogradError> {
        auto q = ag::matmul(in[0], in[1]);
        auto k = ag::matmul(in[0], in[2]);
        auto v = ag::matmul(in[0], in[3]);
        if (!q || !k || !v)
          return std::unexpected(!q ? q.error() : !k ? k.error() : v.error());
        auto head = at::causal_self_attention(*q, *k, *v);
        if (!head) {
          return std::unexpected(
              ag::AutogradError{ag::AutogradErrorCode::invalid_argument,
                                "causal head",
                                fmt::format("{}", head.error()),
                                {}});
        }
        auto weighted = ag::multiply(head->output, tape.constant(upstream));
        if (!weighted) return std::unexpected(weighted.error());
        return ag::sum(*weighted);
      };
    };
    const std::vector<Tensor> inputs{input, identity, identity, identity};
    auto gradients_of = [&](const ag::LossBuilder& loss) {
      ag::Tape tape;
      std::vector<ag::TensorValue> leaves;
      for (const auto& tensor : inputs)
        leaves.push_back(tape.parameter(tensor));
      const auto value = ok(loss(tape, leaves), "loss");
      ok(ag::backward(value, Tensor::scalar(1.0)), "backward");
      std::vector<Tensor> out{ok(value.value(), "read loss")};
      for (const auto& leaf : leaves)
        out.push_back(ok(leaf.gradient(), "read gradient"));
      return out;
    };
    const auto full = gradients_of(loss_with(grads.upstream));
    grads.loss = full[0].values()[0];
    grads.input_gradient = full[1];
    grads.query_weight_gradient = full[2];
    grads.key_weight_gradient = full[3];
    grads.value_weight_gradient = full[4];
    grads.check = ok(ag::check_tape_gradients(loss_with(grads.upstream), inputs,
                                              {.step = kGradStep,
                                               .absolute_tolerance = kGradTolerance,
                                               .relative_tolerance = 0.0}),
                     "gradcheck");
    // A loss that reads rows 0 and 1 only: no gradient may reach token 2
    Tensor early = grads.upstream;
    for (std::size_t c = 0; c < kWidth; ++c)
      early.mutable_values()[(kTokens - 1) * kWidth + c] = 0.0;
    const auto barrier = gradients_of(loss_with(early));
    const auto row_2 = barrier[1].values().subspan((kTokens - 1) * kWidth, kWidth);
    grads.barrier_gradient_row_2.assign(row_2.begin(), row_2.end());

    // Typed errors, each call wrong in one way
    auto refused = [](const Tensor& q, const Tensor& k) {
      ag::Tape tape;
      auto head = at::causal_self_attention(tape.constant(q), tape.constant(k),
                                            tape.constant(k));
      return head ? std::string("accepted") : fmt::format("{}", head.error());
    };
    evidence.errors.empty_tokens =
        refused(Tensor::zeros(Shape{1, 0, 2}), Tensor::zeros(Shape{1, 0, 2}));
    evidence.errors.token_mismatch = refused(input, Tensor::zeros(Shape{1, 2, 2}));
    const double blocked = -std::numeric_limits<double>::infinity();
    const auto all_blocked = llmfs::tensor::softmax_last_axis(
        ok(Tensor::from(Shape{2, 2}, {0.0, blocked, blocked, blocked}), "masked row"));
    evidence.errors.fully_masked_row =
        all_blocked ? std::string("accepted") : fmt::format("{}", all_blocked.error());

    const Tensor none = Tensor::zeros(Shape{0, kTokens, kWidth});
    evidence.empty_batch_output =
        ok(run_causal(none, identity, identity, identity), "empty batch")
            .output.shape();
    evidence.exercises = ok(exercise_answers(), "exercises");
    return evidence;
  });
}

}  // namespace ch28
