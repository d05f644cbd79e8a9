// Chapter 15
#pragma once
/// \file
/// \brief The reverse-mode tape: nodes, value handles, recording ops and backward
/// (Chapter 15).

#include <cstddef>
#include <expected>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <llmfs/autograd/error.hpp>
#include <llmfs/tensor/tensor.hpp>

namespace llmfs::autograd {

namespace detail {
struct TapeState;
}  // namespace detail

class Tape;

/// A cheap handle to one node of a tape: shared ownership of the tape state plus the
/// node index.
///
/// Copying a handle does not copy the value. The shape is kept in the handle, so
/// shape() works even after the tape is released; value() and gradient() then return
/// AutogradErrorCode::released_input. A default-constructed handle belongs to no tape
/// and behaves like a released one.
class TensorValue {
 public:
  /// An empty handle (every use is AutogradErrorCode::released_input).
  TensorValue() = default;

  /// The node's shape (recorded when the node was created).
  [[nodiscard]] const tensor::Shape& shape() const noexcept { return shape_; }
  /// The node's forward value (a copy).
  /// \return AutogradErrorCode::released_input if the tape was released.
  [[nodiscard]] std::expected<tensor::Tensor, AutogradError> value() const;
  /// The node's forward value without a copy; the pointer is valid until the tape is
  /// released. \return AutogradErrorCode::released_input if the tape was released.
  [[nodiscard]] std::expected<const tensor::Tensor*, AutogradError> value_view() const;
  /// The gradient accumulated by every backward() call so far (zeros if none reached
  /// it). \return AutogradErrorCode::no_gradient for a value that does not require a
  /// gradient,
  ///         AutogradErrorCode::released_input if the tape was released.
  [[nodiscard]] std::expected<tensor::Tensor, AutogradError> gradient() const;
  /// True for parameters and for every value computed from at least one parameter.
  [[nodiscard]] bool requires_gradient() const noexcept { return requires_gradient_; }
  /// The node's index on its tape (creation order, from 0).
  [[nodiscard]] std::size_t node_id() const noexcept { return node_; }
  /// A handle to the tape this value lives on.
  [[nodiscard]] Tape tape() const;

 private:
  friend class Tape;
  friend struct detail::TapeState;
  TensorValue(std::shared_ptr<detail::TapeState> state, std::size_t node,
              tensor::Shape shape, bool requires_gradient);
  std::shared_ptr<detail::TapeState> state_;
  std::size_t node_ = 0;
  tensor::Shape shape_;
  bool requires_gradient_ = false;
};

/// What a backward closure sees: its op's upstream gradient and values, and a way to
/// ADD gradient contributions into its parents.
class BackwardContext {
 public:
  /// ∂loss/∂output of this op, with the output's shape.
  [[nodiscard]] const tensor::Tensor& upstream() const noexcept { return *upstream_; }
  /// This op's forward value.
  [[nodiscard]] const tensor::Tensor& output() const noexcept { return *output_; }
  /// Number of parents, in the order given to record_op().
  [[nodiscard]] std::size_t parent_count() const noexcept {
    return parent_values_.size();
  }
  /// A parent's forward value. Precondition: `parent < parent_count()`.
  [[nodiscard]] const tensor::Tensor& parent_value(std::size_t parent) const noexcept {
    return *parent_values_[parent];
  }
  /// Whether a parent wants a gradient; closures may skip work for those that do not.
  [[nodiscard]] bool needs_gradient(std::size_t parent) const noexcept {
    return parent < needs_.size() && needs_[parent];
  }
  /// Adds `contribution` (which must have the parent's shape) into the parent's
  /// gradient. A parent that does not need a gradient ignores it. \return
  /// AutogradErrorCode::invalid_argument for a bad index,
  ///         AutogradErrorCode::gradient_shape_mismatch for a wrong shape.
  [[nodiscard]] std::expected<void, AutogradError> accumulate(
      std::size_t parent, const tensor::Tensor& contribution);
  /// accumulate() for a contribution the closure gives up: a parent's
  /// first contribution becomes its gradient without a copy (each element replaced by
  /// 0.0 + x in place, the same bits the copying overload stores); a later one is added
  /// exactly as the copying overload adds it. Same errors.
  [[nodiscard]] std::expected<void, AutogradError> accumulate(
      std::size_t parent, tensor::Tensor&& contribution);

