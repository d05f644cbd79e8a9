// Chapter 6
#include <algorithm>
#include <cmath>
#include <limits>

#include <llmfs/core/try.hpp>
#include <llmfs/models/bigram.hpp>

namespace llmfs::models {

std::string_view describe(BigramErrorCode code) noexcept {
  switch (code) {
    case BigramErrorCode::empty_vocabulary: return "empty vocabulary";
    case BigramErrorCode::special_out_of_range: return "special token out of range";
    case BigramErrorCode::bad_smoothing:
      return "smoothing alpha must be finite and > 0";
    case BigramErrorCode::token_out_of_range: return "token id out of range";
    case BigramErrorCode::vocabulary_too_large: return "vocabulary too large";
  }
  return "unknown bigram error";
}

namespace {

// region: fit-checks
// A configuration the formula can use: V ≥ 1, both specials in [0, V), 0 < α < ∞;
// then every token of every document in [0, V), named by document and position.
[[nodiscard]] std::expected<void, BigramError> check_config(const BigramConfig& c) {
  constexpr std::string_view stage = "bigram fit";
  if (c.vocab_size == 0)
    return reject(BigramErrorCode::empty_vocabulary, stage, "V = 0");
  constexpr std::size_t ids = std::size_t{std::numeric_limits<TokenId>::max()} + 1;
  if (c.vocab_size > ids)  // also keeps prev·V + next below 2^62
    return reject(BigramErrorCode::vocabulary_too_large, stage,
                  fmt::format("V = {} > {}", c.vocab_size, ids));
  const auto v = static_cast<std::int64_t>(c.vocab_size);
  if (c.bos < 0 || c.bos >= v || c.eos < 0 || c.eos >= v)
    return reject(BigramErrorCode::special_out_of_range, stage,
                  fmt::format("BOS = {}, EOS = {}, V = {}", c.bos, c.eos, v));
  if (!std::isfinite(c.alpha) || c.alpha <= 0.0)
    return reject(BigramErrorCode::bad_smoothing, stage,
                  fmt::format("alpha = {}", c.alpha));
  return {};
}

[[nodiscard]] std::expected<void, BigramError> check_tokens(
    std::span<const TokenSequence> documents, std::size_t vocab_size) {
  for (std::size_t d = 0; d < documents.size(); ++d) {
    const TokenSequence& tokens = documents[d];
    for (std::size_t t = 0; t < tokens.size(); ++t)
      if (tokens[t] < 0 || static_cast<std::size_t>(tokens[t]) >= vocab_size)
        return reject(BigramErrorCode::token_out_of_range, "bigram fit",
                      fmt::format("document {}, position {}: id {} (V = {})", d, t,
                                  tokens[t], vocab_size));
  }
  return {};
}
// endregion: fit-checks

}  // namespace

// region: fit
// documents -> counts. Each document is framed as BOS t_1 … t_n EOS; its n + 1 pairs
// become keys prev·V + next, which are sorted and run-length counted into compressed
// sparse rows: row prev holds its distinct next ids in ascending order with counts.
std::expected<BigramModel, BigramError> BigramModel::fit(
    std::span<const TokenSequence> documents, const BigramConfig& config) {
  LLMFS_TRY(check_config(config));
  LLMFS_TRY(check_tokens(documents, config.vocab_size));
  const std::uint64_t v = config.vocab_size;
  std::vector<std::uint64_t> keys;
  for (const TokenSequence& tokens : documents) {
    std::uint64_t prev = static_cast<std::uint64_t>(config.bos);
    for (TokenId next : tokens) {
      keys.push_back(prev * v + static_cast<std::uint64_t>(next));
      prev = static_cast<std::uint64_t>(next);
    }
    keys.push_back(prev * v + static_cast<std::uint64_t>(config.eos));
  }
  std::ranges::sort(keys);
  BigramModel model;
  model.config_ = config;
  model.pairs_ = keys.size();
  model.totals_.assign(v, 0);
  model.row_start_.assign(v + 1, 0);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const std::uint64_t prev = keys[i] / v;
    ++model.totals_[prev];
    if (i > 0 && keys[i] == keys[i - 1]) {
      ++model.counts_.back();
      continue;
    }
    model.next_.push_back(static_cast<TokenId>(keys[i] % v));
    model.counts_.push_back(1);
    ++model.row_start_[prev + 1];  // entries in row prev, summed into offsets below
  }
  for (std::size_t r = 0; r < v; ++r)
    model.row_start_[r + 1] += model.row_start_[r];
  return model;
}
// endregion: fit

std::expected<BigramModel, BigramError> BigramModel::with_alpha(double alpha) const {
  BigramConfig config = config_;
  config.alpha = alpha;
  LLMFS_TRY(check_config(config));
  BigramModel copy = *this;
  copy.config_ = config;
  return copy;
}

