// Chapter 6
#pragma once
/// \file
/// \brief The bigram baseline: counts of (previous token, next token) over documents,
/// add-α smoothing, probabilities P(next | prev) and sampling by inverse CDF (Chapter
/// 6; Shannon 1948; Lidstone 1920 and Jeffreys 1948 for add-α; Chen and Goodman 1999).
///
/// Units: a token is a llmfs::text::TokenId in `[0, V)`; counts are whole numbers of
/// token pairs; probabilities are doubles in `(0, 1]`.

#include <cstddef>
#include <cstdint>
#include <expected>
#include <span>
#include <string_view>
#include <variant>
#include <vector>

#include <fmt/format.h>
#include <fmt/std.h>

#include <llmfs/core/error.hpp>
#include <llmfs/core/splitmix64.hpp>
#include <llmfs/text/merges.hpp>

namespace llmfs::models {

/// A token id (Chapter 3's type): 0–255 a byte, then merges, then BOS and EOS.
using TokenId = text::TokenId;

/// The tokens of one document, without the special tokens (BOS and EOS are added by
/// the model, so a pair never crosses two documents).
using TokenSequence = std::vector<TokenId>;

// region: bigram-errors
/// What is wrong with a bigram's configuration or input.
enum class BigramErrorCode {
  empty_vocabulary,      ///< V = 0: no token to predict
  special_out_of_range,  ///< BOS or EOS is not below V
  bad_smoothing,         ///< α is not a finite number above zero (α ≤ 0, NaN, ∞)
  token_out_of_range,    ///< a token id is negative or not below V
  vocabulary_too_large,  ///< V above 2^31, one past the largest TokenId: the count
                         ///< tables could not be allocated
};

/// The fixed description of a code, e.g. `"token id out of range"`.
[[nodiscard]] std::string_view describe(BigramErrorCode code) noexcept;

/// One typed bigram error: the code, the stage (`bigram fit`, `bigram probability`,
/// `bigram sample`) and a detail naming the value and where it was found (document,
/// position). The bigram reads plain token ids and wraps no lower error: its cause
/// type is `std::monostate` and is never set.
using BigramError =
    StageError<BigramErrorCode, BigramErrorCode::token_out_of_range, std::monostate>;
// endregion: bigram-errors

// region: bigram-config
/// What a bigram model is fitted with: the vocabulary size V, the ids of the two
/// special tokens, and the add-α pseudo-count.
struct BigramConfig {
  std::size_t vocab_size = 0;  ///< V: token ids are `[0, V)`
  TokenId bos = 0;             ///< the beginning-of-document id, framing each document
  TokenId eos = 0;             ///< the end-of-document id, the last target of each
  double alpha = 1.0;          ///< α > 0, added to every count (α = 1: Laplace)
};
// endregion: bigram-config

/// A bigram language model: the counts c(prev, next) of a training set, stored
/// sparsely by row (compressed sparse rows), and the add-α smoothed probabilities
/// P(next | prev) = (c(prev, next) + α) / (c(prev) + α·V), where c(prev) is the number
/// of pairs that start with `prev`. A document `t_1 … t_n` contributes the n + 1 pairs
/// (BOS, t_1), (t_1, t_2), …, (t_n, EOS).
class BigramModel {
 public:
  /// Counts every pair of every document of `documents`, each framed as BOS + tokens +
  /// EOS.
  /// \return BigramErrorCode::empty_vocabulary, vocabulary_too_large,
  ///         special_out_of_range or bad_smoothing for a bad `config`;
  ///         token_out_of_range naming the document and position of the first id
  ///         outside `[0, V)`. Nothing is built on an error.
  [[nodiscard]] static std::expected<BigramModel, BigramError> fit(
      std::span<const TokenSequence> documents, const BigramConfig& config);

  /// The same counts smoothed with another α: a copy, no recounting (how chapter 7
  /// compares pseudo-counts on held-out text).
  /// \return BigramErrorCode::bad_smoothing for an α that is not finite and above zero.
  [[nodiscard]] std::expected<BigramModel, BigramError> with_alpha(double alpha) const;

