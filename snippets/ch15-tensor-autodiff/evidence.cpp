// Chapter 15
#include "evidence.hpp"

#include <algorithm>
#include <cstring>

#include <llmfs/core/try.hpp>
#include <llmfs/tensor/broadcast.hpp>

namespace ch15 {

using llmfs::autograd::backward;
using llmfs::autograd::check_tape_gradients;
namespace ag = llmfs::autograd;

namespace {

Tensor ch15_tensor(Shape shape, std::span<const double> values) {
  return Tensor::from(std::move(shape), {values.begin(), values.end()}).value();
}

std::vector<TensorValue> ch15_parameters(Tape& tape, std::vector<Tensor> inputs) {
  std::vector<TensorValue> out;
  for (Tensor& t : inputs)
    out.push_back(tape.parameter(std::move(t)));
  return out;
}

// The gradients of the given handles.
[[nodiscard]] Step<std::vector<Tensor>> ch15_gradients(
    std::span<const TensorValue> values) {
  std::vector<Tensor> out;
  for (const TensorValue& v : values)
    out.push_back(LLMFS_TRY_AT("gradient", v.gradient()));
  return out;
}

}  // namespace

// region: fixture-loss
// The prediction as four tape ops; each returns a handle to a new node.
std::expected<std::vector<TensorValue>, AutogradError> record_fixture(
    std::span<const TensorValue> in) {
  const TensorValue xw = LLMFS_TRY(ag::matmul(in[0], in[1]));  // [2,2]·[2,2] -> [2,2]
  const TensorValue y = LLMFS_TRY(ag::add(xw, in[2]));         // + b [2], over the rows
  const TensorValue squared = LLMFS_TRY(ag::multiply(y, y));   // parents [y, y]
  const TensorValue loss = LLMFS_TRY(ag::sum(squared));        // rank 0
  return std::vector<TensorValue>{in[0], in[1], in[2], xw, y, squared, loss};
}

std::expected<TensorValue, AutogradError> fixture_loss(
    Tape&, std::span<const TensorValue> in) {
  const auto nodes = LLMFS_TRY(record_fixture(in));
  return nodes.back();
}
// endregion: fixture-loss

std::expected<TensorValue, AutogradError> linear_loss(Tape&,
                                                      std::span<const TensorValue> in) {
  const TensorValue xw = LLMFS_TRY(ag::matmul(in[0], in[1]));
  const TensorValue y = LLMFS_TRY(ag::add(xw, in[2]));
  return ag::sum(y);
}

std::vector<Tensor> fixture_inputs() {
  return {ch15_tensor(Shape{2, 2}, kX), ch15_tensor(Shape{2, 2}, kW),
          ch15_tensor(Shape{2}, kB)};
}

std::vector<double> uniform_values(std::uint64_t seed, std::size_t count) {
  std::vector<double> out;
  std::uint64_t state = seed;
  for (std::size_t i = 0; i < count; ++i) {
    state += 0x9E3779B97F4A7C15ULL;
    std::uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    out.push_back(static_cast<double>(z >> 11) * 0x1.0p-53 * 2.0 - 1.0);
  }
  return out;
}

// One small case per op; the shapes exercise broadcasting where the op broadcasts.
const std::vector<OpCase>& op_cases() {
  using In = std::span<const TensorValue>;
  static const std::vector<OpCase> cases{
      {"add", {Shape{2, 3}, Shape{3}}, [](In in) { return ag::add(in[0], in[1]); }},
      {"subtract",
       {Shape{2, 1, 3}, Shape{2, 1}},
       [](In in) { return ag::subtract(in[0], in[1]); }},
      {"multiply",
       {Shape{2, 3}, Shape{2, 1}},
       [](In in) { return ag::multiply(in[0], in[1]); }},
      {"scale", {Shape{2, 3}}, [](In in) { return ag::scale(in[0], -1.5); }},
      {"matmul",
       {Shape{2, 2, 3}, Shape{3, 2}},
       [](In in) { return ag::matmul(in[0], in[1]); }},
      {"reshape",
       {Shape{2, 3}},
       [](In in) {
         return ag::reshape(in[0], Shape{3, 2});
       }},
      {"transpose", {Shape{2, 3, 2}}, [](In in) { return ag::transpose(in[0], 0, 2); }},
      {"slice_last_axis",
       {Shape{2, 4}},
       [](In in) { return ag::slice_last_axis(in[0], 1, 3); }},
      {"sum", {Shape{2, 3}}, [](In in) { return ag::sum(in[0]); }},
  };
  return cases;
}

// Record the prediction, seed backward with ∂loss/∂loss = 1, then read every node.
Step<FixtureRun> run_fixture() {
  Tape tape;
  const auto in = ch15_parameters(tape, fixture_inputs());
  const auto nodes = LLMFS_TRY_AT("forward", record_fixture(in));
  LLMFS_TRY_AT("backward", backward(nodes.back(), Tensor::scalar(1.0)));
  FixtureRun run;
  run.loss = LLMFS_TRY_AT("loss", nodes.back().value()).values()[0];
  run.nodes = tape.nodes();
  run.order = tape.last_backward_order();
  for (const TensorValue& node : nodes) {
    run.values.push_back(LLMFS_TRY_AT("value", node.value()));
    auto gradient = node.gradient();  // a constant has none: kept as nullopt
    run.gradients.push_back(gradient ? std::optional<Tensor>(*gradient) : std::nullopt);
  }
  run.check = LLMFS_TRY_AT("gradient check",
                           check_tape_gradients(fixture_loss, fixture_inputs()));
  return run;
}

// The same closures on the same values, one leaf per parent slot: a parent used twice
// (the square's [4,4]) gets two leaves, so its two shares are kept apart.
Step<std::vector<EdgeShare>> edge_shares(const FixtureRun& run) {
  std::vector<EdgeShare> shares;
  for (std::size_t step = 0; step < run.order.size(); ++step) {
    const NodeInfo& node = run.nodes[run.order[step]];
    const auto found = std::find_if(op_cases().begin(), op_cases().end(),
                                    [&](const OpCase& c) { return c.name == node.op; });
    if (found == op_cases().end() || !run.gradients[node.id])
      return llmfs::reject(
          snippets::StepCode::failed, "edge shares",
          "no op case or gradient for node " + std::to_string(node.id));
    Tape tape;
    std::vector<TensorValue> leaves;
    for (const std::size_t parent : node.parents)
      leaves.push_back(tape.parameter(run.values[parent]));
    const TensorValue out = LLMFS_TRY_AT("edge shares", found->op(leaves));
    LLMFS_TRY_AT("edge shares", backward(out, *run.gradients[node.id]));
    for (std::size_t slot = 0; slot < leaves.size(); ++slot)
      shares.push_back({step, node.id, slot, node.parents[slot],
                        LLMFS_TRY_AT("edge shares", leaves[slot].gradient())});
  }
  return shares;
}

// backward(loss, seed) `passes` times on one tape, never zeroing in between.
Step<std::vector<Tensor>> fixture_gradients(double seed, int passes) {
  Tape tape;
  const auto in = ch15_parameters(tape, fixture_inputs());
  const TensorValue loss = LLMFS_TRY_AT("forward", fixture_loss(tape, in));
  for (int pass = 0; pass < passes; ++pass)
    LLMFS_TRY_AT("backward", backward(loss, Tensor::scalar(seed)));
  return ch15_gradients(in);
}

// Seeding Y (node 4) with ∂loss/∂Y = 2Y instead of seeding the loss with 1.
Step<std::vector<Tensor>> seeded_at_y() {
  Tape tape;
  const auto in = ch15_parameters(tape, fixture_inputs());
  const auto nodes = LLMFS_TRY_AT("forward", record_fixture(in));
  const Tensor y = LLMFS_TRY_AT("value", nodes[4].value());
  const Tensor seed = LLMFS_TRY_AT("seed", llmfs::tensor::scale(y, 2.0));
  LLMFS_TRY_AT("backward", backward(nodes[4], seed));
  return ch15_gradients(in);
}

// The same random case recorded twice on fresh tapes: every gradient bit must agree.
Step<bool> replay_is_bitwise(std::size_t& elements) {
  const std::vector<Tensor> point{ch15_tensor(Shape{3, 4}, uniform_values(7, 12)),
                                  ch15_tensor(Shape{4, 2}, uniform_values(8, 8)),
                                  ch15_tensor(Shape{2}, uniform_values(9, 2))};
  std::array<std::vector<Tensor>, 2> runs;
  for (auto& run : runs) {
    Tape tape;
    const auto in = ch15_parameters(tape, point);
    const TensorValue loss = LLMFS_TRY_AT("forward", fixture_loss(tape, in));
    LLMFS_TRY_AT("backward", backward(loss, Tensor::scalar(1.0)));
    run = LLMFS_TRY(ch15_gradients(in));
  }
  bool same = true;
  elements = 0;
  for (std::size_t i = 0; i < point.size(); ++i) {
    const auto a = runs[0][i].values(), b = runs[1][i].values();
    same = same && std::memcmp(a.data(), b.data(), a.size_bytes()) == 0;
    elements += a.size();
  }
  return same;
}

// region: check-every-op
// loss = Σ op(inputs) ⊙ C with C fixed, so the upstream gradient is not uniform; the
// inputs and C come from SplitMix64 seeds 1500 + 10·case + input (C: + 9).
Step<std::vector<OpCheck>> check_every_op() {
  std::vector<OpCheck> out;
  for (std::size_t k = 0; k < op_cases().size(); ++k) {
    const OpCase& c = op_cases()[k];
    const std::uint64_t base = 1500 + 10 * k;
    std::vector<Tensor> inputs;
    for (std::size_t i = 0; i < c.shapes.size(); ++i) {
      const std::size_t n = c.shapes[i].element_count().value();
      inputs.push_back(ch15_tensor(c.shapes[i], uniform_values(base + i, n)));
    }
    auto loss = [&c, base](Tape& tape, std::span<const TensorValue> in)
        -> std::expected<TensorValue, AutogradError> {
      const TensorValue y = LLMFS_TRY(c.op(in));
      const TensorValue weights = tape.constant(ch15_tensor(
          y.shape(), uniform_values(base + 9, y.shape().element_count().value())));
      return ag::sum(LLMFS_TRY(ag::multiply(y, weights)));
    };
    out.push_back({std::string(c.name), c.shapes,
                   LLMFS_TRY_AT(c.name, check_tape_gradients(loss, inputs))});
  }
  return out;
}
// endregion: check-every-op

// Calls the tape refuses, each error as text: a released tape, a wrong seed, values of
// two tapes, and a tensor shape error wrapped with the op's name.
std::vector<std::array<std::string, 2>> refusals() {
  using snippets::error_text;
  Tape tape, other;
  const auto in = ch15_parameters(tape, fixture_inputs());
  const auto loss = fixture_loss(tape, in);
  const TensorValue foreign = other.parameter(Tensor::zeros(Shape{2}));
  const TensorValue tall = tape.constant(Tensor::zeros(Shape{3, 2}));
  std::vector<std::array<std::string, 2>> out{
      {"seed_shape", error_text(backward(*loss, Tensor::zeros(Shape{2, 2})))},
      {"different_tapes", error_text(ag::add(in[2], foreign))},
      {"matmul_shape", error_text(ag::matmul(in[0], tall))}};
  tape.release();
  out.push_back({"released_value", error_text(in[1].value())});
  out.push_back({"released_op", error_text(ag::add(in[1], in[1]))});
  out.push_back(
      {"released_backward", error_text(backward(*loss, Tensor::scalar(1.0)))});
  return out;
}

// region: exercises
// 1: X recorded as a constant; 2: Σ (X·W + b); 3: two passes without zero_gradients(),
// judged by the checker against the true gradient.
Step<Exercises> solve_exercises() {
  Exercises x;
  {
    Tape tape;
    const auto inputs = fixture_inputs();
    const std::vector<TensorValue> in{
        tape.constant(inputs[0]), tape.parameter(inputs[1]), tape.parameter(inputs[2])};
    const TensorValue loss = LLMFS_TRY_AT("forward", fixture_loss(tape, in));
    LLMFS_TRY_AT("backward", backward(loss, Tensor::scalar(1.0)));
    x.constant_x_error = snippets::error_text(in[0].gradient());
    x.constant_x_wb = LLMFS_TRY(ch15_gradients(std::span(in).subspan(1)));
  }
  {
    Tape tape;
    const auto in = ch15_parameters(tape, fixture_inputs());
    LLMFS_TRY_AT("backward", backward(LLMFS_TRY_AT("forward", linear_loss(tape, in)),
                                      Tensor::scalar(1.0)));
    x.linear = LLMFS_TRY(ch15_gradients(in));
  }
  x.twice = LLMFS_TRY(fixture_gradients(1.0, 2));
  auto f = [](std::span<const Tensor> v) {
    return llmfs::autograd::evaluate_loss(fixture_loss, v);
  };
  x.twice_check = LLMFS_TRY_AT(
      "gradient check", llmfs::autograd::check_gradients(f, fixture_inputs(), x.twice));
  return x;
}
// endregion: exercises

Step<Evidence> gather() {
  Evidence e;
  e.fixture = LLMFS_TRY(run_fixture());
  e.fixture.shares = LLMFS_TRY(edge_shares(e.fixture));
  e.seed_two = LLMFS_TRY(fixture_gradients(2.0, 1));
  e.seeded_at_y = LLMFS_TRY(seeded_at_y());
  const auto once = LLMFS_TRY(fixture_gradients(1.0, 1));
  e.seeded_at_y_identical = true;
  for (std::size_t i = 0; i < once.size(); ++i) {
    const auto a = once[i].values(), b = e.seeded_at_y[i].values();
    e.seeded_at_y_identical =
        e.seeded_at_y_identical && std::memcmp(a.data(), b.data(), a.size_bytes()) == 0;
  }
  e.replay_identical = LLMFS_TRY(replay_is_bitwise(e.replay_elements));
  e.checks = LLMFS_TRY(check_every_op());
  e.errors = refusals();
  e.exercises = LLMFS_TRY(solve_exercises());
  return e;
}

}  // namespace ch15
