// Chapter 3
#pragma once
/// \file
/// \brief Learning byte-level BPE merges from a list of documents: a naive reference
/// trainer that recounts every pair at every step, and a fast trainer (a chunk
/// frequency table, each distinct chunk a linked list of runs of equal tokens, an index
/// from each pair to the runs where it occurs, and a priority queue with lazy
/// invalidation) that learns exactly the same merges (Sennrich, Haddow and Birch 2016;
/// Gage 1994; byte-level as in Radford et al. 2019; Chapter 3).
///
/// The rules both trainers follow, pinned here and tested:
/// - **Chunks.** Each document is cut by split_chunks() (chunks.hpp); a pair is two
///   adjacent tokens of one chunk, so no merge crosses a chunk or a document.
/// - **Pair count.** The count of a pair is the number of non-overlapping occurrences
///   a left-to-right scan finds, i.e. exactly the number of new tokens merging it would
///   make: in a run of one token, `aaaa` counts (a,a) twice, `aaa` once.
/// - **Choice.** The pair with the highest count wins; among equal counts the smallest
///   pair (left id, then right id) wins.
/// - **Stop.** Training stops when M merges are learned (M = V − 258) or when no pair
///   occurs at least twice, whichever comes first.

#include <cstddef>
#include <cstdint>
#include <expected>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <fmt/std.h>

#include <llmfs/core/error.hpp>
#include <llmfs/text/merges.hpp>

namespace llmfs::text {

// region: bpe-train-api
/// Ids the vocabulary holds besides the merges: the 256 bytes and BOS, EOS (Chapter 4).
inline constexpr std::size_t kReservedTokens = kByteTokens + 2;

/// A pair needs at least this count to be merged; below it training stops.
inline constexpr std::int64_t kMinPairCount = 2;

/// What can go wrong: only the requested vocabulary size can be invalid (every corpus,
/// even an empty one, trains).
enum class BpeTrainErrorCode {
  vocab_too_small,  ///< V < 258: no room for the 256 bytes, BOS and EOS
  vocab_too_large,  ///< the largest id V − 1 does not fit a TokenId (int32)
};

/// A training error. The trainer reads no file and calls nothing that fails, so it
/// never wraps a lower error: `cause` is always empty. Formats as `train_bpe:
/// vocabulary too small (vocab_size 255; needs at least 258 = 256 bytes + BOS + EOS)`.
using BpeTrainError =
    StageError<BpeTrainErrorCode, BpeTrainErrorCode::vocab_too_small, std::monostate>;

/// Why training stopped.
enum class BpeStop {
  vocab_size_reached,  ///< all M = V − 258 merges were learned
  no_repeated_pair,    ///< no pair occurs at least kMinPairCount times
};

/// What training learned: the merges, the count that chose each, and why it stopped.
struct BpeTraining {
  MergeTable table;                  ///< [M'] merges, M' ≤ M, in rank order
  std::vector<std::int64_t> counts;  ///< [M'] counts[r]: the count of merges[r] when
                                     ///< it was chosen; never increases with r
  BpeStop stop{};                    ///< why training ended

  /// Equal when merges, counts and stop reason are all equal.
  friend bool operator==(const BpeTraining&, const BpeTraining&) = default;
};
// endregion: bpe-train-api

/// The fixed description of a code, e.g. `"vocabulary too small"`.
[[nodiscard]] std::string_view describe(BpeTrainErrorCode code) noexcept;
/// `"vocabulary size reached"` or `"no pair occurs twice"`.
[[nodiscard]] std::string_view describe(BpeStop stop) noexcept;

/// Pair counts in pair order (the naive trainer's table).
using PairCounts = std::map<TokenPair, std::int64_t>;

/// Adds `weight` times the count of every pair of `tokens` to `counts`, under the
/// non-overlapping rule: a run of L equal tokens x adds ⌊L/2⌋ to (x,x).
void add_pair_counts(std::span<const TokenId> tokens, std::int64_t weight,
                     PairCounts& counts);

/// Replaces, left to right, every non-overlapping occurrence of `pair` in `tokens` by
/// `token`, in place. \return how many occurrences were replaced.
std::size_t merge_pair(std::vector<TokenId>& tokens, TokenPair pair, TokenId token);

/// The pair to merge next: the highest count, ties to the smallest pair; a default
/// TokenPair with count 0 when `counts` is empty.
[[nodiscard]] std::pair<TokenPair, std::int64_t> best_pair(const PairCounts& counts);

/// One distinct chunk of the training documents and how often it occurs.
struct ChunkCount {
  std::string_view chunk;  ///< a view into one of the documents
  std::int64_t count = 0;  ///< occurrences in all documents

  /// Equal when chunk text and count are equal.
  friend bool operator==(const ChunkCount&, const ChunkCount&) = default;
};

/// The chunk frequency table of `documents` (split_chunks of each), sorted by chunk
/// bytes. Views point into `documents`, which must outlive the result.
[[nodiscard]] std::vector<ChunkCount> count_chunks(
    std::span<const std::string_view> documents);

/// The number of merges M = V − 258 for a vocabulary of `vocab_size` ids.
/// \return BpeTrainErrorCode::vocab_too_small for V < 258, vocab_too_large when
///         V − 1 exceeds the largest TokenId.
[[nodiscard]] std::expected<std::size_t, BpeTrainError> merges_for_vocab(
    std::size_t vocab_size);

/// The reference trainer: every step recounts every pair of every chunk of every
/// document, picks best_pair() and merges it everywhere. O(M · corpus bytes): for
/// tests and small slices. Errors: those of merges_for_vocab().
[[nodiscard]] std::expected<BpeTraining, BpeTrainError> train_bpe_naive(
    std::span<const std::string_view> documents, std::size_t vocab_size);

/// The fast trainer: the same rules and exactly the same result as train_bpe_naive().
/// Each distinct chunk (count_chunks()) is a doubly linked list of maximal runs of
/// equal tokens; an index lists, for each pair, the runs where it may occur, and a
/// merge rewrites only the few runs around each of its pair's places, so a merge costs
/// time in proportion to the number of places it changes, not to the length of the
/// chunks that hold them. The best pair comes from a max-heap of (count, pair) whose
/// stale entries are skipped when popped. Time about O(N log N) and memory O(N) for N
/// bytes of distinct chunks (runs are numbered in 32 bits: about 4 × 10⁹ bytes of
/// distinct chunks at most). Errors: those of merges_for_vocab().
[[nodiscard]] std::expected<BpeTraining, BpeTrainError> train_bpe(
    std::span<const std::string_view> documents, std::size_t vocab_size);

/// The bytes of every token of `table`, indexed by id: [256 + M] strings, the bytes
/// first, then each merge's left bytes followed by its right bytes.
[[nodiscard]] std::vector<std::string> token_bytes(const MergeTable& table);

}  // namespace llmfs::text
