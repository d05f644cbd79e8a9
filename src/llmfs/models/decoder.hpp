// Chapter 32
#pragma once
/// \file
/// \brief The decoder-only language model: token embeddings, N pre-norm blocks, a final
/// RMSNorm and logits through the tied embedding matrix (Press and Wolf 2017;
/// Chapter 32). The trainer (Chapter 33) and checkpoints (Chapter 35) use this API.

#include <cstddef>
#include <cstdint>
#include <expected>
#include <functional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include <llmfs/attention/multi_head.hpp>
#include <llmfs/autograd/error.hpp>
#include <llmfs/autograd/model_ops.hpp>
#include <llmfs/autograd/tape.hpp>
#include <llmfs/core/error.hpp>
#include <llmfs/models/decoder_block.hpp>
#include <llmfs/nn/embedding.hpp>
#include <llmfs/nn/error.hpp>
#include <llmfs/nn/parameters.hpp>
#include <llmfs/nn/rms_norm.hpp>
#include <llmfs/tensor/tensor.hpp>

namespace llmfs::models {

// region: decoder-config
/// The sizes and constants of a decoder model. validate() says what is wrong with one.
struct DecoderConfig {
  std::size_t vocab_size = 0;      ///< V: token ids are `0..V−1`
  std::size_t model_width = 0;     ///< d_model (d): the residual stream's width
  std::size_t heads = 0;           ///< h: attention heads per block, d = h·d_h
  std::size_t layers = 0;          ///< N: decoder blocks
  std::size_t hidden_width = 0;    ///< d_ff: the SwiGLU hidden width
  std::size_t context_length = 0;  ///< T_max: the longest sequence (RoPE capacity)
  double rope_base = 10000.0;      ///< RoPE base b, finite and > 1
  double epsilon = 1e-6;           ///< RMSNorm ε, finite and > 0
  std::uint64_t seed = 0;          ///< SplitMix64 seed of create()'s draws
  /// Each block's per-head attention (Chapter 41): stored weights unless chosen.
  llmfs::attention::AttentionKernel attention{};
  /// Equal when every field is equal.
  friend bool operator==(const DecoderConfig&, const DecoderConfig&) = default;
};
// endregion: decoder-config

// region: decoder-errors
/// What the decoder rejected, or that a lower stage failed.
enum class DecoderErrorCode {
  zero_size,            ///< V, d_model, h, N, d_ff or T_max is 0
  width_not_divisible,  ///< d_model is not a multiple of h
  odd_head_width,       ///< d_h = d_model/h is odd: RoPE pairs coordinates
  bad_rope_base,        ///< the RoPE base is not finite and > 1
  bad_epsilon,          ///< ε is not finite and > 0
  size_overflow,        ///< the parameter count or a table does not fit
  value_count,          ///< not one value per parameter
  value_shape,          ///< a value has the wrong shape (detail names the parameter)
  token_shape,          ///< ids not a non-empty `[B, T]` grid of B·T ids
  context_overflow,     ///< T exceeds the context length T_max
  token_out_of_range,   ///< an input id or a target outside `[0, V)`
  target_shape,         ///< the targets' grid differs from the inputs' `[B, T]`
  stage_failed,         ///< a lower stage failed: `stage` says which, `cause` says why
};

/// The step of the model an error comes from.
enum class DecoderStage {
  configuration,  ///< validate(): sizes and constants
  values,         ///< parameter values given to from_values() or set_values()
  input,          ///< the token ids and targets
  embedding,      ///< `x₀ = E[ids]`
  block,          ///< one decoder block (the detail names it, e.g. `blocks.2`)
  final_norm,     ///< `RMSNorm(x_N)`
  logits,         ///< `z = RMSNorm(x_N)·Eᵀ`
  loss,           ///< cross-entropy against the targets
};

/// The fixed name of a stage, e.g. `"final norm"`.
[[nodiscard]] std::string_view describe(DecoderStage stage) noexcept;
/// The fixed description of a code, e.g. `"sequence longer than the context"`.
[[nodiscard]] std::string_view describe(DecoderErrorCode code) noexcept;

/// The lower error a decoder error wraps, typed.
using DecoderCause = std::variant<nn::NnError, llmfs::attention::MultiHeadError,
                                  DecoderBlockError, autograd::AutogradError>;

/// One typed decoder error. Formats as `<stage>: <description> (<detail>)` followed by
/// `: <cause chain>` for a failed lower stage.
using DecoderError = StageError<DecoderErrorCode, DecoderErrorCode::stage_failed,
                                DecoderCause, DecoderStage>;
// endregion: decoder-errors

/// Checks a configuration, in the order of DecoderErrorCode: zero sizes, divisibility,
/// head width parity, RoPE base, ε, then that the parameter count and every table fit.
/// \return the first problem (stage DecoderStage::configuration), naming the field.
[[nodiscard]] std::expected<void, DecoderError> validate(const DecoderConfig& config);

// region: parameter-count
/// The learned scalars of a decoder, `V·d + N·(2d + 4d² + 3·d·d_ff) + d`: the tied
/// table, N blocks, the final gain (no separate output matrix: it is the table).
/// \return DecoderErrorCode::size_overflow when the count does not fit.
[[nodiscard]] std::expected<std::size_t, DecoderError> decoder_parameter_count(
    const DecoderConfig& config);
// endregion: parameter-count

/// A parameter's name and shape, as the model lists them.
struct ParameterSpec {
  std::string name;     ///< e.g. `blocks.0.attention.query.weight`
  tensor::Shape shape;  ///< e.g. `[d, d]`
};

/// The parameters of a decoder with `config`, in the model's fixed order:
/// `embedding.weight [V,d]`; for each block i = 0..N−1:
/// `blocks.i.attention_norm.weight [d]`, `blocks.i.attention.query.weight [d,d]`,
/// `.key.weight`, `.value.weight`, `.output.weight` (each `[d,d]`),
/// `blocks.i.ffn_norm.weight [d]`, `blocks.i.ffn.gate.weight [d,d_ff]`,
/// `blocks.i.ffn.up.weight [d,d_ff]`, `blocks.i.ffn.down.weight [d_ff,d]`; last
/// `final_norm.weight [d]`. `1 + 9N + 1` parameters. Precondition: validate(config).
[[nodiscard]] std::vector<ParameterSpec> decoder_parameter_specs(
    const DecoderConfig& config);

// region: decoder-forward-record
/// Every intermediate of one model forward pass, on the model's tape.
struct DecoderForward {
  autograd::TensorValue embeddings;         ///< `x₀ = E[ids]`, `[B,T,d]`
  std::vector<DecoderBlockForward> blocks;  ///< block i maps x_i to x_{i+1}
  autograd::TensorValue normalized;         ///< `RMSNorm(x_N)`, `[B,T,d]`
  autograd::TensorValue logits;             ///< `RMSNorm(x_N)·Eᵀ`, `[B,T,V]`
};
// endregion: decoder-forward-record

// region: decoder-class
/// A decoder-only language model: `z = RMSNorm(Block_N(… Block_1(E[ids]) …))·Eᵀ`.
///
/// The model owns one tape. Its parameters are leaves of that tape, in the order of
/// decoder_parameter_specs(); forward(), forward_stages() and loss() record on it, so
/// `autograd::backward(loss, 1)` fills every parameter's gradient. set_values() (after
/// an optimizer step) and reset_tape() move the model to a fresh tape, dropping the
/// graph recorded so far. Copies share the tape until one of them moves.
class DecoderModel {
 public:
  /// Validates `config`, then draws the parameters from `SplitMix64(config.seed)`:
  /// E `N(0, 1/d)` (Chapter 18), then per block W_Q, W_K, W_V, W_O, W₁, W₃, W₂
  /// uniform on `±1/√fan_in` (Chapters 19, 20, 30); every gain starts at 1.
  /// \return validate()'s errors, or stage_failed wrapping a layer's error.
  [[nodiscard]] static std::expected<DecoderModel, DecoderError> create(
      const DecoderConfig& config);
  /// A model from exact values (a checkpoint, a reference), one per parameter in the
  /// order of decoder_parameter_specs(); `config.seed` is kept but not used.
  /// \return validate()'s errors, DecoderErrorCode::value_count, or
  ///         DecoderErrorCode::value_shape naming the parameter (stage values).
  [[nodiscard]] static std::expected<DecoderModel, DecoderError> from_values(
      const DecoderConfig& config, std::vector<tensor::Tensor> values);
  // endregion: decoder-class