std::expected<void, BigramError> BigramModel::check_id(TokenId id,
                                                       std::string_view stage) const {
  if (id < 0 || static_cast<std::size_t>(id) >= config_.vocab_size)
    return reject(BigramErrorCode::token_out_of_range, std::string(stage),
                  fmt::format("id {} (V = {})", id, config_.vocab_size));
  return {};
}

// region: probability
// c(prev, next) by binary search in row prev (0 when the pair was never seen), then
// the add-α formula: every pair gets α pseudo-counts, so no probability is 0.
std::uint64_t BigramModel::stored_count(TokenId prev, TokenId next) const noexcept {
  const auto first = next_.begin() + static_cast<std::ptrdiff_t>(row_start_[prev]);
  const auto last = next_.begin() + static_cast<std::ptrdiff_t>(row_start_[prev + 1]);
  const auto at = std::lower_bound(first, last, next);
  return at != last && *at == next
             ? counts_[static_cast<std::size_t>(at - next_.begin())]
             : 0;
}

std::expected<double, BigramError> BigramModel::probability(TokenId prev,
                                                            TokenId next) const {
  LLMFS_TRY(check_id(prev, "bigram probability"));
  LLMFS_TRY(check_id(next, "bigram probability"));
  const double alpha = config_.alpha;
  const double v = static_cast<double>(config_.vocab_size);
  const double pair = static_cast<double>(stored_count(prev, next));
  const double total = static_cast<double>(totals_[static_cast<std::size_t>(prev)]);
  return (pair + alpha) / (total + alpha * v);
}
// endregion: probability

std::expected<std::uint64_t, BigramError> BigramModel::count(TokenId prev,
                                                             TokenId next) const {
  LLMFS_TRY(check_id(prev, "bigram count"));
  LLMFS_TRY(check_id(next, "bigram count"));
  return stored_count(prev, next);
}

std::expected<std::uint64_t, BigramError> BigramModel::row_total(TokenId prev) const {
  LLMFS_TRY(check_id(prev, "bigram count"));
  return totals_[static_cast<std::size_t>(prev)];
}

std::expected<std::vector<double>, BigramError> BigramModel::row(TokenId prev) const {
  LLMFS_TRY(check_id(prev, "bigram row"));
  const double alpha = config_.alpha;
  const double total = static_cast<double>(totals_[static_cast<std::size_t>(prev)]);
  const double denominator = total + alpha * static_cast<double>(config_.vocab_size);
  std::vector<double> probabilities(config_.vocab_size, alpha / denominator);
  for (std::size_t i = row_start_[prev]; i < row_start_[prev + 1]; ++i)
    probabilities[static_cast<std::size_t>(next_[i])] =
        (static_cast<double>(counts_[i]) + alpha) / denominator;
  return probabilities;
}

// region: sample
// Inverse CDF over the smoothed row, in pseudo-count units (no division needed): the
// target r·(c(prev) + α·V), r uniform on [0, 1); walk ids 0, 1, … adding c(prev, j) + α
// until the running sum passes the target. Rounding can leave the last sum a hair
// below the target; then the walk ends at id V − 1, the last one it reached.
std::expected<TokenId, BigramError> BigramModel::sample(TokenId prev,
                                                        SplitMix64& rng) const {
  LLMFS_TRY(check_id(prev, "bigram sample"));
  const double alpha = config_.alpha;
  const auto row = static_cast<std::size_t>(prev);
  const double total = static_cast<double>(totals_[row]);
  const double target =
      rng.next_unit() * (total + alpha * static_cast<double>(config_.vocab_size));
  std::size_t entry = row_start_[row];
  double cumulative = 0.0;
  for (std::size_t j = 0; j < config_.vocab_size; ++j) {
    double weight = alpha;
    if (entry < row_start_[row + 1] && static_cast<std::size_t>(next_[entry]) == j)
      weight += static_cast<double>(counts_[entry++]);
    cumulative += weight;
    if (cumulative > target) return static_cast<TokenId>(j);
  }
  return static_cast<TokenId>(config_.vocab_size - 1);
}
// endregion: sample

std::size_t BigramModel::stored_bytes() const noexcept {
  return row_start_.size() * sizeof(std::size_t) +
         totals_.size() * sizeof(std::uint64_t) +
         next_.size() * (sizeof(TokenId) + sizeof(std::uint64_t));
}

std::size_t BigramModel::dense_bytes() const noexcept {
  return config_.vocab_size * config_.vocab_size * sizeof(std::uint64_t);
}

// region: sample-document
// BOS, then one draw per step from the row of the last token, until EOS or the cap.
std::expected<TokenSequence, BigramError> sample_document(const BigramModel& model,
                                                          SplitMix64& rng,
                                                          std::size_t max_tokens) {
  TokenSequence tokens;
  TokenId prev = model.config().bos;
  while (tokens.size() < max_tokens) {
    const TokenId next = LLMFS_TRY(model.sample(prev, rng));
    if (next == model.config().eos) break;
    tokens.push_back(next);
    prev = next;
  }
  return tokens;
}
// endregion: sample-document

}  // namespace llmfs::models
