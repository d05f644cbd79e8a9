// Chapter 19
#include "evidence.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/autograd/tape_gradcheck.hpp>
#include <llmfs/core/splitmix64.hpp>
#include <llmfs/nn/linear.hpp>

namespace ch19 {

namespace {

using llmfs::autograd::AutogradError;
using llmfs::autograd::AutogradErrorCode;
using llmfs::autograd::LossBuilder;
using llmfs::autograd::Tape;
using llmfs::autograd::TensorValue;
using llmfs::nn::Linear;
using llmfs::nn::NamedParameter;
using llmfs::tensor::Shape;

// A layer over two tape values: weight `w` [in, out], bias `b` [out] if given.
[[nodiscard]] std::expected<Linear, llmfs::nn::NnError> ch19_layer(
    const TensorValue& w, std::optional<TensorValue> b) {
  if (!b) return Linear::from_parameters({"fc.weight", w});
  return Linear::from_parameters({"fc.weight", w}, NamedParameter{"fc.bias", *b});
}

// The layer's forward pass for a loss builder: a layer error reaches Chapter 13's
// checker as an AutogradError carrying its text.
[[nodiscard]] std::expected<TensorValue, AutogradError> ch19_forward(
    const TensorValue& x, const TensorValue& w, const TensorValue& b) {
  const auto layer = ch19_layer(w, b);
  const auto output = layer ? layer->forward(x) : std::unexpected(layer.error());
  if (!output) {
    return std::unexpected(AutogradError{AutogradErrorCode::invalid_argument, "layer",
                                         fmt::format("{}", output.error())});
  }
  return *output;
}

}  // namespace

// region: fixture-loss
// L = Σ (X·W + b) ⊙ G through the library's layer; inputs = (X, W, b).
LossBuilder fixture_loss(const Tensor& upstream) {
  return [upstream](Tape& tape, std::span<const TensorValue> in)
             -> std::expected<TensorValue, AutogradError> {
    const TensorValue output = LLMFS_TRY(ch19_forward(in[0], in[1], in[2]));
    const TensorValue weighted =
        LLMFS_TRY(llmfs::autograd::multiply(output, tape.constant(upstream)));
    return llmfs::autograd::sum(weighted);
  };
}
// endregion: fixture-loss

// region: run-fixture
Step<Pass> run_fixture() {
  const std::vector<Tensor> point = {
      LLMFS_TRY_AT("input", Tensor::from(Shape{2, 3}, kInput)),
      LLMFS_TRY_AT("weight", Tensor::from(Shape{3, 2}, kWeight)),
      LLMFS_TRY_AT("bias", Tensor::from(Shape{2}, kBias))};
  const Tensor upstream =
      LLMFS_TRY_AT("upstream", Tensor::from(Shape{2, 2}, kUpstream));
  Tape tape;
  const TensorValue x = tape.parameter(point[0]);
  const Linear layer = LLMFS_TRY_AT(
      "layer", ch19_layer(tape.parameter(point[1]), tape.parameter(point[2])));
  const TensorValue y = LLMFS_TRY_AT("forward", layer.forward(x));
  // Seeding backward with G is the backward pass of L = Σ Y ⊙ G.
  LLMFS_TRY_AT("backward", backward(y, upstream));
  Pass pass;
  pass.operands = {point[0], point[1], point[2], upstream};
  pass.output = LLMFS_TRY_AT("Y", y.value());
  for (std::size_t i = 0; i < upstream.size(); ++i)
    pass.loss += pass.output.values()[i] * upstream.values()[i];
  pass.weight_gradient = LLMFS_TRY_AT("dW", layer.weight().value.gradient());
  pass.bias_gradient = LLMFS_TRY_AT("db", layer.bias()->value.gradient());
  pass.input_gradient = LLMFS_TRY_AT("dX", x.gradient());
  pass.parameters = layer.parameter_count();
  pass.check = LLMFS_TRY_AT(
      "check", llmfs::autograd::check_tape_gradients(fixture_loss(upstream), point));
  return pass;
}
// endregion: run-fixture

// region: run-trap
// The square weight applied in its own layout and in PyTorch's: both run. The
// non-square weight in PyTorch's layout [2, 3] meets a [2, 3] input: refused.
Step<Trap> run_trap() {
  Tape tape;
  auto apply = [&tape](const std::vector<double>& weight, std::size_t in,
                       std::size_t out, const Tensor& input) -> Step<Tensor> {
    const Tensor w = LLMFS_TRY_AT("weight", Tensor::from(Shape{in, out}, weight));
    const Linear layer = LLMFS_TRY_AT("layer", ch19_layer(tape.parameter(w), {}));
    const TensorValue y = LLMFS_TRY_AT("forward", layer.forward(tape.constant(input)));
    return LLMFS_TRY_AT("value", y.value());
  };
  const Tensor square = LLMFS_TRY_AT("X", Tensor::from(Shape{2, 2}, kSquareInput));
  Trap trap;
  trap.right = LLMFS_TRY(apply(kSquareWeight, 2, 2, square));
  trap.wrong = LLMFS_TRY(apply(kSquareTorchWeight, 2, 2, square));
  const Tensor x = LLMFS_TRY_AT("X", Tensor::from(Shape{2, 3}, kInput));
  std::vector<double> torch_layout(6);  // Wᵀ [out=2, in=3]
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 2; ++j)
      torch_layout[j * 3 + i] = kWeight[i * 2 + j];
  auto refused = apply(torch_layout, 2, 3, x);
  trap.non_square = refused ? "accepted" : refused.error().cause->text;
  return trap;
}
// endregion: run-trap

