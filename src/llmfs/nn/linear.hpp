// Chapter 19
#pragma once
/// \file
/// \brief The linear layer `Y = X·W (+ b)` with W stored `[in, out]` (Chapter 19).

#include <cstddef>
#include <expected>
#include <optional>
#include <string_view>
#include <vector>

#include <llmfs/autograd/tape.hpp>
#include <llmfs/core/splitmix64.hpp>
#include <llmfs/nn/error.hpp>
#include <llmfs/nn/parameters.hpp>

namespace llmfs::nn {

// region: linear-create-api
/// A learned affine map over the last axis: `[..., in] -> [..., out]`, `Y = X·W + b`.
///
/// The weight is stored `[in, out]` and applied on the right, as in Vaswani et al.
/// (2017); the bias is optional (attention layers have none). Parameters are named
/// `<name>.weight` and `<name>.bias`. PyTorch's `nn.Linear` stores the transpose,
/// `[out, in]`, and computes `X·Wᵀ + b`: the same map, the other layout (Chapter 19).
class Linear {
 public:
  /// Creates `<name>.weight` `[in, out]` and, if `bias`, `<name>.bias` `[out]` as
  /// parameters on `tape`, drawn in that order by uniform_fan_in() with fan-in `in`
  /// (bound `1/√in`). Everything is validated before the first draw: a rejected call
  /// leaves `rng` unchanged. \return NnErrorCode::empty_name, NnErrorCode::zero_width,
  /// NnErrorCode::size_overflow or
  ///         NnErrorCode::released_tape (stage `linear <name>`).
  [[nodiscard]] static std::expected<Linear, NnError> create(autograd::Tape& tape,
                                                             std::string_view name,
                                                             std::size_t in,
                                                             std::size_t out, bool bias,
                                                             SplitMix64& rng);

  /// A layer from exact parameters: `weight` `[in, out]` and an optional `bias`
  /// `[out]`. \return NnErrorCode::empty_name, NnErrorCode::weight_rank,
  /// NnErrorCode::zero_width,
  ///         NnErrorCode::bias_shape, NnErrorCode::duplicate_name,
  ///         NnErrorCode::duplicate_node or NnErrorCode::different_tapes (stage `linear
  ///         <weight name>`).
  [[nodiscard]] static std::expected<Linear, NnError> from_parameters(
      NamedParameter weight, std::optional<NamedParameter> bias = std::nullopt);
  // endregion: linear-create-api

  // region: linear-forward-api
  /// `x [..., in] -> [..., out]`: `x·W`, plus `b` broadcast over the leading axes.
  /// \return NnErrorCode::input_rank (rank < 2), NnErrorCode::input_width, or
  ///         NnErrorCode::autograd wrapping the tape error (e.g. a released input).
  [[nodiscard]] std::expected<autograd::TensorValue, NnError> forward(
      const autograd::TensorValue& x) const;

  /// The weight `[in, out]`.
  [[nodiscard]] const NamedParameter& weight() const noexcept { return weight_; }
  /// The bias `[out]`, if any.
  [[nodiscard]] const std::optional<NamedParameter>& bias() const noexcept {
    return bias_;
  }
  /// The weight, then the bias if there is one.
  [[nodiscard]] std::vector<NamedParameter> parameters() const;
  /// `in`: the width of the input's last axis.
  [[nodiscard]] std::size_t input_width() const noexcept {
    return weight_.value.shape()[0];
  }
  /// `out`: the width of the output's last axis.
  [[nodiscard]] std::size_t output_width() const noexcept {
    return weight_.value.shape()[1];
  }
  /// The number of learned scalars: `in·out`, plus `out` with a bias.
  [[nodiscard]] std::size_t parameter_count() const noexcept;
  // endregion: linear-forward-api

 private:
  Linear(NamedParameter weight, std::optional<NamedParameter> bias)
      : weight_(std::move(weight)), bias_(std::move(bias)) {}
  NamedParameter weight_;
  std::optional<NamedParameter> bias_;
};

}  // namespace llmfs::nn