 private:
  friend struct detail::TapeState;
  BackwardContext() = default;
  // The checks both accumulate() overloads make: the parent's gradient slot, or nullptr
  // for a parent that needs no gradient.
  [[nodiscard]] std::expected<std::optional<tensor::Tensor>*, AutogradError>
  gradient_slot(std::size_t parent, const tensor::Shape& shape) const;
  const tensor::Tensor* upstream_ = nullptr;
  const tensor::Tensor* output_ = nullptr;
  std::vector<const tensor::Tensor*> parent_values_;
  std::vector<bool> needs_;
  std::vector<std::optional<tensor::Tensor>*> parent_gradients_;
  std::string_view op_;
};

/// A backward closure: reads the context and ADDS each parent's contribution with
/// BackwardContext::accumulate(). It must not capture TensorValue handles (that would
/// make the tape own itself); everything it needs is in the context or captured as
/// plain data.
using BackwardFn = std::function<std::expected<void, AutogradError>(BackwardContext&)>;

/// What the tape says about one node, for reports and diagrams: no values, no
/// closures.
struct NodeInfo {
  std::size_t id = 0;                ///< creation order, from 0
  std::string op;                    ///< `"parameter"`, `"constant"` or the op's name
  std::vector<std::size_t> parents;  ///< parent node ids, in the op's order
  tensor::Shape shape;               ///< the value's shape
  bool requires_gradient = false;    ///< reached by at least one parameter
};

/// A handle to a tape: a growing list of nodes (value, parents, backward closure,
/// gradient).
///
/// Copies share one tape. Nodes are appended in creation order, so a node's parents
/// always have smaller indices and backward runs over indices in decreasing order.
class Tape {
 public:
  /// A new, empty tape.
  Tape();

  /// Records a value that never receives a gradient (inputs, masks, fixtures).
  /// On a released tape the returned handle is unusable (released_input on every use).
  TensorValue constant(tensor::Tensor value);
  /// Records a leaf that requires a gradient (weights, or inputs under a gradient
  /// check). On a released tape the returned handle is unusable (released_input on
  /// every use).
  TensorValue parameter(tensor::Tensor value);

  /// Frees every node. Afterwards every handle on this tape reports
  /// AutogradErrorCode::released_input; nothing crashes. Releasing twice is harmless.
  void release() noexcept;
  /// Whether release() was called.
  [[nodiscard]] bool released() const noexcept;
  /// Number of nodes recorded (0 after release).
  [[nodiscard]] std::size_t node_count() const noexcept;
  /// Resets every accumulated gradient to "none" (gradient() then returns zeros).
  void zero_gradients() noexcept;
  /// Every node, in creation order (empty after release).
  [[nodiscard]] std::vector<NodeInfo> nodes() const;
  /// The node ids whose backward closures the last successful backward() ran, in the
  /// order it ran them (decreasing ids); empty before the first pass.
  [[nodiscard]] const std::vector<std::size_t>& last_backward_order() const noexcept;

  /// True when both handles refer to the same tape.
  friend bool operator==(const Tape& a, const Tape& b) noexcept {
    return a.state_ == b.state_;
  }

 private:
  friend class TensorValue;
  explicit Tape(std::shared_ptr<detail::TapeState> state) : state_(std::move(state)) {}
  std::shared_ptr<detail::TapeState> state_;
};

// region: record-and-backward
/// Records a custom differentiable op: its already computed forward `value`, its
/// parents, and the closure that adds gradients into the parents. The node requires a
/// gradient if any parent does; otherwise the closure is dropped. Other modules use
/// this for ops such as RoPE. \param op the op's name, used as the stage in errors
/// raised during backward. \param value the forward result, already computed. \param
/// parents the inputs the op read (at least one). \param backward the closure that adds
/// the upstream gradient into the parents. \return AutogradErrorCode::invalid_argument
/// if `parents` is empty,
///         AutogradErrorCode::released_input or AutogradErrorCode::different_tapes.
[[nodiscard]] std::expected<TensorValue, AutogradError> record_op(
    std::string_view op, tensor::Tensor value, std::vector<TensorValue> parents,
    BackwardFn backward);

/// Reverse-mode pass from `output` seeded with `upstream` = ∂loss/∂output (for a scalar
/// loss, the rank-0 tensor 1.0). Every node's gradient of this pass is summed over all
/// paths (a value used twice receives both contributions) and then ADDED to what
/// earlier passes left: calling backward twice with the same seed doubles the
/// gradients. Call Tape::zero_gradients() to start over. An output that requires no
/// gradient is a no-op. \return AutogradErrorCode::seed_shape_mismatch,
/// AutogradErrorCode::released_input, or the
///         first error raised by a backward closure (no gradient is updated in that
///         case).
[[nodiscard]] std::expected<void, AutogradError> backward(
    const TensorValue& output, const tensor::Tensor& upstream);

// endregion: record-and-backward
}  // namespace llmfs::autograd
