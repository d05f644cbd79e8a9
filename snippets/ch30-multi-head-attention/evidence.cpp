// Chapter 30
// Gathers every value chapter 30 prints. Nothing here re-implements the layer: every
// number comes from llmfs::attention::MultiHeadAttention or the ops it is made of.

#include "evidence.hpp"

#include <bit>
#include <cstdint>
#include <limits>
#include <span>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/core/splitmix64.hpp>

namespace ch30 {

using llmfs::attention::MultiHeadAttention;
using llmfs::attention::MultiHeadError;
using llmfs::autograd::Tape;
using llmfs::autograd::TensorValue;

namespace {

// The fixture layer from four matrix nodes W_Q, W_K, W_V, W_O.
[[nodiscard]] std::expected<MultiHeadAttention, MultiHeadError> fixture_layer(
    std::span<const TensorValue> w) {
  auto name = [](const char* role) {
    return fmt::format("{}.{}.weight", kParameterPrefix, role);
  };
  return MultiHeadAttention::from_parameters(
      {name("query"), w[0]}, {name("key"), w[1]}, {name("value"), w[2]},
      {name("output"), w[3]}, kHeads, kMaxPositions, kRopeBase);
}

// The fixture layer's forward pass on X, from five inputs (X, W_Q, W_K, W_V, W_O).
[[nodiscard]] std::expected<llmfs::attention::MultiHeadForward, MultiHeadError>
fixture_forward(std::span<const TensorValue> inputs) {
  auto layer = LLMFS_TRY(fixture_layer(inputs.subspan(1)));
  return layer.forward(inputs[0], kOffset);
}

// L = Σ MHA(X) ⊙ U as a function of X, W_Q, W_K, W_V, W_O, for the gradient checker.
[[nodiscard]] std::expected<TensorValue, llmfs::autograd::AutogradError> fixture_loss(
    Tape& tape, std::span<const TensorValue> inputs) {
  auto forward = fixture_forward(inputs);
  if (!forward) {
    return llmfs::reject(llmfs::autograd::AutogradErrorCode::invalid_argument,
                         "chapter 30 loss", fmt::format("{}", forward.error()));
  }
  auto product = LLMFS_TRY(
      llmfs::autograd::multiply(forward->output, tape.constant(fixture_upstream())));
  return llmfs::autograd::sum(product);
}

// L = Σ output ⊙ U, then one backward pass with seed 1.
[[nodiscard]] Step<void> backpropagate(FixtureRun& run, Evidence& out) {
  out.upstream = fixture_upstream();
  auto product = LLMFS_TRY_AT(
      "weight the output",
      llmfs::autograd::multiply(run.forward.output, run.tape.constant(out.upstream)));
  auto loss = LLMFS_TRY_AT("sum the loss", llmfs::autograd::sum(product));
  LLMFS_TRY_AT("backpropagate", llmfs::autograd::backward(loss, Tensor::scalar(1.0)));
  out.loss = LLMFS_TRY(value_of(loss)).values()[0];
  out.input_gradient = LLMFS_TRY_AT("read the input gradient", run.input.gradient());
  for (std::size_t i = 0; i < 4; ++i) {
    out.parameter_gradients[i] =
        LLMFS_TRY_AT("read a weight gradient", run.weights[i].gradient());
  }
  return {};
}

// The fixture run: its forward record, its parameters and its gradients.
[[nodiscard]] Step<Evidence> gather_fixture() {
  Evidence out;
  auto run = LLMFS_TRY(run_fixture(fixture_input()));
  const auto& f = run.forward;
  const std::pair<const TensorValue*, Tensor*> reads[] = {
      {&run.input, &out.input},
      {&f.projected_query_heads, &out.projected_query_heads},
      {&f.projected_key_heads, &out.projected_key_heads},
      {&f.projected_value_heads, &out.projected_value_heads},
      {&f.rotated_query_heads, &out.rotated_query_heads},
      {&f.rotated_key_heads, &out.rotated_key_heads},
      {&f.masked_scores, &out.masked_scores},
      {&f.attention_weights, &out.attention_weights},
      {&f.head_outputs, &out.head_outputs},
      {&f.merged, &out.merged},
      {&run.weights[3], &out.output_weight},
      {&f.output, &out.output}};
  for (auto [node, target] : reads)
    *target = LLMFS_TRY(value_of(*node));
  for (const auto& parameter : run.layer.parameters()) {
    out.parameter_names.push_back(parameter.name);
    out.parameter_shapes.push_back(parameter.value.shape());
  }
  out.parameter_count = run.layer.parameter_count();
  out.output_bias = run.layer.output_projection().bias().has_value();
  LLMFS_TRY(backpropagate(run, out));
  return out;
}

// The library's message for a call that must be refused.
template <class T>
[[nodiscard]] Step<std::string> refusal(
    const std::expected<T, MultiHeadError>& result) {
  if (result) return llmfs::reject(snippets::StepCode::failed, "refusal", "accepted");
  return fmt::format("{}", result.error());
}

}  // namespace

Step<Tensor> value_of(const TensorValue& node) {
  return LLMFS_TRY_AT("read a tape value", node.value());
}

Step<FixtureRun> run_fixture(const Tensor& input, std::size_t offset,
                             const Tensor& query_weight) {
  Tape tape;
  TensorValue x = tape.parameter(input);
  std::vector<TensorValue> weights = {
      tape.parameter(query_weight), tape.parameter(identity()),
      tape.parameter(identity()), tape.parameter(block_swap())};
  auto layer = LLMFS_TRY_AT("build the fixture layer", fixture_layer(weights));
  auto forward = LLMFS_TRY_AT("run the fixture layer", layer.forward(x, offset));
  return FixtureRun{tape, x, weights, std::move(layer), std::move(forward)};
}

Step<decltype(Evidence::errors)> gather_errors() {
  // Configuration, checked before a single number is drawn.
  Tape tape;
  llmfs::SplitMix64 rng(30);
  auto create = [&](std::size_t width, std::size_t heads) {
    return MultiHeadAttention::create(tape, kParameterPrefix, width, heads,
                                      kMaxPositions, kRopeBase, rng);
  };
  // Input: rank, width, tokens, then the position interval, before any tape operation.
  auto run = LLMFS_TRY(run_fixture(fixture_input()));
  auto forward = [&](const Tensor& input, std::size_t offset) {
    return run.layer.forward(run.tape.constant(input), offset);
  };
  const std::size_t too_far = std::numeric_limits<std::size_t>::max();
  decltype(Evidence::errors) errors = {
      {"zero_model_width", LLMFS_TRY(refusal(create(0, 2)))},
      {"zero_heads", LLMFS_TRY(refusal(create(4, 0)))},
      {"nondivisible", LLMFS_TRY(refusal(create(4, 3)))},
      {"odd_head_width", LLMFS_TRY(refusal(create(4, 4)))},
      {"input_rank", LLMFS_TRY(refusal(forward(Tensor::zeros({3, 4}), 0)))},
      {"input_width", LLMFS_TRY(refusal(forward(Tensor::zeros({1, 3, 5}), 0)))},
      {"empty_tokens", LLMFS_TRY(refusal(forward(Tensor::zeros({1, 0, 4}), 0)))},
      {"offset_overflow", LLMFS_TRY(refusal(forward(fixture_input(), too_far)))},
      {"position_range", LLMFS_TRY(refusal(forward(fixture_input(), 4)))}};
  // A released input: its tape is gone before the layer reads it.
  auto input = run.tape.constant(fixture_input());
  run.tape.release();
  errors.emplace_back("released_input",
                      LLMFS_TRY(refusal(run.layer.forward(input, kOffset))));
  return errors;
}

Step<Evidence> gather_evidence() {
  Evidence out = LLMFS_TRY(gather_fixture());
  const std::array<Tensor, 5> inputs = {fixture_input(), identity(), identity(),
                                        identity(), block_swap()};
  out.gradcheck = LLMFS_TRY_AT(
      "central differences",
      llmfs::autograd::check_tape_gradients(fixture_loss, inputs,
                                            {.step = kGradientStep,
                                             .absolute_tolerance = kGradientTolerance,
                                             .relative_tolerance = 0.0}));

  // The prefix check: only the last input row replaced.
  auto perturbed = LLMFS_TRY(run_fixture(perturbed_input()));
  out.prefix_perturbed_output = LLMFS_TRY(value_of(perturbed.forward.output));

  // Boundaries: an empty batch, forward and backward, and a single token.
  const Tensor none = Tensor::zeros({0, kTokens, kModelWidth});
  auto empty = LLMFS_TRY(run_fixture(none));
  LLMFS_TRY_AT("empty-batch backward",
               llmfs::autograd::backward(empty.forward.output, none));
  out.empty_batch_weights = empty.forward.attention_weights.shape();
  out.empty_batch_output = empty.forward.output.shape();
  auto first_row = LLMFS_TRY_AT(
      "the first row", Tensor::from({1, 1, kModelWidth}, {1.0, 0.0, 1.0, 0.0}));
  auto single = LLMFS_TRY(run_fixture(first_row));
  out.single_token_weights = single.forward.attention_weights.shape();

  out.errors = LLMFS_TRY(gather_errors());
  LLMFS_TRY(historical_contrast(out));
  out.exercises = LLMFS_TRY(answer_exercises(out));
  return out;
}

std::vector<std::size_t> changed_per_row(const Tensor& a, const Tensor& b) {
  std::vector<std::size_t> changed(a.size() / kModelWidth, 0);
  for (std::size_t i = 0; i < a.size(); ++i) {
    changed[i / kModelWidth] += std::bit_cast<std::uint64_t>(a.values()[i]) !=
                                std::bit_cast<std::uint64_t>(b.values()[i]);
  }
  return changed;
}

}  // namespace ch30
