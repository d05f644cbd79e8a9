// Chapter 36
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <llmfs/core/try.hpp>
#include <llmfs/generation/sampling.hpp>

namespace llmfs::generation {

std::string_view describe(SamplingErrorCode code) noexcept {
  switch (code) {
    case SamplingErrorCode::empty_logits: return "no logits (V = 0)";
    case SamplingErrorCode::nan_logit: return "NaN logit";
    case SamplingErrorCode::infinite_logit: return "logit +inf";
    case SamplingErrorCode::no_finite_logit: return "every logit is -inf";
    case SamplingErrorCode::zero_temperature:
      return "temperature 0 (use greedy decoding)";
    case SamplingErrorCode::negative_temperature: return "negative temperature";
    case SamplingErrorCode::non_finite_temperature: return "temperature not finite";
    case SamplingErrorCode::zero_top_k: return "top-k with k = 0 keeps no token";
    case SamplingErrorCode::bad_uniform: return "uniform draw outside [0, 1)";
    case SamplingErrorCode::bad_distribution: return "not a probability distribution";
  }
  return "unknown sampling error";
}

// region: config-checks
std::expected<void, SamplingError> validate(const SamplingConfig& config) {
  if (config.decoding == Decoding::greedy) return {};
  const double tau = config.temperature;
  const auto detail = fmt::format("temperature {}", tau);
  if (!std::isfinite(tau))
    return reject(SamplingErrorCode::non_finite_temperature, "sampling config", detail);
  if (tau == 0.0)
    return reject(SamplingErrorCode::zero_temperature, "sampling config", detail);
  if (tau < 0.0)
    return reject(SamplingErrorCode::negative_temperature, "sampling config", detail);
  if (config.top_k == std::size_t{0})
    return reject(SamplingErrorCode::zero_top_k, "sampling config", "top_k 0");
  return {};
}
// endregion: config-checks

namespace {

// region: logit-checks
/// NaN and +∞ are refused; −∞ is a masked token; at least one logit must be finite.
[[nodiscard]] std::expected<void, SamplingError> validate_logits(
    std::span<const double> logits) {
  if (logits.empty()) return reject(SamplingErrorCode::empty_logits, "logits");
  bool any_finite = false;
  for (std::size_t i = 0; i < logits.size(); ++i) {
    const double z = logits[i];
    if (std::isnan(z))
      return reject(SamplingErrorCode::nan_logit, "logits", fmt::format("index {}", i));
    if (z == std::numeric_limits<double>::infinity())
      return reject(SamplingErrorCode::infinite_logit, "logits",
                    fmt::format("index {}", i));
    any_finite = any_finite || std::isfinite(z);
  }
  if (!any_finite)
    return reject(SamplingErrorCode::no_finite_logit, "logits",
                  fmt::format("{} logits", logits.size()));
  return {};
}
// endregion: logit-checks

/// The arg max, lowest id on a tie (a strict > keeps the first maximum).
std::size_t arg_max(std::span<const double> logits) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < logits.size(); ++i)
    if (logits[i] > logits[best]) best = i;
  return best;
}

// region: tempered-softmax
/// softmax(z/τ), computed as exp((z_i − m)/τ) / Σ: subtracting the maximum m before
/// dividing keeps every exponent ≤ 0, so even τ = 1e−300 cannot overflow.
std::vector<double> tempered_softmax(std::span<const double> logits, double tau) {
  const double m = *std::ranges::max_element(logits);
  std::vector<double> weights(logits.size());
  double total = 0.0;
  for (std::size_t i = 0; i < logits.size(); ++i) {
    weights[i] = std::exp((logits[i] - m) / tau);  // exp(−∞) = 0 for a masked token
    total += weights[i];
  }
  for (double& w : weights)
    w /= total;  // total ≥ 1: the maximum contributes exp(0)
  return weights;
}
// endregion: tempered-softmax

}  // namespace

