// Chapter 24
#include "evidence.hpp"

#include <cmath>

#include <llmfs/autograd/model_ops.hpp>
#include <llmfs/autograd/ops.hpp>
#include <llmfs/autograd/tape_gradcheck.hpp>
#include <llmfs/nn/gradient_norm.hpp>
#include <llmfs/nn/linear.hpp>
#include <llmfs/nn/residual.hpp>

namespace ch24 {

namespace {

using llmfs::autograd::AutogradError;
using llmfs::autograd::Tape;
using llmfs::autograd::TensorValue;
using llmfs::nn::Linear;
using llmfs::nn::NamedParameter;
using llmfs::nn::NnError;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

std::vector<double> ch24_values(const Tensor& t) {
  return {t.values().begin(), t.values().end()};
}

}  // namespace

// region: blocks
// The top of a stack whose block i is f_i(h) = h·W_i + b_i, then SiLU when `silu`.
std::expected<TensorValue, NnError> stack_top(const TensorValue& x,
                                              const std::vector<Linear>& layers,
                                              bool identity, bool silu) {
  std::vector<llmfs::nn::ResidualBranch> blocks;
  for (const Linear& f : layers)
    blocks.push_back(
        [&f, silu](const TensorValue& h) -> std::expected<TensorValue, NnError> {
          const TensorValue z = LLMFS_TRY(f.forward(h));
          return silu ? LLMFS_TRY_AT("silu", llmfs::autograd::silu(z)) : z;
        });
  return llmfs::nn::stack("stack", x, blocks, identity);
}
// endregion: blocks

// region: run-fixture
// Σ of the top of `depth` blocks x·W (one shared W), its gradient, and the checker's.
Step<Pass> run_fixture(const std::vector<double>& w, std::size_t depth, bool identity) {
  const std::vector<Tensor> point = {
      LLMFS_TRY_AT("x", Tensor::from(Shape{1, 2}, kInput)),
      LLMFS_TRY_AT("W", Tensor::from(Shape{2, 2}, w))};
  const auto top_of = [depth, identity](const TensorValue& x,
                                        const TensorValue& weight) {
    const Linear f = Linear::from_parameters({"block.weight", weight}).value();
    return stack_top(x, std::vector<Linear>(depth, f), identity, false);
  };
  Tape tape;
  const TensorValue x = tape.parameter(point[0]);
  const TensorValue top = LLMFS_TRY_AT("stack", top_of(x, tape.parameter(point[1])));
  LLMFS_TRY_AT("backward",
               backward(LLMFS_TRY_AT("loss", sum(top)), Tensor::scalar(1.0)));
  const auto loss = [&top_of](Tape&, std::span<const TensorValue> in)
      -> std::expected<TensorValue, AutogradError> {
    auto h = top_of(in[0], in[1]);
    if (!h) return std::unexpected(h.error().cause.value_or(AutogradError{}));
    return llmfs::autograd::sum(*h);
  };
  return Pass{
      ch24_values(LLMFS_TRY_AT("output", top.value())),
      ch24_values(LLMFS_TRY_AT("gx", x.gradient())),
      LLMFS_TRY_AT("check", llmfs::autograd::check_tape_gradients(loss, point))};
}
// endregion: run-fixture

// Both stacks at every depth: the same seed draws x [4,16], R = ±1 and the blocks'
// weights; loss Σ top ⊙ R, so ∂L/∂top = R whatever the depth.
// region: deep-stack
Step<std::vector<DepthRow>> measure_depths() {
  std::vector<DepthRow> table;
  for (const std::size_t depth : kDepths) {
    DepthRow row{depth, {}, {}, {}};
    for (const bool identity : {false, true}) {
      llmfs::SplitMix64 rng(kSeed);
      std::vector<double> x0(kRows * kWidth), signs(kRows * kWidth);
      for (double& v : x0)
        v = 2.0 * rng.next_unit() - 1.0;
      for (double& v : signs)
        v = rng.next_unit() < 0.5 ? -1.0 : 1.0;
      Tape tape;
      const NamedParameter x{"x", tape.parameter(LLMFS_TRY_AT(
                                      "x", Tensor::from(Shape{kRows, kWidth}, x0)))};
      std::vector<Linear> layers;
      for (std::size_t i = 0; i < depth; ++i)
        layers.push_back(
            LLMFS_TRY_AT("block", Linear::create(tape, fmt::format("block{}", i),
                                                 kWidth, kWidth, true, rng)));
      const TensorValue top =
          LLMFS_TRY_AT("stack", stack_top(x.value, layers, identity, true));
      const TensorValue r =
          tape.constant(LLMFS_TRY_AT("R", Tensor::from(top.shape(), signs)));
      const TensorValue loss =
          LLMFS_TRY_AT("loss", sum(LLMFS_TRY_AT("R", multiply(top, r))));
      LLMFS_TRY_AT("backward", backward(loss, Tensor::scalar(1.0)));
      row.input_norm[identity] =
          LLMFS_TRY_AT("gx", llmfs::nn::gradient_norm(std::span(&x, 1)));
      if (depth > 0)  // depth 0 has no block: its gradient stays 0
        row.bottom_norm[identity] =
            LLMFS_TRY_AT("g1", llmfs::nn::gradient_norm(layers[0].parameters()));
      const Tensor out = LLMFS_TRY_AT("top", top.value());
      row.output_rms[identity] =
          llmfs::nn::global_norm(std::span(&out, 1)) / std::sqrt(kRows * kWidth);
    }
    table.push_back(row);
  }
  return table;
}
// endregion: deep-stack

// region: refusals
// A branch that changes the width, a branch that fails, a released tape.
std::vector<std::array<std::string, 2>> refusals() {
  Tape tape, gone;
  const TensorValue x = tape.parameter(Tensor::zeros(Shape{1, 2}));
  const TensorValue lost = gone.parameter(Tensor::zeros(Shape{1, 2}));
  gone.release();
  const auto layer = [&tape](const char* name, std::size_t in, std::size_t out) {
    return Linear::from_parameters(
               {name, tape.parameter(Tensor::zeros(Shape{in, out}))})
        .value();
  };
  const std::vector<std::pair<std::string, std::expected<TensorValue, NnError>>> calls =
      {{"branch_changes_width",
        stack_top(x, {layer("wide.weight", 2, 3)}, true, false)},
       {"branch_fails", stack_top(x, {layer("narrow.weight", 4, 2)}, true, false)},
       {"released_tape",
        llmfs::nn::residual("block", lost, [](const TensorValue& h) { return h; })}};
  std::vector<std::array<std::string, 2>> out;
  for (const auto& [name, result] : calls)
    out.push_back(
        {name, result ? std::string("accepted") : fmt::format("{}", result.error())});
  return out;
}
// endregion: refusals

// region: exercises
// 1: W = −I makes I + W = 0; 2: the first depth at which the plain fixture's gradient
// falls below 1e-6.
Step<Evidence> solve_exercises(Evidence e) {
  e.cancelled_gradient =
      LLMFS_TRY(run_fixture({-1, 0, 0, -1}, kDepth, true)).input_gradient;
  for (std::size_t depth = 1; e.plain_depth_below == 0; ++depth)
    if (std::abs(LLMFS_TRY(run_fixture(kWeight, depth, false)).input_gradient[0]) <
        1e-6)
      e.plain_depth_below = depth;
  return e;
}
// endregion: exercises

Step<Evidence> gather() {
  Evidence e;
  e.fixture = {LLMFS_TRY(run_fixture(kWeight, kDepth, false)),
               LLMFS_TRY(run_fixture(kWeight, kDepth, true))};
  e.table = LLMFS_TRY(measure_depths());
  e.errors = refusals();
  return solve_exercises(std::move(e));
}

}  // namespace ch24
