// Chapter 38
#pragma once
/// \file
/// \brief A model-wide key/value cache (one KvCache per block), the decoder's forward
/// pass over new tokens with that cache, and the generation loop: prefill the prompt,
/// then decode one token at a time (Chapter 38). Source: the prefill and generation
/// phases of Pope et al. (2022), "Efficiently Scaling Transformer Inference", §2–3.

#include <cstddef>
#include <cstdint>
#include <expected>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include <llmfs/autograd/error.hpp>
#include <llmfs/autograd/model_ops.hpp>
#include <llmfs/core/error.hpp>
#include <llmfs/generation/kv_cache.hpp>
#include <llmfs/generation/sampling.hpp>
#include <llmfs/models/decoder.hpp>
#include <llmfs/nn/error.hpp>
#include <llmfs/tensor/error.hpp>
#include <llmfs/tensor/tensor.hpp>
#include <llmfs/text/merges.hpp>

namespace llmfs::generation {

// region: generation-errors
/// What generation rejected, or that a lower stage failed.
enum class GenerationErrorCode {
  token_shape,          ///< ids not a `[B, T]` grid of B·T ids with B ≥ 1
  empty_prompt,         ///< T = 0: there is no token to continue from
  context_overflow,     ///< the prompt alone is longer than the context T_max
  too_long,             ///< prompt + new tokens exceed T_max (checked before any work)
  token_out_of_range,   ///< an input id outside `[0, V)`
  cache_mismatch,       ///< the cache was made for another model or batch size
  capacity_exceeded,    ///< the new tokens do not fit the cache's free slots
  chooser_failed,       ///< the next-token chooser refused (its message is the detail)
  chosen_out_of_range,  ///< the chooser returned an id outside `[0, V)`
  stage_failed,         ///< a lower stage failed: `stage` says which, `cause` says why
};

/// The step of generation an error comes from.
enum class GenerationStage {
  configuration,  ///< the model's configuration and the cache's sizes
  input,          ///< the prompt or the new ids
  embedding,      ///< `x₀ = E[ids]`
  block,          ///< one decoder block (the detail names it, e.g. `blocks.1`)
  final_norm,     ///< `RMSNorm(x_N)`
  logits,         ///< `RMSNorm(x_N)·Eᵀ`
  choose,         ///< picking the next token from the last position's logits
};

/// The fixed name of a stage, e.g. `"choose"`.
[[nodiscard]] std::string_view describe(GenerationStage stage) noexcept;
/// The fixed description of a code, e.g. `"generation longer than the context"`.
[[nodiscard]] std::string_view describe(GenerationErrorCode code) noexcept;

/// The lower error a generation error wraps.
using GenerationCause = std::variant<CacheError, models::DecoderError, nn::NnError,
                                     tensor::TensorError, autograd::AutogradError>;

/// One typed generation error. Formats as `<stage>: <description> (<detail>)`, then
/// `: <cause>` for a failed lower stage.
using GenerationError =
    StageError<GenerationErrorCode, GenerationErrorCode::stage_failed, GenerationCause,
               GenerationStage>;
// endregion: generation-errors

// region: model-cache-class
/// One KvCache per decoder block, all of the same length: block i's cache holds the
/// rotated keys and the values of block i's attention for every position seen so far.
/// Capacity T_max is the model's context length.
class ModelCache {
 public:
  /// N empty caches `[B, h, T_max, d_h]` for a model with `config` and `batch`
  /// sequences. \return models::validate()'s error (stage configuration), or
  ///         GenerationErrorCode::token_shape for B = 0, or a CacheError (size).
  [[nodiscard]] static std::expected<ModelCache, GenerationError> create(
      const models::DecoderConfig& config, std::size_t batch);

  /// Filled slots per sequence (every layer has the same): the next token's position.
  [[nodiscard]] std::size_t length() const noexcept;
  /// T_max.
  [[nodiscard]] std::size_t capacity() const noexcept { return config_.context_length; }
  /// B.
  [[nodiscard]] std::size_t batch() const noexcept { return batch_; }
  /// The configuration the cache was made for.
  [[nodiscard]] const models::DecoderConfig& config() const noexcept { return config_; }
  /// The per-block caches, bottom first.
  [[nodiscard]] std::span<const KvCache> layers() const noexcept { return layers_; }
  /// The per-block caches, writable (forward_cached() appends to each).
  [[nodiscard]] std::span<KvCache> layers() noexcept { return layers_; }
  /// The bytes every layer's slot tables hold, measured from the cache objects.
  [[nodiscard]] std::size_t allocated_bytes() const noexcept;
  /// Empties every layer; the storage stays allocated.
  void clear() noexcept;