// region: top-k-ids
std::vector<TokenId> top_k_ids(std::span<const double> logits, std::size_t k) {
  std::vector<TokenId> ids(logits.size());
  std::iota(ids.begin(), ids.end(), TokenId{0});
  const std::size_t keep = std::min(k, ids.size());
  // Larger logit first; of equal logits the lower id first: a strict total order, so
  // the k kept ids are exactly determined.
  std::ranges::partial_sort(ids, ids.begin() + static_cast<std::ptrdiff_t>(keep),
                            [&](TokenId a, TokenId b) {
                              const double za = logits[static_cast<std::size_t>(a)];
                              const double zb = logits[static_cast<std::size_t>(b)];
                              return za > zb || (za == zb && a < b);
                            });
  ids.resize(keep);
  return ids;
}
// endregion: top-k-ids

// region: sampling-stages-impl
std::expected<SamplingStages, SamplingError> sampling_stages(
    std::span<const double> logits, const SamplingConfig& config) {
  LLMFS_TRY(validate(config));
  LLMFS_TRY(validate_logits(logits));
  const std::size_t vocab = logits.size();
  if (config.decoding == Decoding::greedy) {
    std::vector<double> one_hot(vocab, 0.0);
    one_hot[arg_max(logits)] = 1.0;
    std::vector<bool> kept(vocab, false);
    kept[arg_max(logits)] = true;
    return SamplingStages{one_hot, kept, one_hot};
  }
  SamplingStages stages{tempered_softmax(logits, config.temperature),
                        std::vector<bool>(vocab, !config.top_k),
                        {}};
  if (config.top_k)
    for (TokenId id : top_k_ids(logits, *config.top_k))
      stages.kept[static_cast<std::size_t>(id)] = true;
  double kept_mass = 0.0;  // > 0: the arg max is always kept
  for (std::size_t i = 0; i < vocab; ++i)
    if (stages.kept[i]) kept_mass += stages.tempered[i];
  stages.probabilities.assign(vocab, 0.0);
  for (std::size_t i = 0; i < vocab; ++i)
    if (stages.kept[i]) stages.probabilities[i] = stages.tempered[i] / kept_mass;
  return stages;
}
// endregion: sampling-stages-impl

std::expected<std::vector<double>, SamplingError> sampling_distribution(
    std::span<const double> logits, const SamplingConfig& config) {
  auto stages = LLMFS_TRY(sampling_stages(logits, config));
  return std::move(stages.probabilities);
}

namespace {

// region: distribution-checks
/// u in [0, 1); every p finite and ≥ 0; returns the last id of positive probability.
[[nodiscard]] std::expected<std::size_t, SamplingError> check_draw(
    std::span<const double> p, double u) {
  if (!(u >= 0.0 && u < 1.0))
    return reject(SamplingErrorCode::bad_uniform, "inverse CDF",
                  fmt::format("u {}", u));
  std::size_t last_positive = p.size();
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (!(p[i] >= 0.0 && std::isfinite(p[i])))
      return reject(SamplingErrorCode::bad_distribution, "inverse CDF",
                    fmt::format("p[{}] = {}", i, p[i]));
    if (p[i] > 0.0) last_positive = i;
  }
  if (last_positive == p.size())
    return reject(SamplingErrorCode::bad_distribution, "inverse CDF", "sum 0");
  return last_positive;
}
// endregion: distribution-checks

}  // namespace

// region: inverse-cdf
std::expected<TokenId, SamplingError> inverse_cdf(std::span<const double> probabilities,
                                                  double u) {
  const std::size_t last_positive = LLMFS_TRY(check_draw(probabilities, u));
  double cumulative = 0.0;  // Σ_{i ≤ j} p_i, in id order
  for (std::size_t j = 0; j < probabilities.size(); ++j) {
    cumulative += probabilities[j];
    if (cumulative > u) return static_cast<TokenId>(j);
  }
  return static_cast<TokenId>(last_positive);  // rounding left the total ≤ u
}
// endregion: inverse-cdf

// region: sample-token
std::expected<TokenId, SamplingError> sample_token(std::span<const double> logits,
                                                   const SamplingConfig& config,
                                                   SplitMix64& rng) {
  const auto probabilities = LLMFS_TRY(sampling_distribution(logits, config));
  if (config.decoding == Decoding::greedy)
    return static_cast<TokenId>(arg_max(logits));  // nothing drawn
  return inverse_cdf(probabilities, rng.next_unit());
}
// endregion: sample-token

}  // namespace llmfs::generation