  /// c(prev, next): how often `next` followed `prev` in the training documents.
  /// \return BigramErrorCode::token_out_of_range for an id outside `[0, V)`.
  [[nodiscard]] std::expected<std::uint64_t, BigramError> count(TokenId prev,
                                                                TokenId next) const;
  /// c(prev): how many training pairs start with `prev` (its row's total).
  /// \return BigramErrorCode::token_out_of_range for an id outside `[0, V)`.
  [[nodiscard]] std::expected<std::uint64_t, BigramError> row_total(TokenId prev) const;
  /// P(next | prev) = (c(prev, next) + α) / (c(prev) + α·V), in `(0, 1)`.
  /// \return BigramErrorCode::token_out_of_range for an id outside `[0, V)`.
  [[nodiscard]] std::expected<double, BigramError> probability(TokenId prev,
                                                               TokenId next) const;
  /// The whole smoothed row P(· | prev), `[V]`; it sums to 1 up to rounding.
  /// \return BigramErrorCode::token_out_of_range for an id outside `[0, V)`.
  [[nodiscard]] std::expected<std::vector<double>, BigramError> row(TokenId prev) const;
  /// One next token drawn from P(· | prev) by inverse CDF: u = rng.next_unit() in
  /// `[0, 1)`, and the smallest id j whose cumulative weight Σ_{k ≤ j} (c(prev, k) + α)
  /// exceeds u·(c(prev) + α·V). One draw from `rng` per call.
  /// \return BigramErrorCode::token_out_of_range for `prev` outside `[0, V)`; `rng` is
  ///         not advanced then.
  [[nodiscard]] std::expected<TokenId, BigramError> sample(TokenId prev,
                                                           SplitMix64& rng) const;

  /// V, the vocabulary size.
  [[nodiscard]] std::size_t vocab_size() const noexcept { return config_.vocab_size; }
  /// The configuration the model was fitted with.
  [[nodiscard]] const BigramConfig& config() const noexcept { return config_; }
  /// The number of training pairs counted (Σ over documents of tokens + 1).
  [[nodiscard]] std::uint64_t pairs() const noexcept { return pairs_; }
  /// The number of distinct pairs seen: the stored entries, at most min(pairs, V²).
  [[nodiscard]] std::size_t distinct_pairs() const noexcept { return next_.size(); }
  /// Bytes the sparse layout holds: row offsets `[V + 1]`, row totals `[V]`, and one
  /// (next id, count) entry per distinct pair.
  [[nodiscard]] std::size_t stored_bytes() const noexcept;
  /// Bytes a dense `[V, V]` table of 64-bit counts would hold: 8·V².
  [[nodiscard]] std::size_t dense_bytes() const noexcept;

 private:
  BigramModel() = default;
  [[nodiscard]] std::expected<void, BigramError> check_id(TokenId id,
                                                          std::string_view stage) const;
  [[nodiscard]] std::uint64_t stored_count(TokenId prev, TokenId next) const noexcept;

  BigramConfig config_;
  std::uint64_t pairs_ = 0;
  std::vector<std::size_t> row_start_;  ///< [V + 1]: row r is next_[row_start_[r] ..)
  std::vector<TokenId> next_;           ///< [distinct pairs], ascending within a row
  std::vector<std::uint64_t> counts_;   ///< [distinct pairs], c(prev, next) > 0
  std::vector<std::uint64_t> totals_;   ///< [V], c(prev)
};

/// Samples one document: starts from BOS and draws next tokens until EOS or until
/// `max_tokens` tokens have been drawn. Returns the drawn tokens without BOS and
/// without the final EOS.
/// \return the error of BigramModel::sample (never, for a fitted model).
[[nodiscard]] std::expected<TokenSequence, BigramError> sample_document(
    const BigramModel& model, SplitMix64& rng, std::size_t max_tokens);

}  // namespace llmfs::models
