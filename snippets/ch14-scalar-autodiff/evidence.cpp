// Chapter 14
#include "evidence.hpp"

#include <llmfs/tensor/tensor.hpp>

namespace ch14 {

using llmfs::autograd::check_gradients;
using llmfs::tensor::Tensor;

// region: expressions
// Each expression is written once, as calls on the tape; `in` holds its inputs.
std::expected<Var, ScalarError> square(ScalarTape& t, std::span<const Var> in) {
  return t.mul(in[0], in[0]);
}

std::expected<Var, ScalarError> fixture(ScalarTape& t, std::span<const Var> in) {
  const Var ab = LLMFS_TRY(t.mul(in[0], in[1]));
  return t.add(ab, in[0]);
}

std::expected<Var, ScalarError> neuron(ScalarTape& t, std::span<const Var> in) {
  const Var first = LLMFS_TRY(t.mul(in[0], in[1]));
  const Var second = LLMFS_TRY(t.mul(in[2], in[3]));
  const Var sum = LLMFS_TRY(t.add(first, second));
  const Var z = LLMFS_TRY(t.add(sum, in[4]));
  return t.tanh(z);
}

std::expected<Var, ScalarError> sigmoid(ScalarTape& t, std::span<const Var> in) {
  const Var e = LLMFS_TRY(t.exp(in[0]));
  const Var one = t.input(1.0);  // a constant is an input nobody asks about
  const Var denominator = LLMFS_TRY(t.add(one, e));
  return t.div(e, denominator);
}

std::expected<Var, ScalarError> mixed(ScalarTape& t, std::span<const Var> in) {
  const Var log_x = LLMFS_TRY(t.log(in[0]));
  const Var numerator = LLMFS_TRY(t.mul(log_x, in[1]));
  const Var gap = LLMFS_TRY(t.sub(in[0], in[1]));
  const Var ratio = LLMFS_TRY(t.div(numerator, gap));
  const Var xy = LLMFS_TRY(t.mul(in[0], in[1]));
  const Var bend = LLMFS_TRY(t.tanh(xy));
  return t.add(ratio, bend);
}

std::expected<Var, ScalarError> cube(ScalarTape& t, std::span<const Var> in) {
  const Var x2 = LLMFS_TRY(t.mul(in[0], in[0]));
  return t.mul(x2, in[0]);
}
// endregion: expressions

namespace {

std::vector<Tensor> ch14_scalars(const std::vector<double>& values) {
  std::vector<Tensor> tensors;
  for (const double v : values)
    tensors.push_back(Tensor::scalar(v));
  return tensors;
}

}  // namespace

// region: differentiate
// Forward on a fresh tape, one backward sweep, and the inputs' adjoints as the
// gradient; then Chapter 13's checker, which rebuilds the expression on a new tape per
// probe.
Step<Differentiated> differentiate(std::string_view name, Expression expression,
                                   const std::vector<double>& point) {
  ScalarTape tape;
  std::vector<Var> inputs;
  for (const double v : point)
    inputs.push_back(tape.input(v));
  const Var output = LLMFS_TRY_AT("forward", expression(tape, inputs));
  Differentiated d;
  d.name = name;
  d.point = point;
  d.value = LLMFS_TRY_AT("value", tape.value(output));
  d.adjoints = LLMFS_TRY_AT("backward", tape.backward(output));
  d.gradient.assign(d.adjoints.begin(), d.adjoints.begin() + point.size());
  d.nodes.assign(tape.nodes().begin(), tape.nodes().end());
  auto f =
      [expression](std::span<const Tensor> x) -> std::expected<Tensor, ScalarError> {
    ScalarTape probe;
    std::vector<Var> in;
    for (const Tensor& v : x)
      in.push_back(probe.input(v.values()[0]));
    const Var out = LLMFS_TRY(expression(probe, in));
    return Tensor::scalar(LLMFS_TRY(probe.value(out)));
  };
  d.check = LLMFS_TRY_AT("gradient check", check_gradients(f, ch14_scalars(point),
                                                           ch14_scalars(d.gradient)));
  return d;
}
// endregion: differentiate

// region: overwriting-backward
// Exercise 3's bug: `=` where backward has `+=`, so a value used twice keeps only the
// share written last, from the use nearest the inputs.
std::vector<double> overwriting_backward(const std::vector<ScalarNode>& nodes,
                                         std::size_t output, std::size_t inputs) {
  std::vector<double> adjoint(nodes.size(), 0.0);
  adjoint[output] = 1.0;
  for (std::size_t n = output + 1; n-- > 0;)
    for (std::size_t k = 0; k < nodes[n].arity; ++k)
      adjoint[nodes[n].parents[k]] = nodes[n].local[k] * adjoint[n];  // the bug
  return {adjoint.begin(), adjoint.begin() + inputs};
}
// endregion: overwriting-backward

// region: refusals
// Operations the tape refuses, each error as text: outside a function's domain, or a
// handle the tape did not record.
std::vector<std::array<std::string, 2>> refusals() {
  ScalarTape tape;
  const Var minus_one = tape.input(-1.0), zero = tape.input(0.0);
  Var stale;
  {
    ScalarTape released;
    stale = released.input(2.0);
  }  // `released` is gone; `stale` still names its node 0
  ScalarTape other;
  const Var foreign = other.input(5.0);
  using snippets::error_text;
  return {{"log_negative", error_text(tape.log(minus_one))},
          {"log_zero", error_text(tape.log(zero))},
          {"divide_by_zero", error_text(tape.div(minus_one, zero))},
          {"released_tape", error_text(tape.add(stale, zero))},
          {"foreign_backward", error_text(tape.backward(foreign))}};
}
// endregion: refusals

// region: exercises
// 1: x·x·x at 2; 2: the neuron's tape size against a check's evaluations; 3: the
// fixture's gradient without accumulation, and the checker's verdict on it.
Step<Exercises> solve_exercises(const Evidence& e) {
  Exercises x;
  x.cube = LLMFS_TRY(differentiate("cube", cube, {kCubeX}));
  const Differentiated& n = e.cases[2];
  x.neuron_nodes = n.nodes.size();
  for (const ScalarNode& node : n.nodes)
    x.neuron_multiply_adds += node.arity;
  x.neuron_evaluations = n.check.coordinates() * 2;
  const Differentiated& f = e.cases[1];
  x.overwritten = overwriting_backward(f.nodes, f.nodes.size() - 1, f.point.size());
  auto recorded = [](std::span<const Tensor> v) -> std::expected<Tensor, ScalarError> {
    return Tensor::scalar(v[0].values()[0] * v[1].values()[0] + v[0].values()[0]);
  };
  x.overwritten_check = LLMFS_TRY_AT(
      "gradient check",
      check_gradients(recorded, ch14_scalars(f.point), ch14_scalars(x.overwritten)));
  return x;
}
// endregion: exercises

// region: gather
Step<Evidence> gather() {
  Evidence e;
  for (const Case& c : kCases)
    e.cases.push_back(LLMFS_TRY(differentiate(c.name, c.expression, c.point)));
  e.errors = refusals();
  e.exercises = LLMFS_TRY(solve_exercises(e));
  return e;
}
// endregion: gather

}  // namespace ch14