  // region: decoder-forward-api
  /// Logits `[B, T, V]` for token ids `[B, T]` (B ≥ 1, 1 ≤ T ≤ T_max); position t of
  /// a row attends to positions 0..t of that row only.
  /// \return DecoderErrorCode::token_shape, context_overflow or token_out_of_range
  ///         (stage input, checked before any tape operation), or stage_failed.
  [[nodiscard]] std::expected<autograd::TensorValue, DecoderError> forward(
      const autograd::TokenGrid& ids) const;
  /// forward() keeping every intermediate (embeddings, each block's record, the final
  /// norm, the logits). \return forward()'s errors.
  [[nodiscard]] std::expected<DecoderForward, DecoderError> forward_stages(
      const autograd::TokenGrid& ids) const;
  /// The mean next-token cross-entropy, rank 0, in nats: `targets(b,t)` is the token
  /// that follows `inputs(b,t)` (Chapter 5's windows shifted by one).
  /// \return forward()'s errors, DecoderErrorCode::target_shape or token_out_of_range
  ///         (stage input) for bad targets.
  [[nodiscard]] std::expected<autograd::TensorValue, DecoderError> loss(
      const autograd::TokenGrid& inputs, const autograd::TokenGrid& targets) const;
  // endregion: decoder-forward-api

