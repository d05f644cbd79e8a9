// Chapter 14
#pragma once
// Chapter 14's frozen fixture, shared by the demo and tests/chapters/ch14_*_test.cpp:
// five expressions and the points where they are differentiated.

#include <array>
#include <expected>
#include <span>
#include <string_view>
#include <vector>

#include <llmfs/autograd/scalar.hpp>

namespace ch14 {

using llmfs::autograd::ScalarError;
using llmfs::autograd::ScalarTape;
using llmfs::autograd::Var;

/// An expression: records itself on a tape from its input handles.
using Expression = std::expected<Var, ScalarError> (*)(ScalarTape&,
                                                       std::span<const Var>);

/// x·x: one value used twice by one operation.
[[nodiscard]] std::expected<Var, ScalarError> square(ScalarTape& t,
                                                     std::span<const Var> in);
/// a·b + a: the prediction; a is used by two operations.
[[nodiscard]] std::expected<Var, ScalarError> fixture(ScalarTape& t,
                                                      std::span<const Var> in);
/// tanh(x1·w1 + x2·w2 + bias): one neuron.
[[nodiscard]] std::expected<Var, ScalarError> neuron(ScalarTape& t,
                                                     std::span<const Var> in);
/// e^x / (1 + e^x): the logistic sigmoid, e^x used twice.
[[nodiscard]] std::expected<Var, ScalarError> sigmoid(ScalarTape& t,
                                                      std::span<const Var> in);
/// log(x)·y / (x − y) + tanh(x·y): every operation at once.
[[nodiscard]] std::expected<Var, ScalarError> mixed(ScalarTape& t,
                                                    std::span<const Var> in);
/// x·x·x: exercise 1, x used three times.
[[nodiscard]] std::expected<Var, ScalarError> cube(ScalarTape& t,
                                                   std::span<const Var> in);

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
