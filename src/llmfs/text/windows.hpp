// Chapter 5
#pragma once
/// \file
/// \brief Autoregressive training examples: each document becomes one token sequence
/// BOS + tokens + EOS, and a window of T + 1 consecutive tokens of one sequence is one
/// example, the T-token context and the next token after it. Windows start every S
/// tokens and never cross a document (Chapter 5; the next-token objective of Bengio et
/// al. 2003 and of GPT, Radford et al. 2018).
///
/// Units: T (context) and S (stride) are counted in tokens; a sequence of n tokens has
/// `example_count(n)` = 0 if n < T + 1, else ⌊(n − T − 1) / S⌋ + 1 examples.

#include <cstddef>
#include <expected>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <llmfs/core/error.hpp>
#include <llmfs/text/merges.hpp>
#include <llmfs/text/partition.hpp>

namespace llmfs::text {

// region: window-types
/// How examples are cut from a sequence: T tokens of context, a new window every S.
struct WindowConfig {
  std::size_t context = 0;  ///< T ≥ 1: tokens the model sees before the one it predicts
  std::size_t stride = 0;  ///< S, 1 ≤ S ≤ T + 1: tokens between two window starts
};

/// The ids a sequence is framed with, and the size of the vocabulary they belong to.
struct Specials {
  TokenId bos{};          ///< begin of sequence: the first token of every sequence
  TokenId eos{};          ///< end of sequence: the last one
  std::size_t vocab = 0;  ///< V: every id is in 0 … V − 1
};

/// One example: in sequence `sequence`, the context is tokens [start, start + T) and
/// the next token is the one at start + T.
struct Example {
  std::size_t sequence = 0;  ///< which sequence (document) of the list
  std::size_t start = 0;     ///< the position of the context's first token

  /// Equal when both fields are equal.
  friend bool operator==(const Example&, const Example&) = default;
};

/// An example's tokens: a view of T context ids and the id that follows them.
struct ExampleTokens {
  std::span<const TokenId> context;  ///< [T]
  TokenId next{};                    ///< the target
};
// endregion: window-types

// region: window-errors
/// What is wrong with a window configuration or a document's tokens.
enum class WindowErrorCode {
  zero_context,     ///< T = 0: nothing to predict from
  zero_stride,      ///< S = 0: the same window forever
  stride_gap,       ///< S > T + 1: tokens between windows would belong to none
  bad_specials,     ///< BOS = EOS, or one of them outside 0 … V − 1
  unknown_id,       ///< a document token outside 0 … V − 1
  special_in_text,  ///< a document token equal to BOS or EOS
  partitions,       ///< reading the corpus or its manifest failed (see the cause)
};

/// The fixed description of a code, e.g. `"stride leaves gaps"`.
[[nodiscard]] std::string_view describe(WindowErrorCode code) noexcept;

/// A windowing error: the code, the stage (`"window config"`, `"document sequence"`,
/// `"split sequences"`), a detail with the numbers (T, S, document, position, id), and
/// for WindowErrorCode::partitions the PartitionError it wraps. Formats as
/// `window config: stride leaves gaps (T=4, S=6: S must be at most T + 1 = 5)`.
using WindowError =
    StageError<WindowErrorCode, WindowErrorCode::partitions, PartitionError>;
// endregion: window-errors

/// Checks T ≥ 1 and 1 ≤ S ≤ T + 1.
/// \return zero_context, zero_stride or stride_gap with T and S in the detail.
[[nodiscard]] std::expected<void, WindowError> check_window_config(WindowConfig config);

/// The number of examples in a sequence of n tokens, by the formula: 0 if n < T + 1,
/// else ⌊(n − T − 1)/S⌋ + 1.
/// \return the errors of check_window_config().
[[nodiscard]] std::expected<std::size_t, WindowError> example_count(
    std::size_t n, WindowConfig config);

/// One document's sequence: `specials.bos`, its tokens `[m]`, `specials.eos`; n = m
/// + 2. `document` names it in errors. \return bad_specials, or unknown_id /
/// special_in_text naming the document and the
///         token's position in `tokens`.
[[nodiscard]] std::expected<std::vector<TokenId>, WindowError> document_sequence(
    std::span<const TokenId> tokens, Specials specials, std::size_t document);

/// Every example of every sequence, enumerated window by window (start 0, S, 2S, …
/// while start + T < n), in sequence order. Independent of example_count(): the tests
/// and the chapter compare the two. \return the errors of check_window_config().
[[nodiscard]] std::expected<std::vector<Example>, WindowError> make_examples(
    const std::vector<std::vector<TokenId>>& sequences, WindowConfig config);

/// The tokens of `example` (its sequence must be in `sequences` and hold the window).
[[nodiscard]] ExampleTokens example_tokens(
    const std::vector<std::vector<TokenId>>& sequences, const Example& example,
    WindowConfig config);

/// Text to token ids without specials (a Tokenizer's encode(), Chapter 4).
using Encoder = std::function<std::vector<TokenId>(std::string_view)>;

/// The sequences of one split of a corpus, in corpus order, each document's text (not
/// its heading) encoded and framed by document_sequence().
/// \return the errors of document_sequence(), naming the corpus index of the document.
[[nodiscard]] std::expected<std::vector<std::vector<TokenId>>, WindowError>
split_sequences(const Corpus& corpus, const Partitions& partitions, Split split,
                const Encoder& encode, Specials specials);

/// read_partitioned_corpus() (Chapter 2), then split_sequences() of `split`.
/// \return WindowErrorCode::partitions wrapping the PartitionError, or the errors of
///         split_sequences().
[[nodiscard]] std::expected<std::vector<std::vector<TokenId>>, WindowError>
read_split_sequences(const std::filesystem::path& corpus_path,
                     const std::filesystem::path& manifest_path, Split split,
                     const Encoder& encode, Specials specials);

}  // namespace llmfs::text
