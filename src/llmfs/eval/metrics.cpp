// Chapter 7
#include <cmath>
#include <numbers>

#include <llmfs/core/try.hpp>
#include <llmfs/eval/metrics.hpp>

namespace llmfs::eval {

std::string_view describe(MetricsErrorCode code) noexcept {
  switch (code) {
    case MetricsErrorCode::no_tokens: return "no predicted tokens";
    case MetricsErrorCode::no_bytes: return "no bytes of text";
    case MetricsErrorCode::zero_probability: return "zero probability (infinite loss)";
    case MetricsErrorCode::invalid_probability: return "probability outside [0, 1]";
    case MetricsErrorCode::model: return "model query failed";
  }
  return "unknown metrics error";
}

namespace {

// region: compensated-sum
// Neumaier's compensated sum (1974): `compensation` keeps the low-order bits each
// addition rounds away, so a million surprisals add up to within an ulp or two of
// their exact sum, instead of drifting by ~N·ε in the worst case as a plain loop can.
struct CompensatedSum {
  double sum = 0.0;
  double compensation = 0.0;

  void add(double x) noexcept {
    const double t = sum + x;
    compensation += std::abs(sum) >= std::abs(x) ? (sum - t) + x : (x - t) + sum;
    sum = t;
  }
  [[nodiscard]] double value() const noexcept { return sum + compensation; }
};
// endregion: compensated-sum

// region: score-checks
// A probability the loss is defined for: 0 < p ≤ 1. Zero is its own error, because it
// is what an unsmoothed model produces: a loss of +∞ that would swamp every other
// token, so we refuse it and name the token instead of printing "inf".
[[nodiscard]] std::expected<void, MetricsError> check_probability(double p,
                                                                  std::size_t index) {
  if (std::isnan(p) || p < 0.0 || p > 1.0)
    return reject(MetricsErrorCode::invalid_probability, "score",
                  fmt::format("token {}: p = {}", index, p));
  if (p == 0.0)
    return reject(MetricsErrorCode::zero_probability, "score",
                  fmt::format("token {}: p = 0", index));
  return {};
}

[[nodiscard]] std::expected<void, MetricsError> check_tokens(const Score& score,
                                                             std::string_view stage) {
  if (score.tokens == 0)
    return reject(MetricsErrorCode::no_tokens, std::string(stage), "N = 0");
  return {};
}
// endregion: score-checks

}  // namespace

// region: score
// [N] probabilities -> the sums: each predicted token adds its surprisal −ln p, in
// nats, added with a compensated sum. All checks run first, so a refused input leaves
// no partial score.
std::expected<Score, MetricsError> score_probabilities(
    std::span<const double> probabilities, std::size_t bytes) {
  for (std::size_t i = 0; i < probabilities.size(); ++i)
    LLMFS_TRY(check_probability(probabilities[i], i));
  CompensatedSum nats;
  for (double p : probabilities)
    nats.add(-std::log(p));
  return Score{nats.value(), probabilities.size(), bytes};
}
// endregion: score

// region: metrics
// The three numbers from the same sums: the mean surprisal per token, its
// exponential, and the total converted to bits (÷ ln 2) spread over the text's bytes.
std::expected<double, MetricsError> cross_entropy(const Score& score) {
  LLMFS_TRY(check_tokens(score, "cross-entropy"));
  return score.total_nats / static_cast<double>(score.tokens);
}

std::expected<double, MetricsError> perplexity(const Score& score) {
  return std::exp(LLMFS_TRY(cross_entropy(score)));
}

std::expected<double, MetricsError> bits_per_byte(const Score& score) {
  if (score.bytes == 0)
    return reject(MetricsErrorCode::no_bytes, "bits per byte", "0 bytes");
  return score.total_nats / (std::numbers::ln2 * static_cast<double>(score.bytes));
}

std::expected<Metrics, MetricsError> summarize(const Score& score) {
  const double h = LLMFS_TRY(cross_entropy(score));
  const double ppl = LLMFS_TRY(perplexity(score));
  const double bpb = LLMFS_TRY(bits_per_byte(score));
  return Metrics{score, h, ppl, bpb};
}
// endregion: metrics

std::expected<double, MetricsError> uniform_cross_entropy(std::size_t vocab_size) {
  if (vocab_size == 0)
    return reject(MetricsErrorCode::no_tokens, "uniform cross-entropy", "V = 0");
  return std::log(static_cast<double>(vocab_size));
}

// region: score-bigram
// documents -> one score: the model predicts t_1 from BOS, each t_{i+1} from t_i, and
// EOS from t_n, so a document of n tokens adds n + 1 predictions.
std::expected<Score, MetricsError> score_bigram(
    const models::BigramModel& model, std::span<const models::TokenSequence> documents,
    std::size_t bytes) {
  const models::BigramConfig& config = model.config();
  CompensatedSum nats;
  std::size_t tokens = 0;
  for (std::size_t d = 0; d < documents.size(); ++d) {
    const std::string stage = fmt::format("score bigram document {}", d);
    models::TokenId prev = config.bos;
    for (std::size_t i = 0; i <= documents[d].size(); ++i) {
      const models::TokenId next =
          i < documents[d].size() ? documents[d][i] : config.eos;
      nats.add(-std::log(LLMFS_TRY_AT(stage, model.probability(prev, next))));
      ++tokens;
      prev = next;
    }
  }
  return Score{nats.value(), tokens, bytes};
}
// endregion: score-bigram

}  // namespace llmfs::eval
