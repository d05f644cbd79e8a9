// Chapter 31
#pragma once
/// \file
/// \brief The pre-norm decoder block: `h = x + MHA(RMSNorm₁(x))`, then
/// `y = h + SwiGLU(RMSNorm₂(h))` (Xiong et al. 2020; Chapter 31).

#include <cstddef>
#include <expected>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include <llmfs/attention/multi_head.hpp>
#include <llmfs/autograd/error.hpp>
#include <llmfs/autograd/tape.hpp>
#include <llmfs/core/error.hpp>
#include <llmfs/core/splitmix64.hpp>
#include <llmfs/nn/error.hpp>
#include <llmfs/nn/parameters.hpp>
#include <llmfs/nn/rms_norm.hpp>
#include <llmfs/nn/swiglu.hpp>

namespace llmfs::models {

// region: block-errors
/// What a decoder block rejected, or that one of its layers failed.
enum class DecoderBlockErrorCode {
  width_mismatch,  ///< the four layers do not share one model width d_model
  stage_failed,    ///< a layer or the tape failed: `stage` says which, `cause` says why
};

/// The step of the block an error comes from, in the order the data flows.
enum class DecoderBlockStage {
  configuration,       ///< the layers' widths, or creating a layer
  parameters,          ///< the block's named parameter list (duplicate names or nodes)
  attention_norm,      ///< `a = RMSNorm₁(x)`
  attention,           ///< `MHA(a)`
  attention_residual,  ///< `h = x + MHA(a)`
  ffn_norm,            ///< `f = RMSNorm₂(h)`
  feed_forward,        ///< `SwiGLU(f)`
  ffn_residual,        ///< `y = h + SwiGLU(f)`
};

/// The fixed name of a stage, e.g. `"attention residual"`.
[[nodiscard]] std::string_view describe(DecoderBlockStage stage) noexcept;
/// The fixed description of a code, e.g. `"layer widths differ"`.
[[nodiscard]] std::string_view describe(DecoderBlockErrorCode code) noexcept;

/// The lower error a block error wraps: an RMSNorm or SwiGLU error (nn::NnError), an
/// attention error (llmfs::attention::MultiHeadError), or the tape's error from a
/// residual sum.
using DecoderBlockCause = std::variant<nn::NnError, llmfs::attention::MultiHeadError,
                                       autograd::AutogradError>;

/// One typed block error: the kind, the stage, the numbers, and the wrapped lower
/// error, typed (never flattened to a string). Formats as `<stage>: <description>
/// (<detail>)` followed by `: <cause chain>` for a failed layer.
using DecoderBlockError =
    StageError<DecoderBlockErrorCode, DecoderBlockErrorCode::stage_failed,
               DecoderBlockCause, DecoderBlockStage>;
// endregion: block-errors

// region: block-forward-record
/// Every intermediate of one block's forward pass, all on the input's tape, each
/// `[B, T, d_model]` unless said otherwise.
struct DecoderBlockForward {
  autograd::TensorValue input;            ///< x, the residual stream entering the block
  autograd::TensorValue attention_input;  ///< `a = RMSNorm₁(x)`
  llmfs::attention::MultiHeadForward
      attention;                           ///< every stage of `MHA(a)` (Chapter 30)
  autograd::TensorValue attention_output;  ///< `MHA(a)`, the attention branch
  autograd::TensorValue hidden;            ///< `h = x + MHA(a)`
  autograd::TensorValue ffn_input;         ///< `f = RMSNorm₂(h)`
  nn::SwiGluForward feed_forward;          ///< every stage of `SwiGLU(f)` (Chapter 20)
  autograd::TensorValue ffn_output;        ///< `SwiGLU(f)`, the feed-forward branch
  autograd::TensorValue output;            ///< `y = h + SwiGLU(f)`, the block's output
};
// endregion: block-forward-record

/// The sizes of one block.
struct DecoderBlockShape {
  std::size_t model_width = 0;    ///< d_model: the residual stream's width
  std::size_t heads = 0;          ///< h: attention heads, d_model = h·d_h
  std::size_t hidden_width = 0;   ///< d_ff: the SwiGLU hidden width
  std::size_t max_positions = 0;  ///< RoPE capacity: positions `0..max_positions−1`
  double rope_base = 10000.0;     ///< RoPE base b (Su et al. 2021)
  double epsilon = nn::RMSNorm::default_epsilon;  ///< the RMSNorm ε of both norms
  /// The attention's per-head kernel (Chapter 41): stored weights unless chosen.
  llmfs::attention::AttentionKernel attention{};
};

// region: block-class
/// A pre-norm decoder block (Xiong et al. 2020, "On Layer Normalization in the
/// Transformer Architecture"): each branch reads a normalised copy of the residual
/// stream and adds its result back, so the stream itself is never normalised.
/// `[B, T, d_model] -> [B, T, d_model]`. Parameters, in this order:
/// `<prefix>.attention_norm.weight` `[d]`,
/// `<prefix>.attention.{query,key,value,output}.weight`
/// `[d, d]`, `<prefix>.ffn_norm.weight` `[d]`, `<prefix>.ffn.{gate,up}.weight`
/// `[d, d_ff]`, `<prefix>.ffn.down.weight` `[d_ff, d]`: `2d + 4d² + 3·d·d_ff` scalars.
class DecoderBlock {
 public:
  /// Creates the block's layers on `tape`: both gains at 1, then W_Q, W_K, W_V, W_O,
  /// W₁, W₃, W₂ drawn from `rng` in that order (Chapters 19, 20 and 30). A rejected
  /// call leaves `rng` unchanged. \return DecoderBlockErrorCode::stage_failed with
  /// stage DecoderBlockStage::configuration wrapping the layer's own error (e.g. a
  /// width not divisible by the heads, an odd head width, a bad ε).
  [[nodiscard]] static std::expected<DecoderBlock, DecoderBlockError> create(
      autograd::Tape& tape, std::string_view prefix, const DecoderBlockShape& shape,
      SplitMix64& rng);
  /// A block from four built layers (fixtures, checkpoints).
  /// \return DecoderBlockErrorCode::width_mismatch when the norms, the attention and
  ///         the feed-forward network do not share d_model (stage configuration), or
  ///         stage_failed with stage parameters for duplicate names or nodes.
  [[nodiscard]] static std::expected<DecoderBlock, DecoderBlockError> from_layers(
      nn::RMSNorm attention_norm, llmfs::attention::MultiHeadAttention attention,
      nn::RMSNorm ffn_norm, nn::SwiGluFeedForward feed_forward);
  // endregion: block-class
  // region: block-forward-declaration
  /// Runs the block on `x [B, T, d_model]` whose first token is at absolute position
  /// `position_offset` (RoPE); returns every intermediate.
  /// \return DecoderBlockErrorCode::stage_failed naming the stage whose layer refused
  ///         (a wrong shape is refused by the first norm; a position interval beyond
  ///         the RoPE capacity by the attention), with the layer's error as cause.
  [[nodiscard]] std::expected<DecoderBlockForward, DecoderBlockError> forward(
      const autograd::TensorValue& x, std::size_t position_offset) const;
  // endregion: block-forward-declaration

