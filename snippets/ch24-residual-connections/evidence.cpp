// Chapter 24
#include "evidence.hpp"

#include <cmath>

#include <llmfs/autograd/model_ops.hpp>
#include <llmfs/autograd/ops.hpp>
#include <llmfs/autograd/tape_gradcheck.hpp>
#include <llmfs/nn/linear.hpp>
#include <llmfs/nn/residual.hpp>

namespace ch24 {

namespace {

using llmfs::autograd::AutogradError;
using llmfs::autograd::Tape;
using llmfs::autograd::TensorValue;
using llmfs::nn::Linear;
using llmfs::nn::NnError;
using llmfs::nn::ResidualBranch;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

std::vector<double> ch24_values(const Tensor& t) { return {t.values().begin(), t.values().end()}; }

double ch24_norm(const Tensor& t, double divide_by = 1.0) {
  double squares = 0.0;
  for (const double v : t.values()) squares += v * v;
  return std::sqrt(squares / divide_by);
}

// Every block of the fixture is the same map f(x) = x·W.
std::expected<TensorValue, AutogradError> fixture_loss(const TensorValue& x,
                                                       const TensorValue& w,
                                                       std::size_t depth, bool identity) {
  const Linear f = Linear::from_parameters({"block.weight", w}).value();
  const ResidualBranch branch = [&f](const TensorValue& h) { return f.forward(h); };
  const std::vector<ResidualBranch> blocks(depth, branch);
  auto top = llmfs::nn::stack("fixture", x, blocks, identity);
  if (!top) return std::unexpected(top.error().cause.value_or(AutogradError{}));
  return llmfs::autograd::sum(*top);
}

}  // namespace

// region: run-fixture
Step<Pass> run_fixture(const std::vector<double>& w, std::size_t depth, bool identity) {
  const std::vector<Tensor> point = {LLMFS_TRY_AT("x", Tensor::from(Shape{1, 2}, kInput)),
                                     LLMFS_TRY_AT("W", Tensor::from(Shape{2, 2}, w))};
  Tape tape;
  const TensorValue x = tape.parameter(point[0]);
  const Linear f = LLMFS_TRY_AT("f", Linear::from_parameters({"block.weight",
                                                              tape.parameter(point[1])}));
  const ResidualBranch branch = [&f](const TensorValue& h) { return f.forward(h); };
  const std::vector<ResidualBranch> blocks(depth, branch);
  const TensorValue top = LLMFS_TRY_AT("stack", llmfs::nn::stack("fixture", x, blocks, identity));
  const TensorValue loss = LLMFS_TRY_AT("loss", llmfs::autograd::sum(top));
  LLMFS_TRY_AT("backward", backward(loss, Tensor::scalar(1.0)));
  Pass pass;
  pass.output = ch24_values(LLMFS_TRY_AT("output", top.value()));
  pass.input_gradient = ch24_values(LLMFS_TRY_AT("gx", x.gradient()));
  pass.check = LLMFS_TRY_AT(
      "check", llmfs::autograd::check_tape_gradients(
                   [depth, identity](Tape&, std::span<const TensorValue> in) {
                     return fixture_loss(in[0], in[1], depth, identity);
                   },
                   point));
  return pass;
}
// endregion: run-fixture

// region: deep-stack
// One stack of `depth` blocks SiLU(x·W + b), plain or residual, on inputs x [4, 16]; the
// loss Σ top ⊙ R with R = ±1 fixed, so ∂L/∂top = R whatever the depth.
Step<std::array<double, 3>> measure_stack(std::size_t depth, bool identity) {
  llmfs::SplitMix64 rng(kSeed);
  std::vector<double> x0(kRows * kWidth), signs(kRows * kWidth);
  for (double& v : x0) v = 2.0 * rng.next_unit() - 1.0;
  for (double& v : signs) v = rng.next_unit() < 0.5 ? -1.0 : 1.0;
  Tape tape;
  const TensorValue x = tape.parameter(LLMFS_TRY_AT("x", Tensor::from(Shape{kRows, kWidth}, x0)));
  std::vector<Linear> layers;
  std::vector<ResidualBranch> blocks;
  for (std::size_t i = 0; i < depth; ++i)
    layers.push_back(LLMFS_TRY_AT("block", Linear::create(tape, fmt::format("block{}", i),
                                                          kWidth, kWidth, true, rng)));
  for (const Linear& layer : layers)
    blocks.push_back([&layer](const TensorValue& h) -> std::expected<TensorValue, NnError> {
      const TensorValue z = LLMFS_TRY(layer.forward(h));
      return LLMFS_TRY_AT("silu", llmfs::autograd::silu(z));
    });
  const TensorValue top = LLMFS_TRY_AT("stack", llmfs::nn::stack("deep", x, blocks, identity));
  const TensorValue r = tape.constant(LLMFS_TRY_AT("R", Tensor::from(top.shape(), signs)));
  const TensorValue loss = LLMFS_TRY_AT("loss", sum(LLMFS_TRY_AT("R", multiply(top, r))));
  LLMFS_TRY_AT("backward", backward(loss, Tensor::scalar(1.0)));
  // Depth 0 has no block: its weight gradient is reported as 0.
  const double gw = layers.empty() ? 0.0 : ch24_norm(LLMFS_TRY_AT("gW", layers[0].weight().value.gradient()));
  return std::array<double, 3>{ch24_norm(LLMFS_TRY_AT("gx", x.gradient())), gw,
                              ch24_norm(LLMFS_TRY_AT("top", top.value()), kRows * kWidth)};
}
// endregion: deep-stack

Step<std::vector<DepthRow>> measure_depths() {
  std::vector<DepthRow> table;
  for (const std::size_t depth : kDepths) {
    DepthRow row{depth, {}, {}, {}};
    for (const bool identity : {false, true}) {
      const auto [gx, gw, rms] = LLMFS_TRY(measure_stack(depth, identity));
      row.input_norm[identity] = gx;
      row.weight_norm[identity] = gw;
      row.output_rms[identity] = rms;
    }
    table.push_back(row);
  }
  return table;
}

// region: refusals
// A branch that changes the width, a branch that fails, a released tape.
std::vector<std::array<std::string, 2>> refusals() {
  Tape tape;
  const TensorValue x = tape.parameter(Tensor::zeros(Shape{1, 2}));
  const auto w3 = Linear::from_parameters({"wide.weight", tape.parameter(Tensor::zeros(Shape{2, 3}))});
  const auto w4 = Linear::from_parameters({"narrow.weight", tape.parameter(Tensor::zeros(Shape{4, 2}))});
  const ResidualBranch widen = [&w3](const TensorValue& h) { return w3->forward(h); };
  const ResidualBranch misfit = [&w4](const TensorValue& h) { return w4->forward(h); };
  const ResidualBranch copy = [](const TensorValue& h) { return h; };
  Tape gone;
  const TensorValue lost = gone.parameter(Tensor::zeros(Shape{1, 2}));
  gone.release();
  const std::vector<std::pair<std::string, std::expected<TensorValue, NnError>>> calls = {
      {"branch_changes_width", llmfs::nn::residual("block", x, widen)},
      {"branch_fails", llmfs::nn::residual("block", x, misfit)},
      {"released_tape", llmfs::nn::residual("block", lost, copy)}};
  std::vector<std::array<std::string, 2>> out;
  for (const auto& [name, result] : calls)
    out.push_back({name, result ? std::string("accepted") : fmt::format("{}", result.error())});
  return out;
}
// endregion: refusals

// region: exercises
// 1: W = −I makes I + W = 0; 2: the first depth where the plain fixture's gradient
// falls below 1e-6.
Step<Evidence> solve_exercises(Evidence e) {
  const Pass cancelled = LLMFS_TRY(run_fixture({-1, 0, 0, -1}, kDepth, true));
  e.cancelled_gradient = cancelled.input_gradient;
  for (std::size_t depth = 1; e.plain_depth_below == 0; ++depth) {
    const Pass plain = LLMFS_TRY(run_fixture(kWeight, depth, false));
    if (std::abs(plain.input_gradient[0]) < 1e-6) e.plain_depth_below = depth;
  }
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
