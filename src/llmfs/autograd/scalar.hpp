// Chapter 14
#pragma once
/// \file
/// \brief Reverse-mode automatic differentiation on scalars, written from nothing: a
/// tape of values, each with its parents and the local derivatives towards them, walked
/// backwards once to give the derivative of one output with respect to every value
/// (Chapter 14). Needs nothing from the tensor chapters; Chapter 15's tensor tape grows
/// out of it.

#include <array>
#include <cstddef>
#include <cstdint>
#include <expected>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include <llmfs/core/try.hpp>

namespace llmfs::autograd {

// region: scalar-errors
/// What can go wrong on a scalar tape.
enum class ScalarErrorCode {
  foreign_value,        ///< a Var recorded on another (or a destroyed) tape
  log_of_non_positive,  ///< log(x) with x ≤ 0 or NaN: no real logarithm
  division_by_zero,     ///< a / b with b = 0: neither the value nor ∂/∂b is finite
};

/// The fixed description of a code, e.g. `"log of a non-positive value"`.
[[nodiscard]] std::string_view describe(ScalarErrorCode code) noexcept;

/// One typed scalar-tape error: the code, the operation, and the numbers. Formats as
/// `log: log of a non-positive value (node 2 has value -1)`.
struct ScalarError {
  ScalarErrorCode code;   ///< what went wrong
  std::string operation;  ///< `"add"`, `"log"`, `"backward"`, ...
  std::string detail;     ///< the node and value involved
  /// Equal when every field is equal (useful in tests).
  friend bool operator==(const ScalarError&, const ScalarError&) = default;
};
// endregion: scalar-errors

// region: scalar-node
/// A handle to one value on a ScalarTape: the tape's identity and the node's index.
struct Var {
  std::uint64_t tape = 0;  ///< the id of the tape that recorded it
  std::size_t node = 0;    ///< its position in that tape, in recording order
};

/// One recorded value: the number, and for each parent (0, 1 or 2 of them) its index
/// and the local derivative ∂value/∂parent at the recorded point.
struct ScalarNode {
  std::string_view op =
      "input";            ///< the operation that made it: `"mul"`, `"tanh"`, ...
  double value = 0.0;     ///< the value computed forward
  std::size_t arity = 0;  ///< parents in use: 0 for an input
  std::array<std::size_t, 2> parents{};  ///< indices of earlier nodes
  std::array<double, 2> local{};         ///< ∂value/∂parents[k]
};
// endregion: scalar-node

// region: scalar-tape
/// A scalar tape (a Wengert list): every operation appends one node whose parents are
/// earlier nodes, so recording order is a topological order. Not copyable (two tapes
/// would share an id); movable.
class ScalarTape {
 public:
  /// An empty tape with an id no other tape in this process has.
  ScalarTape();
  ScalarTape(const ScalarTape&) = delete;
  ScalarTape& operator=(const ScalarTape&) = delete;
  ScalarTape(ScalarTape&&) noexcept = default;  ///< moves the nodes and the id
  ScalarTape& operator=(ScalarTape&&) noexcept =
      default;  ///< moves the nodes and the id

  /// Records an input (a leaf with no parents). \param value its value.
  /// \return its handle.
  [[nodiscard]] Var input(double value);
  /// a + b. \return the sum, or ScalarErrorCode::foreign_value.
  [[nodiscard]] std::expected<Var, ScalarError> add(Var a, Var b);
  /// a − b. \return the difference, or ScalarErrorCode::foreign_value.
  [[nodiscard]] std::expected<Var, ScalarError> sub(Var a, Var b);
  /// a · b. \return the product, or ScalarErrorCode::foreign_value.
  [[nodiscard]] std::expected<Var, ScalarError> mul(Var a, Var b);
  /// a / b. \return the quotient, or ScalarErrorCode::division_by_zero or
  /// ScalarErrorCode::foreign_value.
  [[nodiscard]] std::expected<Var, ScalarError> div(Var a, Var b);
  /// e^a. \return the exponential, or ScalarErrorCode::foreign_value.
  [[nodiscard]] std::expected<Var, ScalarError> exp(Var a);
  /// ln a for a > 0. \return the logarithm, or ScalarErrorCode::log_of_non_positive or
  /// ScalarErrorCode::foreign_value.
  [[nodiscard]] std::expected<Var, ScalarError> log(Var a);
  /// tanh a. \return the hyperbolic tangent, or ScalarErrorCode::foreign_value.
  [[nodiscard]] std::expected<Var, ScalarError> tanh(Var a);

  // endregion: scalar-tape
  // region: scalar-tape-sweep
  /// The value of `v`. \return it, or ScalarErrorCode::foreign_value.
  [[nodiscard]] std::expected<double, ScalarError> value(Var v) const;
  /// The derivative of `output` with respect to every node: one reverse sweep from
  /// `output` down to node 0, each node adding local·adjoint into its parents.
  /// \param output the value to differentiate. \return [nodes] adjoints, 1 at
  /// `output`, 0 at nodes it does not depend on (later ones included); or
  /// ScalarErrorCode::foreign_value.
  [[nodiscard]] std::expected<std::vector<double>, ScalarError> backward(
      Var output) const;
  /// Every node, in recording order.
  [[nodiscard]] std::span<const ScalarNode> nodes() const noexcept { return nodes_; }

 private:
  [[nodiscard]] std::expected<void, ScalarError> check(std::string_view operation,
                                                       Var v) const;
  Var record(ScalarNode node);

  std::uint64_t id_;
  std::vector<ScalarNode> nodes_;
};
// endregion: scalar-tape-sweep

}  // namespace llmfs::autograd

/// Formats a ScalarError as `operation: description (detail)`.
template <>
struct fmt::formatter<llmfs::autograd::ScalarError> : fmt::formatter<fmt::string_view> {
  /// Writes the error into the context's output.
  auto format(const llmfs::autograd::ScalarError& error, fmt::format_context& ctx) const
      -> decltype(ctx.out()) {
    return fmt::format_to(ctx.out(), "{}: {} ({})", error.operation,
                          llmfs::autograd::describe(error.code), error.detail);
  }
};
