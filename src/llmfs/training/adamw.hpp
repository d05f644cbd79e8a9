// Chapter 22
#pragma once
/// \file
/// \brief AdamW: Adam's moment estimates with weight decay applied to the parameters
/// directly, outside the gradient (Loshchilov and Hutter, "Decoupled weight decay
/// regularization", ICLR 2019), in named parameter groups, with a state that saves and
/// restores exactly (Chapter 22; checkpoints in Chapter 35).

#include <cstddef>
#include <cstdint>
#include <expected>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <llmfs/core/error.hpp>
#include <llmfs/nn/parameters.hpp>
#include <llmfs/tensor/error.hpp>
#include <llmfs/tensor/tensor.hpp>

namespace llmfs::training {

// region: adamw-types
/// The hyperparameters every group shares (PyTorch's defaults).
struct AdamWHyper {
  double learning_rate = 1e-3;  ///< η > 0: the step size
  double beta1 = 0.9;           ///< β₁ in [0, 1): decay of the first moment m
  double beta2 = 0.999;         ///< β₂ in [0, 1): decay of the second moment v
  double epsilon = 1e-8;        ///< ε ≥ 0: added to √v̂ so the divisor is never 0
};

/// One parameter the optimizer updates: its name and shape.
struct ParameterSlot {
  std::string name;     ///< e.g. `block.ffn.weight`; unique over all groups
  tensor::Shape shape;  ///< the shape of its value, gradient and moments
};

/// A named group of parameters sharing one weight decay λ.
struct ParameterGroup {
  std::string name;           ///< e.g. `decay`, `no_decay`
  double weight_decay = 0.0;  ///< λ ≥ 0: each step multiplies θ by 1 − ηλ
  std::vector<ParameterSlot> parameters;  ///< in the order of values and gradients
};

/// Everything the optimizer remembers between steps; restore() puts it back exactly.
struct AdamWState {
  std::uint64_t step = 0;                     ///< t: updates done so far
  std::vector<tensor::Tensor> first_moment;   ///< m per parameter, in slot order
  std::vector<tensor::Tensor> second_moment;  ///< v per parameter, in slot order

  /// Equal when t and every moment are equal, bit for bit.
  friend bool operator==(const AdamWState&, const AdamWState&) = default;
};
// endregion: adamw-types

// region: adamw-errors
/// What is wrong with an optimizer's configuration or with one step's inputs.
enum class OptimizerErrorCode {
  bad_hyperparameter,   ///< η ≤ 0, β outside [0, 1), ε < 0, λ < 0, or not finite
  empty_name,           ///< a group or parameter name is empty
  duplicate_name,       ///< two parameters (or two groups) share a name
  count_mismatch,       ///< values, gradients or moments ≠ one per parameter
  shape_mismatch,       ///< a value, gradient or moment has the wrong shape
  non_finite_gradient,  ///< a gradient element is NaN or ±∞
  tensor,               ///< a tensor operation failed (see the cause)
};

/// The fixed description of a code, e.g. `"gradient is not finite"`.
[[nodiscard]] std::string_view describe(OptimizerErrorCode code) noexcept;

/// An optimizer error: code, stage (`"adamw config"`, `"adamw step"`, `"adamw
/// restore"`), a detail naming the parameter and the numbers, and for
/// OptimizerErrorCode::tensor the TensorError it wraps.
using OptimizerError =
    StageError<OptimizerErrorCode, OptimizerErrorCode::tensor, tensor::TensorError>;
// endregion: adamw-errors

// region: adamw-class
/// AdamW over named groups. Values and gradients are passed to step() as one tensor
/// per parameter, in group order and, within a group, slot order.
class AdamW {
 public:
  /// An optimizer at step 0 with zero moments.
  /// \return bad_hyperparameter, empty_name or duplicate_name (stage `adamw config`).
  [[nodiscard]] static std::expected<AdamW, OptimizerError> create(
      AdamWHyper hyper, std::vector<ParameterGroup> groups);

  /// One update, t ← t + 1, for every parameter with decay λ of its group:
  /// θ ← θ(1 − ηλ); m ← β₁m + (1 − β₁)g; v ← β₂v + (1 − β₂)g²;
  /// θ ← θ − η/(1 − β₁ᵗ) · m / (√v / √(1 − β₂ᵗ) + ε), in PyTorch 1.13's order of
  /// operations (`torch.optim.AdamW`, `_single_tensor_adamw`). Every input is checked
  /// before anything changes. \return count_mismatch, shape_mismatch or
  /// non_finite_gradient naming the parameter (stage `adamw step`), changing nothing.
  [[nodiscard]] std::expected<void, OptimizerError> step(
      std::span<tensor::Tensor> values, std::span<const tensor::Tensor> gradients);

  /// The state, for saving (Chapter 35).
  [[nodiscard]] const AdamWState& state() const noexcept { return state_; }
  /// Replaces the state with a saved one, after checking it fits the parameters.
  /// \return count_mismatch or shape_mismatch (stage `adamw restore`), changing
  /// nothing.
  [[nodiscard]] std::expected<void, OptimizerError> restore(AdamWState saved);

  /// The groups, as given to create().
  [[nodiscard]] std::span<const ParameterGroup> groups() const noexcept {
    return groups_;
  }
  /// The hyperparameters.
  [[nodiscard]] const AdamWHyper& hyper() const noexcept { return hyper_; }
  /// Sets η for later steps (schedules: Chapters 23, 33). \return bad_hyperparameter.
  [[nodiscard]] std::expected<void, OptimizerError> set_learning_rate(double eta);

 private:
  AdamW(AdamWHyper hyper, std::vector<ParameterGroup> groups, AdamWState state)
      : hyper_(hyper), groups_(std::move(groups)), state_(std::move(state)) {}
  [[nodiscard]] std::expected<void, OptimizerError> check_step(
      std::span<const tensor::Tensor> values,
      std::span<const tensor::Tensor> gradients) const;

  AdamWHyper hyper_;
  std::vector<ParameterGroup> groups_;
  AdamWState state_;
};
// endregion: adamw-class

// region: decay-rule
/// The course's rule for weight decay: a parameter of rank ≥ 2 (a matrix: linear
/// weights, the token embedding that Chapter 32 ties to the output layer) goes into
/// group `decay` with λ = `weight_decay`; a parameter of rank ≤ 1 (RMSNorm gains,
/// biases) into group `no_decay` with λ = 0. Names, shapes and order come from
/// `parameters` (Chapter 17); a group with no member is left out.
[[nodiscard]] std::vector<ParameterGroup> decay_groups(
    const nn::NamedParameters& parameters, double weight_decay);
// endregion: decay-rule

}  // namespace llmfs::training
