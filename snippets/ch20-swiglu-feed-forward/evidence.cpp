// Chapter 20
#include "evidence.hpp"

#include <algorithm>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/autograd/tape_gradcheck.hpp>
#include <llmfs/core/splitmix64.hpp>
#include <llmfs/nn/swiglu.hpp>

namespace ch20 {

namespace {

using llmfs::autograd::AutogradError;
using llmfs::autograd::AutogradErrorCode;
using llmfs::autograd::LossBuilder;
using llmfs::autograd::Tape;
using llmfs::autograd::TensorValue;
using llmfs::nn::NnError;
using llmfs::nn::SwiGluFeedForward;
using llmfs::tensor::Shape;

// A layer over three tape values W₁, W₃, W₂ under the names ffn.gate/up/down.weight.
[[nodiscard]] std::expected<SwiGluFeedForward, NnError> ch20_layer(
    const TensorValue& gate, const TensorValue& up, const TensorValue& down) {
  return SwiGluFeedForward::from_parameters(
      {"ffn.gate.weight", gate}, {"ffn.up.weight", up}, {"ffn.down.weight", down});
}

std::size_t ch20_zeros(const Tensor& t) {
  return static_cast<std::size_t>(
      std::count(t.values().begin(), t.values().end(), 0.0));
}

// The layer's forward pass for a loss builder: a layer error reaches Chapter 13's
// checker as an AutogradError carrying its text.
[[nodiscard]] std::expected<TensorValue, AutogradError> ch20_forward(
    std::span<const TensorValue> in) {
  const auto layer = ch20_layer(in[1], in[2], in[3]);
  const auto output = layer ? layer->forward(in[0]) : std::unexpected(layer.error());
  if (!output) {
    return std::unexpected(AutogradError{AutogradErrorCode::invalid_argument, "layer",
                                         fmt::format("{}", output.error())});
  }
  return *output;
}

}  // namespace

// region: fixture-loss
// L = Σ SwiGLU(X) through the library's layer; inputs = (X, W₁, W₃, W₂).
LossBuilder fixture_loss() {
  return
      [](Tape&,
         std::span<const TensorValue> in) -> std::expected<TensorValue, AutogradError> {
        const TensorValue output = LLMFS_TRY(ch20_forward(in));
        return llmfs::autograd::sum(output);
      };
}
// endregion: fixture-loss

// region: run-fixture
Step<Pass> run_fixture() {
  Pass pass;
  pass.operands = {LLMFS_TRY_AT("X", Tensor::from(Shape{2, 2}, kInput)),
                   LLMFS_TRY_AT("W1", Tensor::from(Shape{2, 3}, kGate)),
                   LLMFS_TRY_AT("W3", Tensor::from(Shape{2, 3}, kUp)),
                   LLMFS_TRY_AT("W2", Tensor::from(Shape{3, 2}, kDown))};
  Tape tape;
  std::vector<TensorValue> leaves;
  for (const Tensor& t : pass.operands)
    leaves.push_back(tape.parameter(t));
  const SwiGluFeedForward layer =
      LLMFS_TRY_AT("layer", ch20_layer(leaves[1], leaves[2], leaves[3]));
  const auto stages = LLMFS_TRY_AT("forward", layer.forward_stages(leaves[0]));
  const TensorValue loss = LLMFS_TRY_AT("loss", llmfs::autograd::sum(stages.output));
  LLMFS_TRY_AT("backward", backward(loss, Tensor::scalar(1.0)));
  pass.gate_input = LLMFS_TRY_AT("A", stages.gate_input.value());
  pass.gate = LLMFS_TRY_AT("S", stages.gate.value());
  pass.up = LLMFS_TRY_AT("U", stages.up.value());
  pass.hidden = LLMFS_TRY_AT("H", stages.hidden.value());
  pass.output = LLMFS_TRY_AT("Y", stages.output.value());
  pass.loss = LLMFS_TRY_AT("L", loss.value()).values()[0];
  pass.gate_input_gradient = LLMFS_TRY_AT("dA", stages.gate_input.gradient());
  pass.up_gradient = LLMFS_TRY_AT("dU", stages.up.gradient());
  for (const TensorValue& leaf : leaves)
    pass.gradients.push_back(LLMFS_TRY_AT("gradient", leaf.gradient()));
  pass.parameters = layer.parameter_count();
  pass.check = LLMFS_TRY_AT(
      "check", llmfs::autograd::check_tape_gradients(fixture_loss(), pass.operands));
  return pass;
}
// endregion: run-fixture

// region: width-table
Step<std::vector<Width>> width_table() {
  std::vector<Width> table;
  for (const std::size_t d : {2, 4, 64, 128, 768}) {
    const std::size_t hidden =
        LLMFS_TRY_AT("width", llmfs::nn::swiglu_hidden_width(d, 8));
    table.push_back({d, 8, hidden, 3 * d * hidden, 8 * d * d});
  }
  return table;
}
// endregion: width-table

// region: refusals
// Calls the layer and the rule refuse: shapes that do not chain, a wrong input width,
// a zero multiple, an empty name, one name twice.
std::vector<std::array<std::string, 2>> refusals() {
  Tape tape;
  llmfs::SplitMix64 rng(20);
  auto zeros = [&tape](Shape shape) { return tape.parameter(Tensor::zeros(shape)); };
  const auto layer =
      ch20_layer(zeros(Shape{2, 3}), zeros(Shape{2, 3}), zeros(Shape{3, 2}));
  using snippets::error_text;
  return {{"up_width", error_text(ch20_layer(zeros(Shape{2, 3}), zeros(Shape{2, 4}),
                                             zeros(Shape{3, 2})))},
          {"down_layout", error_text(ch20_layer(zeros(Shape{2, 3}), zeros(Shape{2, 3}),
                                                zeros(Shape{2, 3})))},
          {"input_width", error_text(layer->forward(zeros(Shape{2, 3})))},
          {"zero_multiple", error_text(llmfs::nn::swiglu_hidden_width(64, 0))},
          {"empty_name", error_text(SwiGluFeedForward::create(tape, "", 2, 3, rng))},
          {"duplicate_name", error_text(SwiGluFeedForward::from_parameters(
                                 {"w", zeros(Shape{2, 3})}, {"w", zeros(Shape{2, 3})},
                                 {"v", zeros(Shape{3, 2})}))}};
}
// endregion: refusals

Step<Exercises> solve_exercises(const Pass& pass) {
  Exercises x;
  Tape tape;
  llmfs::SplitMix64 rng(20);
  const std::size_t hidden =
      LLMFS_TRY_AT("width", llmfs::nn::swiglu_hidden_width(64, 8));
  const SwiGluFeedForward layer =
      LLMFS_TRY_AT("create", SwiGluFeedForward::create(tape, "ffn", 64, hidden, rng));
  x.created_parameters = layer.parameter_count();
  x.closed_gates = ch20_zeros(pass.gate);
  x.zero_up_gradients = ch20_zeros(pass.gradients[2]);
  x.zero_gate_gradients = ch20_zeros(pass.gradients[1]);
  x.llama_hidden_width =
      LLMFS_TRY_AT("llama", llmfs::nn::swiglu_hidden_width(4096, 256));
  return x;
}

Step<Evidence> gather() {
  Evidence e;
  e.pass = LLMFS_TRY(run_fixture());
  e.widths = LLMFS_TRY(width_table());
  Tape tape;
  llmfs::SplitMix64 rng(20);
  const SwiGluFeedForward ungated =
      LLMFS_TRY_AT("ungated", SwiGluFeedForward::create(tape, "wide", 64, 4 * 64, rng));
  e.ungated_parameters = ungated.parameter_count();
  e.errors = refusals();
  e.exercises = LLMFS_TRY(solve_exercises(e.pass));
  return e;
}

}  // namespace ch20
