// Chapter 14
#include <atomic>
#include <cmath>

#include <llmfs/autograd/scalar.hpp>

namespace llmfs::autograd {

std::string_view describe(ScalarErrorCode code) noexcept {
  switch (code) {
    case ScalarErrorCode::foreign_value: return "value is not on this tape";
    case ScalarErrorCode::log_of_non_positive: return "log of a non-positive value";
    case ScalarErrorCode::division_by_zero: return "division by zero";
  }
  return "unknown scalar tape error";
}

ScalarTape::ScalarTape() {
  static std::atomic<std::uint64_t> next_id{1};
  id_ = next_id++;
}

// region: scalar-checks
std::expected<void, ScalarError> ScalarTape::check(std::string_view operation,
                                                   Var v) const {
  if (v.tape != id_) {
    return std::unexpected(ScalarError{ScalarErrorCode::foreign_value,
                                       std::string(operation),
                                       fmt::format("node {} of another tape", v.node)});
  }
  if (v.node >= nodes_.size()) {
    return std::unexpected(ScalarError{
        ScalarErrorCode::foreign_value, std::string(operation),
        fmt::format("node {} past the {} nodes of this tape", v.node, nodes_.size())});
  }
  return {};
}
// endregion: scalar-checks

// region: record
Var ScalarTape::record(ScalarNode node) {
  nodes_.push_back(node);
  return Var{id_, nodes_.size() - 1};
}

Var ScalarTape::input(double value) {
  return record({.value = value});
}
// endregion: record

// region: binary-ops
// Each op computes its value and the local derivatives towards its parents, once.
std::expected<Var, ScalarError> ScalarTape::add(Var a, Var b) {
  LLMFS_TRY(check("add", a));
  LLMFS_TRY(check("add", b));
  const double x = nodes_[a.node].value, y = nodes_[b.node].value;
  return record({"add", x + y, 2, {a.node, b.node}, {1.0, 1.0}});  // ∂/∂a = ∂/∂b = 1
}

std::expected<Var, ScalarError> ScalarTape::sub(Var a, Var b) {
  LLMFS_TRY(check("sub", a));
  LLMFS_TRY(check("sub", b));
  const double x = nodes_[a.node].value, y = nodes_[b.node].value;
  return record({"sub", x - y, 2, {a.node, b.node}, {1.0, -1.0}});
}

std::expected<Var, ScalarError> ScalarTape::mul(Var a, Var b) {
  LLMFS_TRY(check("mul", a));
  LLMFS_TRY(check("mul", b));
  const double x = nodes_[a.node].value, y = nodes_[b.node].value;
  return record({"mul", x * y, 2, {a.node, b.node}, {y, x}});  // ∂(xy)/∂x = y, ∂/∂y = x
}

std::expected<Var, ScalarError> ScalarTape::div(Var a, Var b) {
  LLMFS_TRY(check("div", a));
  LLMFS_TRY(check("div", b));
  const double x = nodes_[a.node].value, y = nodes_[b.node].value;
  if (y == 0.0) {
    return std::unexpected(ScalarError{ScalarErrorCode::division_by_zero, "div",
                                       fmt::format("node {} is 0", b.node)});
  }
  return record({"div", x / y, 2, {a.node, b.node}, {1.0 / y, -x / (y * y)}});
}
// endregion: binary-ops

// region: unary-ops
std::expected<Var, ScalarError> ScalarTape::exp(Var a) {
  LLMFS_TRY(check("exp", a));
  const double e = std::exp(nodes_[a.node].value);
  return record({"exp", e, 1, {a.node, 0}, {e, 0.0}});  // (e^x)' = e^x: reuse the value
}

std::expected<Var, ScalarError> ScalarTape::log(Var a) {
  LLMFS_TRY(check("log", a));
  const double x = nodes_[a.node].value;
  if (!(x > 0.0)) {
    return std::unexpected(ScalarError{ScalarErrorCode::log_of_non_positive, "log",
                                       fmt::format("node {} has value {}", a.node, x)});
  }
  return record({"log", std::log(x), 1, {a.node, 0}, {1.0 / x, 0.0}});
}

std::expected<Var, ScalarError> ScalarTape::tanh(Var a) {
  LLMFS_TRY(check("tanh", a));
  const double t = std::tanh(nodes_[a.node].value);
  return record({"tanh", t, 1, {a.node, 0}, {1.0 - t * t, 0.0}});  // tanh' = 1 − tanh²
}
// endregion: unary-ops

// region: backward
std::expected<double, ScalarError> ScalarTape::value(Var v) const {
  LLMFS_TRY(check("value", v));
  return nodes_[v.node].value;
}

// Reverse recording order is a reverse topological order: when node n is reached, every
// node that uses it (all later) has already added its share into adjoint[n].
std::expected<std::vector<double>, ScalarError> ScalarTape::backward(Var output) const {
  LLMFS_TRY(check("backward", output));
  std::vector<double> adjoint(nodes_.size(), 0.0);
  adjoint[output.node] = 1.0;  // ∂output/∂output
  for (std::size_t n = output.node + 1; n-- > 0;) {
    const ScalarNode& node = nodes_[n];
    for (std::size_t k = 0; k < node.arity; ++k)
      adjoint[node.parents[k]] += node.local[k] * adjoint[n];  // chain rule, summed
  }
  return adjoint;
}
// endregion: backward

}  // namespace llmfs::autograd
