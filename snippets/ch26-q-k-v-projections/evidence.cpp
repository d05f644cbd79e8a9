// Chapter 26
#include "evidence.hpp"

#include <algorithm>
#include <cmath>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/autograd/tape_gradcheck.hpp>
#include <llmfs/core/splitmix64.hpp>
#include <llmfs/nn/qkv.hpp>
#include <llmfs/tensor/layout.hpp>
#include <llmfs/tensor/matmul.hpp>

namespace ch26 {

namespace {

using llmfs::autograd::AutogradError;
using llmfs::autograd::AutogradErrorCode;
using llmfs::autograd::LossBuilder;
using llmfs::autograd::Tape;
using llmfs::autograd::TensorValue;
using llmfs::nn::NnError;
using llmfs::nn::QkvForward;
using llmfs::nn::QkvProjections;
using llmfs::tensor::Shape;

constexpr std::size_t kWidth = 2;  // d_model of the fixture

// Projections over tape values: (W_Q, W_K, W_V) separate, or (W_in) fused.
[[nodiscard]] std::expected<QkvProjections, NnError> ch26_projections(
    std::span<const TensorValue> weights) {
  if (weights.size() == 1)
    return QkvProjections::from_combined({"attn.in_proj", weights[0]});
  return QkvProjections::from_weights(
      {"attn.query", weights[0]}, {"attn.key", weights[1]}, {"attn.value", weights[2]});
}

// Counts the entries of `a` and `b` that are not bitwise equal (== on doubles).
std::size_t ch26_differing(const Tensor& a, const Tensor& b) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    count += a.values()[i] != b.values()[i];
  return count;
}

std::vector<double> ch26_list(const Tensor& t) {
  return {t.values().begin(), t.values().end()};
}

}  // namespace

// region: fuse
// Row i of W_in is row i of W_Q, then of W_K, then of W_V: the column blocks
// [0, out), [out, 2·out), [2·out, 3·out) are the three maps.
std::vector<double> fuse(const std::vector<double>& query,
                         const std::vector<double>& key,
                         const std::vector<double>& value, std::size_t in,
                         std::size_t out) {
  std::vector<double> fused;
  fused.reserve(in * 3 * out);
  for (std::size_t i = 0; i < in; ++i)
    for (const std::vector<double>* w : {&query, &key, &value})
      fused.insert(fused.end(), w->begin() + i * out, w->begin() + (i + 1) * out);
  return fused;
}
// endregion: fuse

// region: fixture-loss
// L = Σ Q⊙G_Q + K⊙G_K + V⊙G_V through the library's projections; inputs = (X, W_Q,
// W_K, W_V) or (X, W_in). A projection error reaches Chapter 13's checker as text.
LossBuilder fixture_loss(const std::array<Tensor, 3>& upstream) {
  return [upstream](Tape& tape, std::span<const TensorValue> in)
             -> std::expected<TensorValue, AutogradError> {
    const auto projections = ch26_projections(in.subspan(1));
    const auto out = projections ? projections->forward(in[0])
                                 : std::unexpected(projections.error());
    if (!out) {
      return std::unexpected(AutogradError{AutogradErrorCode::invalid_argument, "qkv",
                                           fmt::format("{}", out.error())});
    }
    TensorValue loss = LLMFS_TRY(llmfs::autograd::sum(
        LLMFS_TRY(llmfs::autograd::multiply(out->query, tape.constant(upstream[0])))));
    for (const auto& [part, g] :
         {std::pair{out->key, upstream[1]}, {out->value, upstream[2]}}) {
      const TensorValue term = LLMFS_TRY(llmfs::autograd::sum(
          LLMFS_TRY(llmfs::autograd::multiply(part, tape.constant(g)))));
      loss = LLMFS_TRY(llmfs::autograd::add(loss, term));
    }
    return loss;
  };
}
// endregion: fixture-loss

// region: run-pass
Step<Pass> run_pass(bool fused) {
  const Shape square{kWidth, kWidth};
  std::vector<Tensor> point = {LLMFS_TRY_AT("X", Tensor::from(square, kInput))};
  if (fused) {
    point.push_back(
        LLMFS_TRY_AT("W_in", Tensor::from(Shape{kWidth, 3 * kWidth},
                                          fuse(kQuery, kKey, kValue, kWidth, kWidth))));
  } else {
    for (const auto* w : {&kQuery, &kKey, &kValue})
      point.push_back(LLMFS_TRY_AT("W", Tensor::from(square, *w)));
  }
  const std::array<Tensor, 3> upstream = {
      LLMFS_TRY_AT("G_Q", Tensor::from(square, kUpstreamQuery)),
      LLMFS_TRY_AT("G_K", Tensor::from(square, kUpstreamKey)),
      LLMFS_TRY_AT("G_V", Tensor::from(square, kUpstreamValue))};
  Tape tape;
  std::vector<TensorValue> leaves;
  for (const Tensor& t : point)
    leaves.push_back(tape.parameter(t));
  const QkvProjections qkv =
      LLMFS_TRY_AT("projections", ch26_projections(std::span(leaves).subspan(1)));
  const QkvForward out = LLMFS_TRY_AT("forward", qkv.forward(leaves[0]));
  Pass pass;
  pass.point = point;
  const std::array<TensorValue, 3> parts = {out.query, out.key, out.value};
  for (std::size_t p = 0; p < 3; ++p) {
    // Three seeded backward passes accumulate: the backward pass of L.
    LLMFS_TRY_AT("backward", backward(parts[p], upstream[p]));
    pass.outputs[p] = LLMFS_TRY_AT("output", parts[p].value());
    for (std::size_t i = 0; i < upstream[p].size(); ++i)
      pass.loss += pass.outputs[p].values()[i] * upstream[p].values()[i];
  }
  for (const auto& parameter : qkv.parameters())
    pass.weight_gradients.push_back(LLMFS_TRY_AT("dW", parameter.value.gradient()));
  pass.input_gradient = LLMFS_TRY_AT("dX", leaves[0].gradient());
  pass.parameters = qkv.parameters().scalar_count();
  pass.check = LLMFS_TRY_AT(
      "check", llmfs::autograd::check_tape_gradients(fixture_loss(upstream), point));
  return pass;
}
// endregion: run-pass

