// Chapter 30
#pragma once
/// \file
/// \brief Multi-head causal self-attention with RoPE: full-width projections, head
/// split, per-head rotation and causal attention, merge, output projection (Vaswani et
/// al. 2017 §3.2.2; Su et al. 2021; Chapter 30). The split and merge are in
/// head_layout.hpp.

#include <cstddef>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include <fmt/format.h>

#include <llmfs/attention/causal.hpp>
#include <llmfs/attention/head_layout.hpp>
#include <llmfs/attention/rope.hpp>
#include <llmfs/attention/self_attention.hpp>
#include <llmfs/autograd/error.hpp>
#include <llmfs/autograd/tape.hpp>
#include <llmfs/core/error.hpp>
#include <llmfs/core/splitmix64.hpp>
#include <llmfs/nn/error.hpp>
#include <llmfs/nn/linear.hpp>
#include <llmfs/nn/parameters.hpp>
#include <llmfs/nn/qkv.hpp>

namespace llmfs::attention {

// region: multi-head-error-codes
/// What the multi-head layer rejected, or that a lower stage failed.
enum class MultiHeadErrorCode {
  zero_model_width,     ///< d_model is 0
  zero_heads,           ///< h is 0
  width_not_divisible,  ///< d_model is not a multiple of h
  odd_head_width,   ///< d_h is odd, so RoPE would leave a coordinate without a partner
  parameter_shape,  ///< a projection matrix is not `[d_model, d_model]` (or `[d, 3d]`)
  input_rank,       ///< the input is not rank 3 `[B, T, d_model]`
  input_width,      ///< the input's last axis is not d_model
  empty_tokens,     ///< T = 0: a causal row would have no key to attend to
  offset_overflow,  ///< `position_offset + T` overflows `std::size_t`
  position_range,   ///< `position_offset + T` exceeds the RoPE capacity
  missing_kernel,   ///< the AttentionKernel has no function to run
  stage_failed,     ///< a lower stage failed: `stage` says which, `cause` says why
};

/// The step of the layer an error comes from.
enum class MultiHeadStage {
  configuration,      ///< widths, head count, RoPE configuration
  parameters,         ///< the named parameter list
  input,              ///< the input's shape and position interval
  qkv_projection,     ///< `Q, K, V = X·W_Q, X·W_K, X·W_V`
  query_split,        ///< split_heads on Q
  key_split,          ///< split_heads on K
  value_split,        ///< split_heads on V
  query_rotation,     ///< RoPE on the query heads
  key_rotation,       ///< RoPE on the key heads
  causal_attention,   ///< per-head causal attention
  merge,              ///< merge_heads on the head outputs
  output_projection,  ///< `merged·W_O`
};
// endregion: multi-head-error-codes

// region: multi-head-errors
/// The fixed name of a stage, e.g. `"key rotation"`.
[[nodiscard]] std::string_view describe(MultiHeadStage stage) noexcept;
/// The fixed description of a code, e.g. `"position interval exceeds capacity"`.
[[nodiscard]] std::string_view describe(MultiHeadErrorCode code) noexcept;

/// The lower error a multi-head error wraps, if any.
using MultiHeadCause =
    std::variant<nn::NnError, HeadLayoutError, RopeError, AttentionError>;

/// One typed multi-head error: the kind, the stage, the numbers, and the wrapped lower
/// error. Formats as `multi-head attention, <stage>: <description> (<detail>)`, or
/// `multi-head attention, <stage>: <cause chain>` for a failed lower stage.
using MultiHeadError = StageError<MultiHeadErrorCode, MultiHeadErrorCode::stage_failed,
                                  MultiHeadCause, MultiHeadStage>;

/// The tape error at the bottom of the cause chain (e.g. released input), or nullptr.
[[nodiscard]] const autograd::AutogradError* autograd_cause(
    const MultiHeadError& error) noexcept;
// endregion: multi-head-errors

/// Rotary positions on every head's queries and keys (Chapter 29), rotated width d_h.
struct RotaryPositions {
  std::size_t max_positions;  ///< capacity P: positions `0..P−1`
  double base;                ///< RoPE base b, finite and > 1
};

/// No position information inside the layer, as in PyTorch's `nn.MultiheadAttention`
/// (the PyTorch appendix): queries and keys are used as projected, any head width is
/// allowed, and the position offset only has to fit in `std::size_t`.
struct NoPositions {};

/// How the layer encodes token positions: an explicit choice, never a hidden flag.
using PositionEncoding = std::variant<RotaryPositions, NoPositions>;

// region: attention-kernel
/// The per-head causal attention a layer runs: rotated queries and keys and the values,
/// each `[B,h,T,d_h]`, and a key-block size -> CausalAttention (its `output` is
/// `[B,h,T,d_h]`; a kernel that keeps no tables leaves the other fields empty).
using CausalAttentionFn = std::expected<CausalAttention, AttentionError> (*)(
    const autograd::TensorValue& query, const autograd::TensorValue& key,
    const autograd::TensorValue& value, std::size_t block_size);

/// Chapter 28's causal_self_attention() as a kernel: every `[B,h,T,T]` table is kept on
/// the tape (the block size is not used).
[[nodiscard]] std::expected<CausalAttention, AttentionError> stored_weights_attention(
    const autograd::TensorValue& query, const autograd::TensorValue& key,
    const autograd::TensorValue& value, std::size_t block_size);

/// Every head at once, from the projections Q, K, V `[B,T,d_model]`, the head count,
/// the rotary embedding (or none) and the position offset -> CausalAttention whose
/// `output` is the merged `[B,T,d_model]` and `weights` `[B,h,T,T]`: what the split,
/// the rotation, `run` and the merge give, without their tensors (Chapter 42).
using LayerAttentionFn = std::expected<CausalAttention, MultiHeadError> (*)(
    const autograd::TensorValue& query, const autograd::TensorValue& key,
    const autograd::TensorValue& value, std::size_t heads,
    const std::optional<RotaryEmbedding>& rope, std::size_t position_offset);

/// Which computation produces each head's attention: chosen once, at construction.
/// The default keeps the weights (Chapter 30); Chapter 41's streaming_kernel() computes
/// the same function block by block without storing them.
struct AttentionKernel {
  std::string_view name = "stored weights";  ///< for reports: what runs
  std::size_t block_size = 0;                ///< keys per block (0: not blocked)
  CausalAttentionFn run = &stored_weights_attention;  ///< the computation
  LayerAttentionFn layer = nullptr;  ///< if set, the layer calls it instead of `run`
  /// Equal when the name, the block size and both functions are equal.
  friend bool operator==(const AttentionKernel&, const AttentionKernel&) = default;
};
// endregion: attention-kernel

// region: multi-head-forward-record
/// Every intermediate of one multi-head forward pass, all on the input's tape (a
/// kernel with a `layer` function, Chapter 42, leaves the per-head ones empty).
struct MultiHeadForward {
  autograd::TensorValue projected_query_heads;  ///< `split(X·W_Q)`, `[B,h,T,d_h]`
  autograd::TensorValue projected_key_heads;    ///< `split(X·W_K)`, `[B,h,T,d_h]`
  autograd::TensorValue projected_value_heads;  ///< `split(X·W_V)`, `[B,h,T,d_h]`
  autograd::TensorValue
      rotated_query_heads;                  ///< RoPE of the query heads, `[B,h,T,d_h]`
  autograd::TensorValue rotated_key_heads;  ///< RoPE of the key heads, `[B,h,T,d_h]`
  /// Per-head scaled scores `Q̃·K̃ᵀ/√d_h` of the rotated heads before masking,
  /// `[B,h,T,T]`.
  autograd::TensorValue scores;
  /// The scores plus the causal mask: −∞ strictly above the diagonal, `[B,h,T,T]`.
  autograd::TensorValue masked_scores;
  autograd::TensorValue attention_weights;  ///< causal softmax per head, `[B,h,T,T]`
  autograd::TensorValue head_outputs;       ///< weights·V per head, `[B,h,T,d_h]`
  autograd::TensorValue merged;             ///< heads concatenated, `[B,T,d_model]`
  autograd::TensorValue output;             ///< `merged·W_O`, `[B,T,d_model]`
};
// endregion: multi-head-forward-record

// region: multi-head-forward-declaration
/// Multi-head causal self-attention: `MHA(X) = Concat(H_1..H_h)·W_O` with
/// `H_i = softmax(RoPE(Q_i)·RoPE(K_i)ᵀ/√d_h + M)·V_i` and `Q = X·W_Q` etc. projected at
/// full width before the split. Four bias-free `[d_model, d_model]` matrices, named
/// `<prefix>.query.weight`, `<prefix>.key.weight`, `<prefix>.value.weight`,
/// `<prefix>.output.weight`, in that order. Heads share nothing until W_O.
/// Source: Vaswani et al. (2017) §3.2.2; Su et al. (2021); Chapter 30.
class MultiHeadAttention {
 public:
  /// Runs the layer on `input [B,T,d_model]` whose first token sits at absolute
  /// position `position_offset`; returns every intermediate, output `[B,T,d_model]`.
  /// Checks, in order and before any tape operation: rank, width, non-empty tokens,
  /// then the position interval `[offset, offset+T)` (overflow, then RoPE capacity).
  /// \return MultiHeadErrorCode::input_rank, MultiHeadErrorCode::input_width,
  ///         MultiHeadErrorCode::empty_tokens, MultiHeadErrorCode::offset_overflow,
  ///         MultiHeadErrorCode::position_range, or MultiHeadErrorCode::stage_failed
  ///         naming the stage (a released input shows up as the autograd_cause() of the
  ///         Q/K/V projection).
  [[nodiscard]] std::expected<MultiHeadForward, MultiHeadError> forward(
      const autograd::TensorValue& input, std::size_t position_offset) const;
  // endregion: multi-head-forward-declaration

