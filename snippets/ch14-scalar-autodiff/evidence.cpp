// Chapter 14
#include "evidence.hpp"

#include <llmfs/tensor/tensor.hpp>

namespace ch14 {

using llmfs::autograd::check_gradients;
using llmfs::tensor::Tensor;

namespace {

std::vector<Tensor> ch14_scalars(const std::vector<double>& values) {
  std::vector<Tensor> tensors;
  for (const double v : values)
    tensors.push_back(Tensor::scalar(v));
  return tensors;
}

// region: differentiate
// Chapter 13's verdict on `gradient`: the checker sees scalars as rank-0 tensors and
// rebuilds the expression on a fresh tape for every probe.
[[nodiscard]] Step<GradientCheckReport> check(Expression expression,
                                              const std::vector<double>& point,
                                              const std::vector<double>& gradient) {
  auto f =
      [expression](std::span<const Tensor> x) -> std::expected<Tensor, ScalarError> {
    ScalarTape probe;
    std::vector<Var> in;
    for (const Tensor& v : x)
      in.push_back(probe.input(v.values()[0]));
    const Var out = LLMFS_TRY(expression(probe, in));
    return Tensor::scalar(LLMFS_TRY(probe.value(out)));
  };
  return LLMFS_TRY_AT("gradient check",
                      check_gradients(f, ch14_scalars(point), ch14_scalars(gradient)));
}

// Forward on a fresh tape, one backward sweep, the inputs' adjoints as the gradient,
// then the checker's verdict on it.
[[nodiscard]] Step<Differentiated> differentiate(std::string_view name,
                                                 Expression expression,
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
  d.check = LLMFS_TRY(check(expression, point, d.gradient));
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
[[nodiscard]] Step<Exercises> solve_exercises(const Evidence& e) {
  Exercises x;
  x.cube = LLMFS_TRY(differentiate("cube", cube, {kCubeX}));
  const Differentiated& n = e.cases[2];
  x.neuron_nodes = n.nodes.size();
  for (const ScalarNode& node : n.nodes)
    x.neuron_multiply_adds += node.arity;
  x.neuron_evaluations = n.check.coordinates() * 2;
  const Differentiated& f = e.cases[1];
  x.overwritten = overwriting_backward(f.nodes, f.nodes.size() - 1, f.point.size());
  x.overwritten_check = LLMFS_TRY(check(fixture, f.point, x.overwritten));
  return x;
}
// endregion: exercises

}  // namespace

Step<Evidence> gather() {
  Evidence e;
  for (const Case& c : kCases)
    e.cases.push_back(LLMFS_TRY(differentiate(c.name, c.expression, c.point)));
  e.errors = refusals();
  e.exercises = LLMFS_TRY(solve_exercises(e));
  return e;
}

}  // namespace ch14