// region: compare-layouts
// Entry by entry, with ==: Q, K, V and the weight gradients of the two layouts;
// PyTorch's in_proj_weight is W_inᵀ, and transposing it back restores W_in.
Step<Fusion> compare_layouts(const Evidence& e) {
  Fusion f;
  f.torch_in_proj =
      LLMFS_TRY_AT("in_proj_weight", llmfs::tensor::transpose(e.fused.point[1], 0, 1));
  const Tensor back =
      LLMFS_TRY_AT("W_in again", llmfs::tensor::transpose(f.torch_in_proj, 0, 1));
  f.torch_round_trip = ch26_differing(back, e.fused.point[1]) == 0;
  for (std::size_t p = 0; p < 3; ++p)
    f.fixture_differing += ch26_differing(e.separate.outputs[p], e.fused.outputs[p]);
  const auto& g = e.separate.weight_gradients;
  const Tensor joined = LLMFS_TRY_AT(
      "[dW_Q | dW_K | dW_V]",
      Tensor::from(Shape{kWidth, 3 * kWidth}, fuse(ch26_list(g[0]), ch26_list(g[1]),
                                                   ch26_list(g[2]), kWidth, kWidth)));
  f.gradient_differing = ch26_differing(joined, e.fused.weight_gradients.at(0));
  return f;
}
// endregion: compare-layouts

// region: refusals
// Calls the projections refuse: weights that disagree, on two tapes, a fused width
// that does not split in three, a zero width, an input of the wrong width.
std::vector<std::array<std::string, 2>> refusals() {
  Tape tape;
  Tape other;
  llmfs::SplitMix64 rng(26);
  auto w = [&tape](std::size_t cols) {
    return tape.parameter(Tensor::zeros(Shape{2, cols}));
  };
  const auto elsewhere = other.parameter(Tensor::zeros(Shape{2, 2}));
  const QkvProjections qkv = *QkvProjections::create(tape, "attn", 2, 2, rng);
  using Q = QkvProjections;
  return {{"shape_mismatch", snippets::error_text(Q::from_weights(
                                 {"q", w(2)}, {"k", w(3)}, {"v", w(2)}))},
          {"two_tapes", snippets::error_text(Q::from_weights({"q", w(2)}, {"k", w(2)},
                                                             {"v", elsewhere}))},
          {"fused_width", snippets::error_text(Q::from_combined({"in_proj", w(5)}))},
          {"zero_width", snippets::error_text(Q::create(tape, "attn", 0, 2, rng))},
          {"input_width", snippets::error_text(qkv.forward(w(3)))}};
}
// endregion: refusals

// region: exercises
Step<Exercises> solve_exercises(const Evidence& e) {
  Exercises x;
  Tape tape;
  llmfs::SplitMix64 rng(26);
  for (auto [d, count] :
       {std::pair<std::size_t, std::size_t*>{64, &x.small}, {768, &x.gpt2}}) {
    const QkvProjections qkv =
        LLMFS_TRY_AT("count", QkvProjections::create(tape, "attn", d, d, rng));
    *count = qkv.parameters().scalar_count();
  }
  x.gpt2_biases = x.gpt2 + 3 * 768;  // PyTorch's in_proj_bias [3·d]
  // The scores chapter 27 builds, S = Q·Kᵀ; with W_K = W_Q they are Q·Qᵀ.
  const Tensor& q = e.separate.outputs[0];
  for (auto [k, out] :
       {std::pair{&e.separate.outputs[1], &x.asymmetry}, {&q, &x.asymmetry_shared}}) {
    const Tensor kt = LLMFS_TRY_AT("Kᵀ", llmfs::tensor::transpose(*k, 0, 1));
    const Tensor s = LLMFS_TRY_AT("S", llmfs::tensor::matmul(q, kt));
    const Tensor st = LLMFS_TRY_AT("Sᵀ", llmfs::tensor::transpose(s, 0, 1));
    for (std::size_t i = 0; i < s.size(); ++i)
      *out = std::max(*out, std::fabs(s.values()[i] - st.values()[i]));
  }
  return x;
}
// endregion: exercises

Step<Evidence> gather() {
  Evidence e;
  e.separate = LLMFS_TRY(run_pass(false));
  e.fused = LLMFS_TRY(run_pass(true));
  e.fusion = LLMFS_TRY(compare_layouts(e));
  e.errors = refusals();
  e.exercises = LLMFS_TRY(solve_exercises(e));
  return e;
}

}  // namespace ch26
