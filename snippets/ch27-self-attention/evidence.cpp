// Chapter 27
// The evidence, the report, and the trace that docs/_ext/diagrams/ch27.py draws.
#include "evidence.hpp"

#include <algorithm>
#include <cmath>

#include <llmfs/attention/self_attention.hpp>
#include <llmfs/report/record.hpp>
#include <llmfs/tensor/broadcast.hpp>
#include <llmfs/tensor/layout.hpp>
#include <llmfs/tensor/matmul.hpp>

namespace ch27 {

namespace ag = llmfs::autograd;
namespace at = llmfs::attention;
namespace tensor = llmfs::tensor;
using namespace llmfs::report;  // format_*, record, row
using tensor::Shape;

// region: fixture-forward
Step<HeadPass> run_head(const Tensor& input, const Tensor& query_weight,
                        const Tensor& key_weight, const Tensor& value_weight) {
  // Project every token row three ways (Chapter 26): Q = X·W_Q, K = X·W_K, V = X·W_V
  auto query = LLMFS_TRY_AT("query projection", tensor::matmul(input, query_weight));
  auto key = LLMFS_TRY_AT("key projection", tensor::matmul(input, key_weight));
  auto value = LLMFS_TRY_AT("value projection", tensor::matmul(input, value_weight));
  return run_head_on(query, key, value);
}

Step<HeadPass> run_head_on(const Tensor& query, const Tensor& key,
                           const Tensor& value) {
  // One head: scores, weights and the value mixture
  llmfs::autograd::Tape tape;
  const auto head = LLMFS_TRY_AT(
      "head", at::scaled_dot_product_attention(tape.constant(query), tape.constant(key),
                                               tape.constant(value)));
  // The raw dot products, for the chapter's hand derivation: Q·Kᵀ without the scale
  const std::size_t rank = key.rank();
  const auto key_t = LLMFS_TRY_AT("Kᵀ", tensor::transpose(key, rank - 2, rank - 1));
  HeadPass pass{query,
                key,
                value,
                LLMFS_TRY_AT("Q·Kᵀ", tensor::matmul(query, key_t)),
                LLMFS_TRY_AT("read scores", head.scores.value()),
                LLMFS_TRY_AT("read weights", head.weights.value()),
                LLMFS_TRY_AT("read output", head.output.value()),
                {}};
  pass.row_sums = LLMFS_TRY_AT(
      "row sums", tensor::reduce_sum(pass.weights, pass.weights.rank() - 1));
  return pass;
}
// endregion: fixture-forward

double max_softmax_derivative(std::span<const double> p) {
  double largest = 0.0;  // ∂p_i/∂s_j = p_i (δ_ij − p_j)
  for (std::size_t i = 0; i < p.size(); ++i)
    for (std::size_t j = 0; j < p.size(); ++j)
      largest = std::max(largest, std::abs(p[i] * ((i == j ? 1.0 : 0.0) - p[j])));
  return largest;
}

// region: saturation
Step<Saturation> saturation(std::size_t d_k) {
  // One query of d_k ones; key 0 all ones, key 1 three quarters ones, key 2 half ones
  // (the rest −1), so the raw dot products are [d_k, d_k/2, 0]
  std::vector<double> keys(3 * d_k, 1.0);
  std::fill(keys.begin() + d_k + 3 * d_k / 4, keys.begin() + 2 * d_k, -1.0);
  std::fill(keys.begin() + 2 * d_k + d_k / 2, keys.end(), -1.0);
  const auto key = LLMFS_TRY_AT("keys", Tensor::from(Shape{1, 3, d_k}, keys));
  // V = I: each output row is its weight row
  const auto value =
      LLMFS_TRY_AT("values", Tensor::from(Shape{1, 3, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 1}));

  // The head always multiplies by 1/√d_k. Scaling the query by √d_k first cancels that,
  // so the softmax sees the raw dot products: the head without its scale.
  const double root = std::sqrt(static_cast<double>(d_k));
  return Saturation{
      LLMFS_TRY(run_head_on(Tensor::full(Shape{1, 1, d_k}, root), key, value)),
      LLMFS_TRY(run_head_on(Tensor::full(Shape{1, 1, d_k}, 1.0), key, value))};
}
// endregion: saturation

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
  const auto keys = LLMFS_TRY_AT("keys", Tensor::from(input.shape(), kShiftedKeys));
  answers.shifted = LLMFS_TRY(run_head_on(original.query, keys, original.value));