  // region: multi-head-factories
  /// Validates the configuration, then draws W_Q, W_K, W_V, W_O in that order on a copy
  /// of `rng` (nn::uniform_fan_in, bound `1/√d_model`) and commits the copy only on
  /// success: a rejected call leaves `rng` unchanged. \return
  /// MultiHeadErrorCode::zero_model_width, MultiHeadErrorCode::zero_heads,
  ///         MultiHeadErrorCode::width_not_divisible,
  ///         MultiHeadErrorCode::odd_head_width (with RoPE), then
  ///         MultiHeadErrorCode::stage_failed for a RoPE configuration (cause
  ///         RopeError) or a projection that cannot be created (cause nn::NnError, e.g.
  ///         a released tape).
  [[nodiscard]] static std::expected<MultiHeadAttention, MultiHeadError> create(
      autograd::Tape& tape, std::string_view prefix, std::size_t model_width,
      std::size_t heads, PositionEncoding positions, SplitMix64& rng,
      AttentionKernel kernel = {});

  /// A layer from four exact matrices (fixtures, checkpoints). d_model is the query
  /// weight's row count. \return MultiHeadErrorCode::stage_failed for matrices
  /// Linear/QkvProjections reject,
  ///         the configuration codes of create(), MultiHeadErrorCode::parameter_shape
  ///         for a matrix that is not `[d_model, d_model]`, or
  ///         MultiHeadErrorCode::stage_failed with stage MultiHeadStage::parameters for
  ///         duplicate names or nodes.
  [[nodiscard]] static std::expected<MultiHeadAttention, MultiHeadError>
  from_parameters(nn::NamedParameter query, nn::NamedParameter key,
                  nn::NamedParameter value, nn::NamedParameter output,
                  std::size_t heads, PositionEncoding positions,
                  AttentionKernel kernel = {});

