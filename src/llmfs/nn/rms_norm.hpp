// Chapter 25
#pragma once
/// \file
/// \brief RMSNorm, `y = x / √(mean(x²) + ε) ⊙ g` over the last axis (Zhang and Sennrich
/// 2019, in the form LLaMA uses: ε inside the square root; Chapter 25).

#include <cstddef>
#include <expected>
#include <string_view>
#include <vector>

#include <llmfs/autograd/tape.hpp>
#include <llmfs/nn/error.hpp>
#include <llmfs/nn/parameters.hpp>
#include <llmfs/tensor/tensor.hpp>

namespace llmfs::nn {

// region: rms-rows-api
/// The normalization without the gain, row by row over the last axis: the intermediates
/// a report or a backward pass reads.
struct RmsRows {
  tensor::Tensor normalized;  ///< `n = x / r`, the input's shape `[..., d]`
  std::vector<double> rms;  ///< `r = √(mean(x²) + ε)`, one per row (all leading axes)
};

/// `n = x / √(mean(x²) + ε)` for every row of `x [..., d]`. A zero row gives `n = 0`
/// and `r = √ε`. \return NnErrorCode::epsilon when ε is not finite and > 0;
///         NnErrorCode::input_rank when `x` has fewer than two axes `[..., T, d]`;
///         NnErrorCode::zero_width when d = 0 (stage `rms_norm`).
[[nodiscard]] std::expected<RmsRows, NnError> rms_rows(const tensor::Tensor& x,
                                                       double epsilon);

/// `y = x / √(mean(x²) + ε) ⊙ g`, `x [..., d]`, `g [d]` -> `[..., d]`, recorded as one
/// tape op. Backward, per row with `n = x/r` and `ĝ = ∂L/∂y ⊙ g`:
/// `∂L/∂x += (ĝ − n · mean(ĝ ⊙ n)) / r` and `∂L/∂g += Σ_rows ∂L/∂y ⊙ n`.
/// \return the errors of rms_rows(); NnErrorCode::gain_shape when `g` is not `[d]`
///         with d the last axis of x; NnErrorCode::autograd wrapping the tape error (a
///         released tape, or x and g on different tapes).
[[nodiscard]] std::expected<autograd::TensorValue, NnError> rms_norm(
    const autograd::TensorValue& x, const autograd::TensorValue& gain, double epsilon);
// endregion: rms-rows-api

// region: rms-norm-class
/// The RMSNorm layer: a learned gain `g [d]`, named `<name>.weight` as in PyTorch and
/// LLaMA checkpoints, and a fixed ε. Chapter 31's pre-norm block applies one before
/// attention and one before the feed-forward network.
class RMSNorm {
 public:
  /// LLaMA's ε (Touvron et al. 2023): small against activations of order 1.
  static constexpr double default_epsilon = 1e-6;

  /// A layer of width d whose gain starts at 1 (the identity on rows of RMS 1).
  /// \return NnErrorCode::empty_name, NnErrorCode::zero_width, NnErrorCode::epsilon or
  ///         NnErrorCode::released_tape (stage `rms_norm <name>`).
  [[nodiscard]] static std::expected<RMSNorm, NnError> create(
      autograd::Tape& tape, std::string_view name, std::size_t width,
      double epsilon = default_epsilon);
  /// A layer from an exact gain `[d]`.
  /// \return NnErrorCode::empty_name, NnErrorCode::gain_shape, NnErrorCode::zero_width
  ///         or NnErrorCode::epsilon (stage `rms_norm <name>`).
  [[nodiscard]] static std::expected<RMSNorm, NnError> from_parameters(
      NamedParameter gain, double epsilon = default_epsilon);

  /// `x [..., d] -> [..., d]`: rms_norm() with this layer's gain and ε.
  /// \return NnErrorCode::input_rank or NnErrorCode::input_width (stage
  ///         `rms_norm <name>`), or rms_norm()'s errors.
  [[nodiscard]] std::expected<autograd::TensorValue, NnError> forward(
      const autograd::TensorValue& x) const;

  /// The gain `[d]`, named `<name>.weight`.
  [[nodiscard]] const NamedParameter& gain() const noexcept { return gain_; }
  /// ε, added to the mean square inside the root.
  [[nodiscard]] double epsilon() const noexcept { return epsilon_; }
  /// d: the width of the last axis.
  [[nodiscard]] std::size_t width() const noexcept { return gain_.value.shape()[0]; }
  /// The gain alone.
  [[nodiscard]] std::vector<NamedParameter> parameters() const { return {gain_}; }

 private:
  RMSNorm(NamedParameter gain, double epsilon)
      : gain_(std::move(gain)), epsilon_(epsilon) {}
  NamedParameter gain_;
  double epsilon_;
};
// endregion: rms-norm-class

}  // namespace llmfs::nn
