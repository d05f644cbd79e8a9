// Chapter 20
#pragma once
/// \file
/// \brief The SwiGLU feed-forward layer `(SiLU(X·W₁) ⊙ X·W₃)·W₂` and its hidden-width
/// rule (Shazeer 2020; Chapter 20).

#include <cstddef>
#include <expected>
#include <string_view>
#include <vector>

#include <llmfs/autograd/tape.hpp>
#include <llmfs/core/splitmix64.hpp>
#include <llmfs/nn/error.hpp>
#include <llmfs/nn/linear.hpp>
#include <llmfs/nn/parameters.hpp>

namespace llmfs::nn {

// region: hidden-width-api
/// The hidden width d_ff of a SwiGLU layer for model width d_model:
/// `⌈8·d_model/3⌉` rounded up to a multiple of `multiple`. Three matrices of
/// `d_model·d_ff` then hold about the `8·d_model²` scalars of the classic two-matrix
/// feed-forward of width `4·d_model` (Shazeer 2020, section 2). The course uses
/// `multiple = 8`: a row of d_ff doubles is then whole 64-byte cache lines.
/// \return the width, or NnErrorCode::zero_width (`model_width` or `multiple` is 0),
///         NnErrorCode::size_overflow (the width does not fit `std::size_t`), stage
///         `swiglu hidden width`.
[[nodiscard]] std::expected<std::size_t, NnError> swiglu_hidden_width(
    std::size_t model_width, std::size_t multiple);
// endregion: hidden-width-api

// region: swiglu-stages
/// Every stage of one SwiGLU forward pass, named as in Chapter 20; each is a tape
/// value, so a chapter program can read it and a backward pass fills its gradient.
struct SwiGluForward {
  autograd::TensorValue gate_input;  ///< A = X·W₁, `[..., d_ff]`
  autograd::TensorValue gate;        ///< S = SiLU(A), `[..., d_ff]`
  autograd::TensorValue up;          ///< U = X·W₃, `[..., d_ff]`
  autograd::TensorValue hidden;      ///< H = S ⊙ U, `[..., d_ff]`
  autograd::TensorValue output;      ///< Y = H·W₂, `[..., d_model]`
};
// endregion: swiglu-stages

// region: swiglu-api
/// The bias-free gated feed-forward layer of LLaMA-style decoders:
/// `[..., d_model] -> [..., d_model]`, `Y = (SiLU(X·W₁) ⊙ X·W₃)·W₂`, with the gate W₁
/// and the up projection W₃ stored `[d_model, d_ff]` and the down projection W₂
/// `[d_ff, d_model]` (N. Shazeer, "GLU Variants Improve Transformer", 2020).
/// Parameters are named `<name>.gate.weight`, `<name>.up.weight`, `<name>.down.weight`.
class SwiGluFeedForward {
 public:
  /// Draws W₁, W₃ (fan-in d_model) and W₂ (fan-in d_ff) in that order with
  /// Linear::create. All three are validated before `rng` moves: a rejected call leaves
  /// it unchanged. \return the errors of Linear::create (stage `linear <name>.gate`,
  /// ...).
  [[nodiscard]] static std::expected<SwiGluFeedForward, NnError> create(
      autograd::Tape& tape, std::string_view name, std::size_t model_width,
      std::size_t hidden_width, SplitMix64& rng);

  /// A layer from exact weights: `gate` and `up` `[d_model, d_ff]`, `down`
  /// `[d_ff, d_model]`, on one tape under distinct names. \return the errors of
  /// Linear::from_parameters, NnErrorCode::width_mismatch (shapes that do not chain),
  /// NnErrorCode::different_tapes or NamedParameters::create's (stage `swiglu`).
  [[nodiscard]] static std::expected<SwiGluFeedForward, NnError> from_parameters(
      NamedParameter gate, NamedParameter up, NamedParameter down);

  /// `x [..., d_model] -> [..., d_model]`, keeping every stage.
  /// \return the errors of Linear::forward (a wrong input rank or width, stage
  ///         `linear <name>.gate.weight`), or NnErrorCode::autograd (stage `swiglu`).
  [[nodiscard]] std::expected<SwiGluForward, NnError> forward_stages(
      const autograd::TensorValue& x) const;
  /// `x [..., d_model] -> [..., d_model]`: forward_stages(x).output.
  [[nodiscard]] std::expected<autograd::TensorValue, NnError> forward(
      const autograd::TensorValue& x) const;

  /// d_model: the width of the input and of the output.
  [[nodiscard]] std::size_t model_width() const noexcept { return gate_.input_width(); }
  /// d_ff: the width of the gate, up and hidden stages.
  [[nodiscard]] std::size_t hidden_width() const noexcept {
    return gate_.output_width();
  }
  /// The learned scalars: `3·d_model·d_ff`.
  [[nodiscard]] std::size_t parameter_count() const noexcept;
  /// W₁, W₃, W₂ in that order.
  [[nodiscard]] std::vector<NamedParameter> parameters() const;
  // endregion: swiglu-api

  /// The gate projection W₁ `[d_model, d_ff]`.
  [[nodiscard]] const Linear& gate() const noexcept { return gate_; }
  /// The up projection W₃ `[d_model, d_ff]`.
  [[nodiscard]] const Linear& up() const noexcept { return up_; }
  /// The down projection W₂ `[d_ff, d_model]`.
  [[nodiscard]] const Linear& down() const noexcept { return down_; }

 private:
  SwiGluFeedForward(Linear gate, Linear up, Linear down)
      : gate_(std::move(gate)), up_(std::move(up)), down_(std::move(down)) {}
  Linear gate_;
  Linear up_;
  Linear down_;
};

}  // namespace llmfs::nn