  /// A layer from PyTorch's layout: one combined in-projection
  /// `W_in = [W_Q | W_K | W_V]`, `[d_model, 3·d_model]` (PyTorch's `in_proj_weight` is
  /// `W_inᵀ`) and `W_O`. The outputs equal the separate layout's bitwise. \return the
  /// errors of the separate-matrix from_parameters().
  [[nodiscard]] static std::expected<MultiHeadAttention, MultiHeadError>
  from_combined_parameters(nn::NamedParameter in_projection, nn::NamedParameter output,
                           std::size_t heads, PositionEncoding positions,
                           AttentionKernel kernel = {});
  // endregion: multi-head-factories

  /// Creates the four matrices on `tape` with rotary positions `{max_positions,
  /// rope_base}`. Same as the PositionEncoding overload with RotaryPositions.
  [[nodiscard]] static std::expected<MultiHeadAttention, MultiHeadError> create(
      autograd::Tape& tape, std::string_view prefix, std::size_t model_width,
      std::size_t heads, std::size_t max_positions, double rope_base, SplitMix64& rng);

  /// A layer from four exact `[d_model, d_model]` matrices with rotary positions.
  /// Same as the PositionEncoding overload with RotaryPositions.
  [[nodiscard]] static std::expected<MultiHeadAttention, MultiHeadError>
  from_parameters(nn::NamedParameter query, nn::NamedParameter key,
                  nn::NamedParameter value, nn::NamedParameter output,
                  std::size_t heads, std::size_t max_positions, double rope_base);

