// Chapter 14
#pragma once
// Chapter 14's frozen fixture, shared by the demo and tests/chapters/ch14_*_test.cpp:
// five expressions, the points where they are differentiated, and exercise 1's cube.

#include <array>
#include <expected>
#include <span>
#include <string_view>
#include <vector>

#include <llmfs/autograd/scalar.hpp>
#include <llmfs/core/try.hpp>

namespace ch14 {

using llmfs::autograd::ScalarError;
using llmfs::autograd::ScalarTape;
using llmfs::autograd::Var;

/// What recording an expression returns: its output's handle, or the tape's error.
using Recorded = std::expected<Var, ScalarError>;
/// An expression: records itself on a tape from its input handles.
using Expression = Recorded (*)(ScalarTape&, std::span<const Var>);

// region: expressions
// Each expression is written once, as calls on the tape; `in` holds its inputs, and
// the result is the output's handle or the tape's error.
[[nodiscard]] inline Recorded square(ScalarTape& t, std::span<const Var> in) {
  return t.mul(in[0], in[0]);
}

[[nodiscard]] inline Recorded fixture(ScalarTape& t, std::span<const Var> in) {
  const Var ab = LLMFS_TRY(t.mul(in[0], in[1]));
  return t.add(ab, in[0]);
}

[[nodiscard]] inline Recorded neuron(ScalarTape& t, std::span<const Var> in) {
  const Var first = LLMFS_TRY(t.mul(in[0], in[1]));
  const Var second = LLMFS_TRY(t.mul(in[2], in[3]));
  const Var sum = LLMFS_TRY(t.add(first, second));
  const Var z = LLMFS_TRY(t.add(sum, in[4]));
  return t.tanh(z);
}

[[nodiscard]] inline Recorded sigmoid(ScalarTape& t, std::span<const Var> in) {
  const Var e = LLMFS_TRY(t.exp(in[0]));
  const Var one = t.input(1.0);  // a constant is an input nobody asks about
  const Var denominator = LLMFS_TRY(t.add(one, e));
  return t.div(e, denominator);
}

[[nodiscard]] inline Recorded mixed(ScalarTape& t, std::span<const Var> in) {
  const Var log_x = LLMFS_TRY(t.log(in[0]));
  const Var numerator = LLMFS_TRY(t.mul(log_x, in[1]));
  const Var gap = LLMFS_TRY(t.sub(in[0], in[1]));
  const Var ratio = LLMFS_TRY(t.div(numerator, gap));
  const Var xy = LLMFS_TRY(t.mul(in[0], in[1]));
  const Var bend = LLMFS_TRY(t.tanh(xy));
  return t.add(ratio, bend);
}

[[nodiscard]] inline Recorded cube(ScalarTape& t, std::span<const Var> in) {
  const Var x2 = LLMFS_TRY(t.mul(in[0], in[0]));
  return t.mul(x2, in[0]);
}
// endregion: expressions

// region: fixture
/// One case: a name, the expression, and the point.
struct Case {
  std::string_view name;      ///< the report key's suffix
  Expression expression;      ///< how to record it
  std::vector<double> point;  ///< one value per input
};

/// The five expressions of the chapter, at their points. The prediction is `fixture`:
/// f(a, b) = a·b + a at (2, −3), f = −4, ∂f/∂a = b + 1 = −2, ∂f/∂b = a = 2.
inline const std::array<Case, 5> kCases{{
    {"square", square, {3.0}},
    {"fixture", fixture, {2.0, -3.0}},
    {"neuron", neuron, {1.0, 0.5, -2.0, 0.25, 0.1}},
    {"sigmoid", sigmoid, {0.5}},
    {"mixed", mixed, {2.0, 0.5}},
}};
// endregion: fixture

/// Exercise 1: x·x·x at 2.
inline constexpr double kCubeX = 2.0;

}  // namespace ch14