// region: refusals
// Calls the layer refuses: shapes that do not fit, a zero width, an empty name.
std::vector<std::array<std::string, 2>> refusals() {
  Tape tape;
  llmfs::SplitMix64 rng(19);
  auto weight = [&tape](Shape shape) { return tape.parameter(Tensor::zeros(shape)); };
  const Linear layer = *ch19_layer(weight(Shape{3, 2}), weight(Shape{2}));
  return {
      {"weight_rank", snippets::error_text(ch19_layer(weight(Shape{6}), {}))},
      {"bias_shape",
       snippets::error_text(ch19_layer(weight(Shape{3, 2}), weight(Shape{3})))},
      {"input_rank", snippets::error_text(layer.forward(weight(Shape{3})))},
      {"input_width", snippets::error_text(layer.forward(weight(Shape{2, 2})))},
      {"zero_width", snippets::error_text(Linear::create(tape, "fc", 0, 2, true, rng))},
      {"empty_name", snippets::error_text(Linear::create(tape, "", 3, 2, true, rng))}};
}
// endregion: refusals

// region: exercises
Step<Exercises> solve_exercises() {
  Exercises x;
  Tape tape;
  llmfs::SplitMix64 rng(19);
  const Linear wide =
      LLMFS_TRY_AT("wide", Linear::create(tape, "wide", 64, 256, true, rng));
  const Linear bare =
      LLMFS_TRY_AT("bare", Linear::create(tape, "bare", 64, 256, false, rng));
  x.wide_with_bias = wide.parameter_count();
  x.wide_without_bias = bare.parameter_count();
  // A one-hot input reads one row of W, plus b.
  const Tensor w = LLMFS_TRY_AT("W", Tensor::from(Shape{3, 2}, kWeight));
  const Tensor b = LLMFS_TRY_AT("b", Tensor::from(Shape{2}, kBias));
  const Linear fixture =
      LLMFS_TRY_AT("fixture", ch19_layer(tape.parameter(w), tape.parameter(b)));
  const Tensor e2 = LLMFS_TRY_AT("e2", Tensor::from(Shape{1, 3}, {0, 0, 1}));
  const TensorValue probe = LLMFS_TRY_AT("probe", fixture.forward(tape.constant(e2)));
  x.probe = LLMFS_TRY_AT("probe value", probe.value());
  // A symmetric S equals its transpose, so both layouts agree exactly.
  const std::vector<double> s = {2, -1, -1, 3};
  const Tensor input = LLMFS_TRY_AT("X", Tensor::from(Shape{2, 2}, kSquareInput));
  const Tensor s_tensor = LLMFS_TRY_AT("S", Tensor::from(Shape{2, 2}, s));
  const Linear symmetric = LLMFS_TRY_AT("S", ch19_layer(tape.parameter(s_tensor), {}));
  const TensorValue xs = LLMFS_TRY_AT("XS", symmetric.forward(tape.constant(input)));
  const Tensor a = LLMFS_TRY_AT("XS value", xs.value());
  for (std::size_t i = 0; i < 2; ++i) {
    for (std::size_t j = 0; j < 2; ++j) {
      double swapped = 0.0;  // (X·Sᵀ)[i][j], written out
      for (std::size_t k = 0; k < 2; ++k)
        swapped += kSquareInput[i * 2 + k] * s[j * 2 + k];
      x.symmetric_difference =
          std::max(x.symmetric_difference, std::fabs(a.values()[i * 2 + j] - swapped));
    }
  }
  return x;
}
// endregion: exercises

Step<Evidence> gather() {
  Evidence e;
  e.pass = LLMFS_TRY(run_fixture());
  e.trap = LLMFS_TRY(run_trap());
  e.errors = refusals();
  e.exercises = LLMFS_TRY(solve_exercises());
  return e;
}

}  // namespace ch19
