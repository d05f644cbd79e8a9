// Chapter 36
#pragma once
/// \file
/// \brief Turning one row of logits into a next token: temperature, top-k, renormalise,
/// and a draw by inverse CDF from SplitMix64; or greedy decoding, the arg max (Chapter
/// 36; Ackley, Hinton and Sejnowski 1985 for the temperature of a Boltzmann
/// distribution; Fan, Lewis and Dauphin 2018 for top-k sampling).
///
/// Units: a logit is a real score in nats (its softmax is a probability); the
/// temperature τ is a positive real that divides every logit; a probability is a double
/// in `[0, 1]`; a token is a text::TokenId in `[0, V)`, V the length of the row.

#include <cstddef>
#include <expected>
#include <optional>
#include <span>
#include <string_view>
#include <variant>
#include <vector>

#include <fmt/format.h>
#include <fmt/std.h>

#include <llmfs/core/error.hpp>
#include <llmfs/core/splitmix64.hpp>
#include <llmfs/text/merges.hpp>

namespace llmfs::generation {

/// A token id (Chapter 3's type).
using TokenId = text::TokenId;

// region: sampling-config
/// How a next token is chosen from a row of logits.
enum class Decoding {
  sample,  ///< draw from softmax(logits/τ), cut to the top k and renormalised
  greedy,  ///< the arg max, lowest id on a tie; τ and k are not read, nothing is drawn
};

/// The settings of one choice. τ = 0 is not greedy decoding: it is refused
/// (SamplingErrorCode::zero_temperature) and greedy decoding is its own mode.
struct SamplingConfig {
  double temperature = 1.0;              ///< τ, finite and > 0 (sample mode only)
  std::optional<std::size_t> top_k{};    ///< k ≥ 1 keeps the k largest; none: no cut
  Decoding decoding = Decoding::sample;  ///< sample, or greedy
};
// endregion: sampling-config

// region: sampling-errors
/// What makes a choice impossible.
enum class SamplingErrorCode {
  empty_logits,    ///< V = 0: there is no token to choose
  nan_logit,       ///< a logit is NaN
  infinite_logit,  ///< a logit is +∞ (−∞ is allowed: that token has probability 0)
  no_finite_logit,         ///< every logit is −∞: no token is allowed
  zero_temperature,        ///< τ = 0: use Decoding::greedy
  negative_temperature,    ///< τ < 0 (it would turn the ranking upside down)
  non_finite_temperature,  ///< τ is NaN or ±∞
  zero_top_k,              ///< k = 0 keeps nothing; leave top_k empty for no cut
  bad_uniform,             ///< a draw's u is outside `[0, 1)`
  bad_distribution,        ///< a probability negative, NaN or ∞, or a sum of 0
};

/// The fixed description of a code, e.g. `"temperature 0 (use greedy decoding)"`.
[[nodiscard]] std::string_view describe(SamplingErrorCode code) noexcept;

/// One typed sampling error: the code, the stage (`sampling config`, `logits`,
/// `inverse CDF`) and a detail naming the value and its index. Sampling reads plain
/// numbers and wraps no lower error: the cause type is `std::monostate`, never set.
using SamplingError =
    StageError<SamplingErrorCode, SamplingErrorCode::bad_distribution, std::monostate>;
// endregion: sampling-errors

// region: sampling-stages
/// Every stage of turning logits into a distribution, each `[V]`, by value.
struct SamplingStages {
  std::vector<double> tempered;  ///< softmax(logits/τ) over all V tokens
  std::vector<bool> kept;        ///< true for the k tokens top-k keeps
  std::vector<double>
      probabilities;  ///< tempered on the kept, renormalised; 0 elsewhere
};
// endregion: sampling-stages

// region: sampling-api
/// Checks a configuration (sample mode: τ finite and > 0, k ≥ 1 when given).
/// \return zero_temperature, negative_temperature, non_finite_temperature or zero_top_k
///         (stage `sampling config`); greedy mode accepts any τ and k.
[[nodiscard]] std::expected<void, SamplingError> validate(const SamplingConfig& config);

/// The k token ids top-k keeps, ranked by logit, largest first; of equal logits the
/// lower id ranks first, so exactly min(k, V) ids are kept. k ≥ V keeps every id.
/// Precondition: `logits` non-empty with no NaN (sampling_stages() checks this).
[[nodiscard]] std::vector<TokenId> top_k_ids(std::span<const double> logits,
                                             std::size_t k);

/// The three stages for one row of logits `[V]`: `tempered_i = exp((z_i − m)/τ) / Σ_j
/// exp((z_j − m)/τ)` with m the largest logit; `kept` from top_k_ids() (all true
/// without a cut); `probabilities_i = tempered_i / Σ_{kept} tempered_j` on kept ids.
/// Greedy mode: all three are the one-hot of the arg max (lowest id on a tie).
/// \return validate()'s errors, then empty_logits, nan_logit, infinite_logit or
///         no_finite_logit (stage `logits`, detail naming the index).
[[nodiscard]] std::expected<SamplingStages, SamplingError> sampling_stages(
    std::span<const double> logits, const SamplingConfig& config);

/// The final distribution, sampling_stages().probabilities: sums to 1 up to rounding.
/// \return the errors of sampling_stages().
[[nodiscard]] std::expected<std::vector<double>, SamplingError> sampling_distribution(
    std::span<const double> logits, const SamplingConfig& config);

/// The inverse CDF of `probabilities` at `u`: the smallest id j with
/// `Σ_{i ≤ j} p_i > u`, summing in id order; if rounding leaves the total at or below
/// u, the last id of positive probability. An id of probability 0 is never returned.
/// \return bad_uniform for u outside `[0, 1)`; bad_distribution for a negative, NaN or
///         infinite entry, an empty row or a zero sum (stage `inverse CDF`).
[[nodiscard]] std::expected<TokenId, SamplingError> inverse_cdf(
    std::span<const double> probabilities, double u);

/// One next token: greedy mode returns the arg max and leaves `rng` untouched; sample
/// mode draws u = rng.next_unit() once and returns inverse_cdf(sampling_distribution(),
/// u). The same seed, logits and config give the same token.
/// \return the errors of sampling_stages(); `rng` is not advanced on an error.
[[nodiscard]] std::expected<TokenId, SamplingError> sample_token(
    std::span<const double> logits, const SamplingConfig& config, SplitMix64& rng);
// endregion: sampling-api

}  // namespace llmfs::generation