 private:
  ModelCache(models::DecoderConfig config, std::size_t batch,
             std::vector<KvCache> layers)
      : config_(config), batch_(batch), layers_(std::move(layers)) {}
  models::DecoderConfig config_;
  std::size_t batch_;
  std::vector<KvCache> layers_;
};

/// The bytes a model-wide cache needs, derived: `2·N·B·T_max·d·sizeof(double)` (keys
/// and values, N layers, d = h·d_h). \return GenerationErrorCode::stage_failed wrapping
/// CacheErrorCode::size_overflow when it does not fit.
[[nodiscard]] std::expected<std::size_t, GenerationError> model_cache_bytes(
    const models::DecoderConfig& config, std::size_t batch);
// endregion: model-cache-class

// region: forward-cached-api
/// The decoder's logits `[B,T_new,V]` for new ids `[B,T_new]` at positions
/// `cache.length()..cache.length()+T_new−1`, every block attending over its cache
/// (Chapter 37's attention_step), which grows by T_new. A prefill is one call with the
/// whole prompt; a decode step is one call with one token per sequence. Equal to the
/// last T_new positions of `model.forward()` on the whole sequence (Chapter 32).
/// Every check comes before the first cache changes: a rejected call changes nothing.
/// \return GenerationErrorCode::token_shape, empty_prompt, token_out_of_range,
///         cache_mismatch or capacity_exceeded (stage input), or stage_failed.
[[nodiscard]] std::expected<tensor::Tensor, GenerationError> forward_cached(
    const models::DecoderModel& model, const autograd::TokenGrid& ids,
    ModelCache& cache);
// endregion: forward-cached-api

// region: chooser-api
/// Chooses the next token of sequence `row` from its logits `[V]` (the last position's
/// row). Greedy (greedy_chooser()) or a sampler (Chapter 36) wrapped in this shape; a
/// refusal is a message, reported as GenerationErrorCode::chooser_failed.
using NextTokenChooser = std::function<std::expected<text::TokenId, std::string>(
    std::span<const double> logits, std::size_t row)>;

/// The argmax of the logits, ties to the lower id; never refuses.
[[nodiscard]] NextTokenChooser greedy_chooser();

/// Chapter 36's sample_token() with `config`, one SplitMix64 per sequence: row b's
/// generator is seeded with the b-th draw of `SplitMix64(seed)`, so a row's tokens do
/// not depend on how many rows share the batch. Copies of the chooser share the
/// generators. A sampling error becomes the refusal's message.
[[nodiscard]] NextTokenChooser sampling_chooser(const SamplingConfig& config,
                                                std::uint64_t seed);
// endregion: chooser-api

// region: generate-api
/// How generate() computes each step's logits.
enum class CacheMode {
  cached,  ///< prefill once, then one token per step through the cache: O(T) per token
  uncached,  ///< the whole sequence again from an empty cache every step: O(T²) per
             ///< token
};

/// The prompt and what followed it.
struct Generation {
  autograd::TokenGrid tokens;     ///< `[B, L + n]`: the prompt, then the n new tokens
  std::size_t prompt_length = 0;  ///< L
  /// The logits `[B, V]` each new token was chosen from, one per step.
  std::vector<tensor::Tensor> step_logits;
  /// The cache's length after each step's forward pass (cached mode; empty for
  /// uncached): L after the prefill, then L+1, L+2, ...
  std::vector<std::size_t> cache_lengths;
  /// Token positions that went through the model, summed over steps and rows:
  /// `B·(L+n−1)` cached, `B·Σ_s (L+s)` uncached — the work per token, O(1) against O(T)
  /// positions.
  std::size_t positions_computed = 0;
};

/// Continues every row of `prompt [B, L]` by `max_new_tokens` tokens: the prompt's
/// logits give the first new token, which is fed back for the next, and so on. The
/// length is checked first: L + max_new_tokens ≤ T_max, else a typed error and no
/// work (generation never stops silently at the context's end). `max_new_tokens = 0`
/// returns the prompt. \return GenerationErrorCode::token_shape, empty_prompt,
/// context_overflow, too_long, token_out_of_range (stage input), chooser_failed,
/// chosen_out_of_range (stage choose), or stage_failed.
[[nodiscard]] std::expected<Generation, GenerationError> generate(
    const models::DecoderModel& model, const autograd::TokenGrid& prompt,
    std::size_t max_new_tokens, const NextTokenChooser& choose,
    CacheMode mode = CacheMode::cached);
// endregion: generate-api

}  // namespace llmfs::generation
