// Chapter 4
#pragma once
/// \file
/// \brief Applying a trained byte-level BPE: text to token ids by merge rank and ids
/// back to text (Sennrich, Haddow and Birch 2016; GPT-2's byte-level encoder, Radford
/// et al. 2019; Chapter 4). The streaming decoder is in stream_decoder.hpp, the merges
/// file the course tokenizer is committed as in merges_file.hpp; both share
/// TokenizerError.
///
/// The id layout, fixed for the whole course, for a table of M merges:
///
/// | ids | tokens |
/// |---|---|
/// | 0–255 | the bytes |
/// | 256 … 256+M−1 | the merge of rank r is token 256+r |
/// | 256+M | BOS, begin of sequence (no bytes) |
/// | 257+M | EOS, end of sequence (no bytes) |
///
/// so the vocabulary size is V = 258 + M. There is no PAD token and no unknown token.

#include <cstddef>
#include <cstdint>
#include <expected>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <llmfs/core/error.hpp>
#include <llmfs/text/merges.hpp>
#include <llmfs/text/utf8.hpp>

namespace llmfs::text {

// region: tokenizer-errors
/// What can go wrong building a tokenizer, decoding ids, or reading a merges file.
enum class TokenizerErrorCode {
  unknown_id,       ///< a token id outside 0 … V−1
  special_token,    ///< BOS or EOS given to decode: they have no bytes
  invalid_utf8,     ///< the decoded bytes are not UTF-8 (wraps the Utf8Error)
  later_token,      ///< merge r uses an id ≥ 256 + r: a token not made yet
  duplicate_merge,  ///< the same pair appears at two ranks
  missing_file,     ///< the merges file cannot be read (the detail says why)
  bad_header,  ///< line 1 is not `llmfs-bpe-merges version=… merges=… fnv1a64=…`
  wrong_version,   ///< a format version this reader does not know
  malformed_line,  ///< a merge line that is not `id left right`, or an extra line
  truncated,       ///< fewer merge lines than the header says, or no final newline
  checksum,        ///< the merge lines do not hash to the header's fnv1a64
  write_failed,    ///< the file (or its temporary) could not be written or renamed
};

/// The fixed description of a code, e.g. `"token id out of range"`.
[[nodiscard]] std::string_view describe(TokenizerErrorCode code) noexcept;

/// The tokenizer's error: the stage names where (`decode`, `merges file F line N`),
/// the detail the numbers, and an invalid_utf8 error carries the UTF-8 error whose
/// offset is a byte offset into the decoded bytes.
using TokenizerError =
    StageError<TokenizerErrorCode, TokenizerErrorCode::invalid_utf8, Utf8Error>;
// endregion: tokenizer-errors

/// One merge applied while encoding a chunk, and the chunk's tokens after it.
struct MergeStep {
  TokenId rank{};               ///< the merge applied; it made token 256 + rank
  std::size_t position{};       ///< the index of the new token in `tokens`
  std::vector<TokenId> tokens;  ///< the chunk after this merge
};

/// A trained byte-level BPE tokenizer: the merges, a rank lookup for encoding and the
/// bytes of every token for decoding. Immutable once built.
class Tokenizer {
 public:
  /// A tokenizer for `merges`.
  /// \return TokenizerErrorCode::later_token when merge r uses an id ≥ 256 + r (or a
  ///         negative id), duplicate_merge when a pair repeats; the stage names the
  ///         rank.
  [[nodiscard]] static std::expected<Tokenizer, TokenizerError> create(
      MergeTable merges);

  /// Text `[bytes]` to token ids `[T]`, no specials: each chunk (split_chunks) starts
  /// as its bytes and repeatedly merges its lowest-rank adjacent pair (leftmost first)
  /// until no pair of the table is left. O(n log n) for a chunk of n bytes.
  [[nodiscard]] std::vector<TokenId> encode(std::string_view text) const;

  /// Every merge encode() applies to one chunk, in order (for the chapter's trace; a
  /// text with separators after its first byte is encoded as one chunk regardless).
  [[nodiscard]] std::vector<MergeStep> encode_steps(std::string_view chunk) const;

  /// The same result by the naive rule, kept as the reference the tests compare with:
  /// find the lowest rank present, merge all its occurrences left to right, repeat.
  /// O(n²) per chunk.
  [[nodiscard]] std::vector<TokenId> encode_naive(std::string_view text) const;

  /// Token ids `[T]` to their bytes, concatenated, with no UTF-8 check.
  /// \return unknown_id or special_token, naming the index of the first bad id.
  [[nodiscard]] std::expected<std::string, TokenizerError> decode_bytes(
      std::span<const TokenId> ids) const;

  /// Token ids `[T]` to UTF-8 text: the inverse of encode().
  /// \return what decode_bytes() returns, or invalid_utf8 (wrapping the Utf8Error) when
  ///         the ids split a character or form no UTF-8; never a replacement character.
  [[nodiscard]] std::expected<std::string, TokenizerError> decode(
      std::span<const TokenId> ids) const;

  /// The bytes of one ordinary token (empty for BOS and EOS); `id` must be below V.
  [[nodiscard]] std::string_view token_bytes(TokenId id) const;

  /// The begin-of-sequence id, 256 + M.
  [[nodiscard]] TokenId bos() const noexcept { return kByteTokens + merge_count(); }
  /// The end-of-sequence id, 257 + M.
  [[nodiscard]] TokenId eos() const noexcept { return bos() + 1; }
  /// V = 258 + M: every id is in 0 … V−1.
  [[nodiscard]] std::size_t vocab_size() const noexcept {
    return static_cast<std::size_t>(eos()) + 1;
  }
  /// The merges it was built from, in rank order.
  [[nodiscard]] const MergeTable& merges() const noexcept { return merges_; }
  /// The rank r of the merge that joins `pair` (it makes token 256 + r), or −1 when
  /// the table has no such merge.
  [[nodiscard]] TokenId rank_of(TokenPair pair) const noexcept;

 private:
  Tokenizer() = default;
  [[nodiscard]] TokenId merge_count() const noexcept {
    return static_cast<TokenId>(merges_.merges.size());
  }
  void encode_chunk(std::string_view chunk, std::vector<TokenId>& out,
                    std::vector<MergeStep>* steps = nullptr) const;
  [[nodiscard]] std::expected<void, TokenizerError> check_decodable(
      TokenId id, std::size_t index) const;
  [[nodiscard]] std::expected<void, TokenizerError> check_utf8(
      std::string_view bytes, std::span<const TokenId> ids) const;

  MergeTable merges_;
  std::unordered_map<std::uint64_t, TokenId> ranks_;  ///< packed pair -> rank
  std::vector<std::string> pieces_;                   ///< [V] bytes of each token
};

}  // namespace llmfs::text