  // region: decoder-parameters-api
  /// Every parameter, a leaf of tape(), in the order of decoder_parameter_specs().
  [[nodiscard]] const nn::NamedParameters& parameters() const noexcept {
    return parameters_;
  }
  /// The number of learned scalars (decoder_parameter_count()).
  [[nodiscard]] std::size_t parameter_count() const noexcept {
    return parameters_.scalar_count();
  }
  /// The sizes and constants.
  [[nodiscard]] const DecoderConfig& config() const noexcept { return config_; }
  /// The tape the parameters live on and forward passes record on.
  [[nodiscard]] autograd::Tape tape() const { return tape_; }
  /// A copy of every parameter's value, in parameters() order (for an optimizer or a
  /// checkpoint). \return stage_failed wrapping the tape's error (a released tape).
  [[nodiscard]] std::expected<std::vector<tensor::Tensor>, DecoderError> values() const;
  /// Every parameter's gradient accumulated on tape() (zeros where no backward pass
  /// reached it), in parameters() order: what an optimizer step reads.
  /// \return stage_failed wrapping the tape's error (a released tape).
  [[nodiscard]] std::expected<std::vector<tensor::Tensor>, DecoderError> gradients()
      const;
  /// Replaces every value (e.g. after an AdamW step) and moves the model to a fresh
  /// tape whose leaves hold them; checked first, so a rejected call changes nothing.
  /// \return DecoderErrorCode::value_count or value_shape (stage values).
  [[nodiscard]] std::expected<void, DecoderError> set_values(
      std::vector<tensor::Tensor> values);
  /// Moves the model to a fresh tape holding the same values (frees the recorded graph
  /// once no handle to the old tape remains). \return values()'s errors.
  [[nodiscard]] std::expected<void, DecoderError> reset_tape();
  // endregion: decoder-parameters-api

  /// The token embedding table E `[V, d]`, also the output matrix (tied).
  [[nodiscard]] const nn::Embedding& embedding() const noexcept { return embedding_; }
  /// The blocks, bottom first.
  [[nodiscard]] const std::vector<DecoderBlock>& blocks() const noexcept {
    return blocks_;
  }
  /// The final RMSNorm.
  [[nodiscard]] const nn::RMSNorm& final_norm() const noexcept { return final_norm_; }

 private:
  [[nodiscard]] static std::expected<DecoderModel, DecoderError> assemble(
      const DecoderConfig& config, autograd::Tape tape, nn::Embedding embedding,
      std::vector<DecoderBlock> blocks, nn::RMSNorm final_norm);
  [[nodiscard]] static std::expected<DecoderBlock, DecoderError> build_block(
      const DecoderConfig& config, std::size_t index,
      const std::function<nn::NamedParameter()>& leaf);
  DecoderModel(DecoderConfig config, autograd::Tape tape, nn::Embedding embedding,
               std::vector<DecoderBlock> blocks, nn::RMSNorm final_norm,
               nn::NamedParameters parameters)
      : config_(config),
        tape_(std::move(tape)),
        embedding_(std::move(embedding)),
        blocks_(std::move(blocks)),
        final_norm_(std::move(final_norm)),
        parameters_(std::move(parameters)) {}

  DecoderConfig config_;
  autograd::Tape tape_;
  nn::Embedding embedding_;
  std::vector<DecoderBlock> blocks_;
  nn::RMSNorm final_norm_;
  nn::NamedParameters parameters_;
};

}  // namespace llmfs::models