  // 4. Swap tokens 0 and 2
  const auto swapped =
      LLMFS_TRY_AT("swapped", Tensor::from(input.shape(), kSwappedInput));
  answers.swapped = LLMFS_TRY(run_head(swapped, identity, identity, identity));

  // 5. The saturation fixture at d_k = 64
  answers.wide_keys = LLMFS_TRY(saturation(64));
  return answers;
}
// endregion: exercise-answers

Step<Evidence> gather_evidence() {
  Evidence e{};
  static_cast<snippets::FixtureTensors&>(e) = LLMFS_TRY(snippets::fixture_tensors());
  const Tensor &input = e.input, &identity = e.identity;
  e.fixture = LLMFS_TRY(run_head(input, identity, identity, identity));
  // Gradients of Σ output ⊙ upstream, every input of the head a parameter
  const auto head = &at::scaled_dot_product_attention;
  const auto loss = snippets::head_loss(head, e.upstream);
  e.loss = LLMFS_TRY_AT("loss", ag::evaluate_loss(loss, e.head_inputs())).values()[0];
  e.gradients = LLMFS_TRY_AT("gradients", ag::tape_gradients(loss, e.head_inputs()));
  e.saturation = LLMFS_TRY(saturation(kSaturationWidth));
  // History: additive scores v·tanh(W q + U k_j), W = U = I and v = [1,1], for query 0
  const auto q = e.fixture.query.values(), k = e.fixture.key.values();
  for (std::size_t j = 0; j < kTokens; ++j)
    e.additive.push_back(std::tanh(q[0] + k[2 * j]) + std::tanh(q[1] + k[2 * j + 1]));
  // Three calls, each wrong in exactly one way
  e.error_key_width =
      snippets::refusal(head, input, Tensor::zeros(Shape{1, 3, 4}), input);
  e.error_token_count =
      snippets::refusal(head, input, input, Tensor::zeros(Shape{1, 2, 2}));
  e.error_rank = snippets::refusal(head, Tensor::zeros(Shape{2}), input, input);
  e.exercises = LLMFS_TRY(exercise_answers(input, identity, e.fixture));
  return e;
}

