// Chapter 7
#pragma once
/// \file
/// \brief Language-model metrics: cross-entropy in nats per predicted token, perplexity
/// and bits per byte, accumulated over documents (Chapter 7; Shannon 1948 and 1951;
/// Jelinek, Mercer, Bahl and Baker 1977 for perplexity; Gao et al. 2020, "The Pile",
/// for bits per byte across tokenizers).
///
/// Units: a probability is a double in `(0, 1]`; a loss is in nats (natural log); a
/// byte is one byte of the UTF-8 text whose tokens were predicted.

#include <cstddef>
#include <expected>
#include <span>
#include <string_view>

#include <fmt/format.h>

#include <llmfs/core/error.hpp>
#include <llmfs/models/bigram.hpp>

namespace llmfs::eval {

// region: metrics-errors
/// What makes a metric undefined.
enum class MetricsErrorCode {
  no_tokens,            ///< nothing was predicted: the mean over 0 tokens is undefined
  no_bytes,             ///< bits per byte of an empty text is undefined
  zero_probability,     ///< a predicted token had probability 0: an infinite loss
  invalid_probability,  ///< a probability is NaN, negative or above 1
  model,                ///< the model refused a query; `cause` holds its error
};

/// The fixed description of a code, e.g. `"zero probability (infinite loss)"`.
[[nodiscard]] std::string_view describe(MetricsErrorCode code) noexcept;

/// One typed metrics error: the code, the stage (`score`, `cross-entropy`, `bits per
/// byte`, `score bigram`), a detail naming the token or document, and for
/// MetricsErrorCode::model the bigram's error.
using MetricsError =
    StageError<MetricsErrorCode, MetricsErrorCode::model, models::BigramError>;
// endregion: metrics-errors

/// The sums every metric is made of, over the tokens scored so far. Sums, not means,
/// so that two scores add (documents, shards) without weighting.
struct Score {
  double total_nats = 0.0;  ///< Σ −ln p over the predicted tokens, in nats
  std::size_t tokens = 0;   ///< N, the number of predicted tokens
  std::size_t bytes = 0;    ///< the UTF-8 bytes of the text those tokens spell

  /// The score of both parts: every sum added.
  friend Score operator+(const Score& a, const Score& b) noexcept {
    return {a.total_nats + b.total_nats, a.tokens + b.tokens, a.bytes + b.bytes};
  }
};

/// The three numbers of one evaluation, and the sums they came from.
struct Metrics {
  Score score;               ///< the sums
  double cross_entropy = 0;  ///< H = total_nats / N, nats per token
  double perplexity = 0;     ///< exp(H), the effective number of equally likely choices
  double bits_per_byte = 0;  ///< total_nats / (ln 2 · bytes)
};

/// The score of the predicted tokens whose model probabilities are `probabilities`
/// (`[N]`), spelling a text of `bytes` UTF-8 bytes.
/// \return MetricsErrorCode::zero_probability or invalid_probability naming the index
///         of the first bad probability (an infinite loss is an error, not a number).
[[nodiscard]] std::expected<Score, MetricsError> score_probabilities(
    std::span<const double> probabilities, std::size_t bytes);

/// H = total_nats / N, in nats per predicted token.
/// \return MetricsErrorCode::no_tokens when N = 0.
[[nodiscard]] std::expected<double, MetricsError> cross_entropy(const Score& score);

/// exp(H): the perplexity.
/// \return MetricsErrorCode::no_tokens when N = 0.
[[nodiscard]] std::expected<double, MetricsError> perplexity(const Score& score);

/// total_nats / (ln 2 · bytes): bits per UTF-8 byte of the predicted text.
/// \return MetricsErrorCode::no_bytes when bytes = 0.
[[nodiscard]] std::expected<double, MetricsError> bits_per_byte(const Score& score);

/// All three metrics of `score`.
/// \return MetricsErrorCode::no_tokens or no_bytes, as above.
[[nodiscard]] std::expected<Metrics, MetricsError> summarize(const Score& score);

/// The cross-entropy of the uniform model over V tokens, ln V: every token costs
/// −ln(1/V) = ln V nats, whatever the text. The sanity bound a trained model must beat.
/// \return MetricsErrorCode::no_tokens when V = 0.
[[nodiscard]] std::expected<double, MetricsError> uniform_cross_entropy(
    std::size_t vocab_size);

/// Scores a bigram model on `documents`, each framed as BOS + tokens + EOS (the model's
/// specials), predicting every token after BOS, EOS included: Σ (n_d + 1) tokens.
/// `bytes` is the UTF-8 size of the documents' text.
/// \return MetricsErrorCode::model wrapping the bigram's token_out_of_range error.
[[nodiscard]] std::expected<Score, MetricsError> score_bigram(
    const models::BigramModel& model, std::span<const models::TokenSequence> documents,
    std::size_t bytes);

}  // namespace llmfs::eval
