// Chapter 3
#pragma once
/// \file
/// \brief What byte-level BPE learns: an ordered list of merges. Token ids 0–255 are
/// the bytes; the merge of rank r creates token 256 + r from two earlier tokens
/// (Sennrich, Haddow and Birch 2016, "Neural Machine Translation of Rare Words with
/// Subword Units"; byte-level as in GPT-2, Radford et al. 2019; Chapter 3). Chapter 4
/// adds the two special tokens after the merges.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace llmfs::text {

/// A token id: 0–255 a byte, 256 + r the token made by the merge of rank r.
using TokenId = std::int32_t;

/// How many token ids the bytes take (ids 0–255).
inline constexpr TokenId kByteTokens = 256;

/// Two adjacent tokens, left then right.
struct TokenPair {
  TokenId left{};   ///< the first token of the pair
  TokenId right{};  ///< the token that follows it

  /// Equal when both ids are equal.
  friend bool operator==(const TokenPair&, const TokenPair&) = default;
  /// Ordered by left, then right (the tie-break order of Chapter 3).
  friend auto operator<=>(const TokenPair&, const TokenPair&) = default;
};

/// The merges of a trained byte-level BPE, in the order they were learned: `merges[r]`
/// (its rank r) joins its pair into token `kByteTokens + r`. Every id in `merges[r]` is
/// below `kByteTokens + r`.
struct MergeTable {
  std::vector<TokenPair> merges;  ///< [M], rank order

  /// The id of the token made by the merge of rank `rank`.
  [[nodiscard]] static constexpr TokenId token_of_rank(std::size_t rank) noexcept {
    return kByteTokens + static_cast<TokenId>(rank);
  }
  /// Equal when the merges are equal, in order.
  friend bool operator==(const MergeTable&, const MergeTable&) = default;
};

}  // namespace llmfs::text