  /// The Q/K/V projections.
  [[nodiscard]] const nn::QkvProjections& qkv() const noexcept { return qkv_; }
  /// The output projection W_O.
  [[nodiscard]] const nn::Linear& output_projection() const noexcept { return output_; }
  /// The rotary embedding (rotated width d_h), or nothing with NoPositions.
  [[nodiscard]] const std::optional<RotaryEmbedding>& rope() const noexcept {
    return rope_;
  }
  /// The attention kernel chosen at construction (stored weights unless given).
  [[nodiscard]] const AttentionKernel& kernel() const noexcept { return kernel_; }
  /// The position encoding chosen at construction.
  [[nodiscard]] const PositionEncoding& positions() const noexcept {
    return positions_;
  }
  /// Every parameter in its stable order (W_Q, W_K, W_V, W_O; or W_in, W_O).
  [[nodiscard]] const nn::NamedParameters& parameters() const noexcept {
    return parameters_;
  }
  /// d_model.
  [[nodiscard]] std::size_t model_width() const noexcept { return model_width_; }
  /// h.
  [[nodiscard]] std::size_t heads() const noexcept { return heads_; }
  /// d_h = d_model / h.
  [[nodiscard]] std::size_t head_width() const noexcept {
    return model_width_ / heads_;
  }
  /// Number of learned scalars, `4·d_model²`.
  [[nodiscard]] std::size_t parameter_count() const noexcept {
    return parameters_.scalar_count();
  }

 private:
  MultiHeadAttention(nn::QkvProjections qkv, nn::Linear output,
                     std::optional<RotaryEmbedding> rope, PositionEncoding positions,
                     nn::NamedParameters parameters, std::size_t model_width,
                     std::size_t heads, AttentionKernel kernel);
  [[nodiscard]] static std::expected<MultiHeadAttention, MultiHeadError>
  from_projections(std::expected<nn::QkvProjections, nn::NnError> projections,
                   nn::NamedParameter output, std::size_t heads,
                   PositionEncoding positions, AttentionKernel kernel);
  [[nodiscard]] static std::expected<MultiHeadAttention, MultiHeadError> assemble(
      nn::QkvProjections qkv, nn::Linear output, std::size_t heads,
      PositionEncoding positions, std::optional<RotaryEmbedding> rope,
      AttentionKernel kernel);
  // region: multi-head-state
  // The four matrices, the rotary tables and the widths; nothing else is stored.
  nn::QkvProjections qkv_;
  nn::Linear output_;
  std::optional<RotaryEmbedding> rope_;
  PositionEncoding positions_;
  nn::NamedParameters parameters_;
  std::size_t model_width_;
  std::size_t heads_;
  // endregion: multi-head-state
  // Chapter 41: which computation runs the per-head attention.
  AttentionKernel kernel_;
  // Chapter 42: the rest of forward() when the kernel takes every head at once.
  [[nodiscard]] std::expected<MultiHeadForward, MultiHeadError> forward_all_heads(
      const nn::QkvForward& projected, std::size_t position_offset) const;
};

}  // namespace llmfs::attention

/// Formats a MultiHeadError as `multi-head attention, stage: description (detail):
/// cause`.
template <>
struct fmt::formatter<llmfs::attention::MultiHeadError>
    : fmt::formatter<fmt::string_view> {
  /// Writes the error and its cause chain into the context's output.
  auto format(const llmfs::attention::MultiHeadError& error,
              fmt::format_context& ctx) const -> decltype(ctx.out());
};