std::string render_report(const Evidence& e) {
  const HeadPass& f = e.fixture;
  const HeadPass &unscaled = e.saturation.unscaled, &scaled = e.saturation.scaled;
  const double unscaled_derivative = max_softmax_derivative(unscaled.weights.values()),
               scaled_derivative = max_softmax_derivative(scaled.weights.values());
  const Exercises& x = e.exercises;
  const HeadPass& w = x.wide;
  return snippets::join_lines({
      "chapter=27-self-attention",
      snippets::config_line(),
      "query=" + format_tensor(f.query),
      "key=" + format_tensor(f.key),
      "value=" + format_tensor(f.value),
      "dots=" + format_tensor(f.dots),
      "scores=" + format_tensor(f.scores),
      "weights=" + format_tensor(f.weights),
      "row_sums=" + format_values(f.row_sums.values()),
      "output=" + format_tensor(f.output),
      fmt::format(
          "saturation=d_k:{} dots:{} unscaled_weights:{} unscaled_max_derivative:{} "
          "scaled_scores:{} scaled_weights:{} scaled_max_derivative:{} "
          "derivative_ratio:{:.1f}",
          scaled.key.shape()[2], format_values(scaled.dots.values()),
          format_values(unscaled.weights.values()), format_number(unscaled_derivative),
          format_values(scaled.scores.values()), format_values(scaled.weights.values()),
          format_number(scaled_derivative), scaled_derivative / unscaled_derivative),
      "history=query:0 additive_scores:" + format_values(e.additive),
      fmt::format("upstream={} loss:{}", format_tensor(e.upstream),
                  format_number(e.loss)),
      "input_gradient=" + format_tensor(e.gradients.at(0)),
      "query_weight_gradient=" + format_tensor(e.gradients.at(1)),
      "key_weight_gradient=" + format_tensor(e.gradients.at(2)),
      "value_weight_gradient=" + format_tensor(e.gradients.at(3)),
      "error_key_width=" + e.error_key_width,
      "error_token_count=" + e.error_token_count,
      "error_rank=" + e.error_rank,
      fmt::format("exercise_1=Q:{} K:{} V:{} S:{} A:{} Y:{} parameters:{}",
                  w.query.shape(), w.key.shape(), w.value.shape(), w.scores.shape(),
                  w.weights.shape(), w.output.shape(), x.parameters),
      fmt::format("exercise_2=weights:{} output:{}",
                  format_values(x.blind.weights.values()),
                  format_values(x.blind.output.values())),
      "exercise_3=weights:" + format_values(x.shifted.weights.values()),
      "exercise_4=output:" + format_values(x.swapped.output.values()),
      fmt::format(
          "exercise_5=unscaled_weights:{} unscaled_key_1:{:.6e} scaled_weights:{}",
          format_values(x.wide_keys.unscaled.weights.values()),
          x.wide_keys.unscaled.weights.values()[1],
          format_values(x.wide_keys.scaled.weights.values())),
      "next=block every key to the right of its query: 28-causal-masking",
  });
}

// region: trace-records
std::string render_trace(const Evidence& e) {
  const HeadPass& f = e.fixture;
  std::vector<std::string> out{record(
      "CONFIG", "batch", kBatch, "tokens", kTokens, "d_model", kWidth, "d_k", kWidth,
      "d_v", kWidth, "scale", 1.0 / std::sqrt(2.0), "projections", "identity")};
  // The projected rows, stage by stage
  for (const auto& [name, tensor] :
       {std::pair{"query", &f.query}, {"key", &f.key}, {"value", &f.value}})
    for (std::size_t t = 0; t < kTokens; ++t)
      out.push_back(
          record("ROW", "stage", name, "token", t, "values", row(*tensor, t, kWidth)));
  // Every query/key pair: raw dot product, scaled score, weight
  for (std::size_t i = 0; i < kTokens; ++i)
    for (std::size_t j = 0, at = i * kTokens; j < kTokens; ++j, ++at)
      out.push_back(record("CELL", "query", i, "key", j, "dot", f.dots.values()[at],
                           "score", f.scores.values()[at], "weight",
                           f.weights.values()[at]));
  // Each query's weight row, its sum, and the value mixture it produces
  for (std::size_t i = 0; i < kTokens; ++i)
    out.push_back(record("MIX", "query", i, "weights", row(f.weights, i, kTokens),
                         "row_sum", f.row_sums.values()[i], "output",
                         row(f.output, i, kWidth)));
  // The same keys without and with the 1/√d_k scale
  const Saturation& s = e.saturation;
  for (const auto& [scale, pass] :
       {std::pair{"none", &s.unscaled}, std::pair{"1/sqrt(d_k)", &s.scaled}})
    out.push_back(record("SATURATION", "scale", scale, "d_k", pass->key.shape()[2],
                         "scores", pass->scores.values(), "weights",
                         pass->weights.values(), "max_derivative",
                         max_softmax_derivative(pass->weights.values())));
  out.push_back(record("ADDITIVE", "query", 0, "additive", e.additive, "dot",
                       f.scores.values().first(kTokens)));
  return snippets::join_lines(out);
}
// endregion: trace-records

}  // namespace ch27