  /// RMSNorm₁, before attention.
  [[nodiscard]] const nn::RMSNorm& attention_norm() const noexcept {
    return attention_norm_;
  }
  /// The multi-head causal self-attention with RoPE.
  [[nodiscard]] const llmfs::attention::MultiHeadAttention& attention() const noexcept {
    return attention_;
  }
  /// RMSNorm₂, before the feed-forward network.
  [[nodiscard]] const nn::RMSNorm& ffn_norm() const noexcept { return ffn_norm_; }
  /// The SwiGLU feed-forward network.
  [[nodiscard]] const nn::SwiGluFeedForward& feed_forward() const noexcept {
    return feed_forward_;
  }
  /// Every parameter in the block's stable order (see the class comment).
  [[nodiscard]] const nn::NamedParameters& parameters() const noexcept {
    return parameters_;
  }
  /// d_model.
  [[nodiscard]] std::size_t model_width() const noexcept {
    return attention_.model_width();
  }
  /// Number of learned scalars, `2d + 4d² + 3·d·d_ff`.
  [[nodiscard]] std::size_t parameter_count() const noexcept {
    return parameters_.scalar_count();
  }

 private:
  DecoderBlock(nn::RMSNorm attention_norm,
               llmfs::attention::MultiHeadAttention attention, nn::RMSNorm ffn_norm,
               nn::SwiGluFeedForward feed_forward, nn::NamedParameters parameters)
      : attention_norm_(std::move(attention_norm)),
        attention_(std::move(attention)),
        ffn_norm_(std::move(ffn_norm)),
        feed_forward_(std::move(feed_forward)),
        parameters_(std::move(parameters)) {}

  nn::RMSNorm attention_norm_;
  llmfs::attention::MultiHeadAttention attention_;
  nn::RMSNorm ffn_norm_;
  nn::SwiGluFeedForward feed_forward_;
  nn::NamedParameters parameters_;
};

/// The block's parameter count for its sizes, `2d + 4d² + 3·d·d_ff`, without building
/// it. Precondition: the product fits `std::size_t` (the decoder's configuration check
/// guarantees it).
[[nodiscard]] std::size_t block_parameter_count(std::size_t model_width,
                                                std::size_t hidden_width) noexcept;

}  // namespace llmfs::models
