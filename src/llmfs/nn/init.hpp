// Chapter 17
#pragma once
/// \file
/// \brief Deterministic parameter initialization from SplitMix64: LeCun (fan-in) and
/// Xavier/Glorot scales, uniform and normal draws, and named parameters drawn on a tape
/// (Chapter 17).

#include <cstddef>
#include <expected>
#include <span>
#include <string>

#include <llmfs/autograd/tape.hpp>
#include <llmfs/core/splitmix64.hpp>
#include <llmfs/nn/error.hpp>
#include <llmfs/nn/parameters.hpp>
#include <llmfs/tensor/tensor.hpp>

namespace llmfs::nn {

/// The initialization bound `1/√fan_in` for a layer that sums `fan_in` inputs per
/// output. Precondition: `fan_in > 0` (uniform_fan_in() checks it).
[[nodiscard]] double fan_in_bound(std::size_t fan_in) noexcept;

/// A tensor of `shape` whose elements are drawn uniformly from `[−b, b)` with
/// `b = 1/√fan_in`, one draw per element in row-major order: `b · (2u − 1)` with
/// `u = rng.next_unit()`. This is PyTorch's `nn.Linear` default (`kaiming_uniform_`
/// with `a = √5`): variance `b²/3 = 1/(3·fan_in)`, a third of LeCun's. Everything is
/// validated before any draw, so a rejected call leaves `rng` unchanged.
/// \return NnErrorCode::zero_width for `fan_in == 0`, NnErrorCode::size_overflow if the
///         shape's element count overflows (stage `"initialization"`).
[[nodiscard]] std::expected<tensor::Tensor, NnError> uniform_fan_in(
    const tensor::Shape& shape, std::size_t fan_in, SplitMix64& rng);

// region: init-scheme
/// The shape of the distribution every element is drawn from; both have mean 0.
enum class Distribution {
  uniform,  ///< uniform on `[−a, a)` with `a = √3·σ`, so that its variance is `σ²`
  normal,  ///< normal `N(0, σ²)`, by the Box–Muller transform (standard_normal())
};

/// How to draw a tensor: a distribution and its standard deviation `σ`.
struct InitScheme {
  Distribution distribution = Distribution::uniform;  ///< uniform or normal
  double std_dev = 0.0;                               ///< `σ ≥ 0`
};

/// LeCun's fan-in scale, `σ² = 1/fan_in`: a sum of `fan_in` products keeps the variance
/// of its inputs (LeCun, Bottou, Orr and Müller 1998, §4.6). \return
/// NnErrorCode::zero_width for `fan_in == 0` (stage `"initialization"`).
[[nodiscard]] std::expected<InitScheme, NnError> lecun(std::size_t fan_in,
                                                       Distribution distribution);

/// Glorot and Bengio's (2010) scale, `σ² = 2/(fan_in + fan_out)`: the compromise
/// between keeping the forward variance (`1/fan_in`) and the backward one
/// (`1/fan_out`). \return NnErrorCode::zero_width if either fan is 0 (stage
/// `"initialization"`).
[[nodiscard]] std::expected<InitScheme, NnError> xavier(std::size_t fan_in,
                                                        std::size_t fan_out,
                                                        Distribution distribution);
// endregion: init-scheme

/// One draw from the standard normal `N(0, 1)` by Box and Muller (1958), from two
/// uniform draws `u₁, u₂` of `rng`: `√(−2 ln(1 − u₁)) · cos(2π u₂)`. `1 − u₁` lies in
/// `(0, 1]`, so the logarithm is finite. The transform's second normal,
/// `… · sin(2π u₂)`, is not kept: each normal costs exactly two draws.
[[nodiscard]] double standard_normal(SplitMix64& rng) noexcept;

/// A tensor of `shape` drawn from `scheme`, one element at a time in row-major order
/// (uniform: one draw each, `a · (2u − 1)`; normal: two draws each, `σ · z`). Validated
/// before the first draw, so a rejected call leaves `rng` unchanged.
/// \return NnErrorCode::bad_scale for `σ` negative or not finite,
///         NnErrorCode::size_overflow if the element count overflows (stage
///         `"initialization"`).
[[nodiscard]] std::expected<tensor::Tensor, NnError> draw(const tensor::Shape& shape,
                                                          const InitScheme& scheme,
                                                          SplitMix64& rng);

/// A parameter leaf `name` of `shape` on `tape`, drawn from `scheme`. The name, the
/// tape and the scheme are checked before the first draw: a rejected call leaves `rng`
/// unchanged and records nothing. \return NnErrorCode::empty_name or
/// NnErrorCode::released_tape (stage `parameter 'NAME'`), or the errors of draw().
[[nodiscard]] std::expected<NamedParameter, NnError> make_parameter(
    autograd::Tape& tape, std::string name, const tensor::Shape& shape,
    const InitScheme& scheme, SplitMix64& rng);

/// The sample mean and variance of a set of values (variance divided by `n`, as
/// PyTorch's `var(unbiased=False)`): how the chapters measure a draw or an activation.
struct Moments {
  double mean = 0.0;      ///< `(1/n) Σ xᵢ`
  double variance = 0.0;  ///< `(1/n) Σ (xᵢ − mean)²`
};

/// The Moments of `values`, summed in order; both 0 for no values.
[[nodiscard]] Moments moments(std::span<const double> values) noexcept;

}  // namespace llmfs::nn
