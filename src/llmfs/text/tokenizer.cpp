// Chapter 4
#include <cstddef>
#include <functional>
#include <iterator>
#include <queue>
#include <utility>

#include <llmfs/core/try.hpp>
#include <llmfs/text/chunks.hpp>
#include <llmfs/text/tokenizer.hpp>

namespace llmfs::text {

std::string_view describe(TokenizerErrorCode code) noexcept {
  switch (code) {
    case TokenizerErrorCode::unknown_id: return "token id out of range";
    case TokenizerErrorCode::special_token: return "special token has no bytes";
    case TokenizerErrorCode::invalid_utf8: return "not UTF-8 text";
    case TokenizerErrorCode::later_token: return "merge uses a token not made yet";
    case TokenizerErrorCode::duplicate_merge: return "pair merged twice";
    case TokenizerErrorCode::missing_file: return "cannot read merges file";
    case TokenizerErrorCode::bad_header: return "bad header";
    case TokenizerErrorCode::wrong_version: return "unknown format version";
    case TokenizerErrorCode::malformed_line: return "malformed merge line";
    case TokenizerErrorCode::truncated: return "file is truncated";
    case TokenizerErrorCode::checksum: return "checksum mismatch";
    case TokenizerErrorCode::write_failed: return "cannot write merges file";
  }
  return "unknown tokenizer error";
}

namespace {

using Code = TokenizerErrorCode;

/// A pair as one 64-bit key: left in the high half, right in the low half.
[[nodiscard]] constexpr std::uint64_t pair_key(TokenId left, TokenId right) noexcept {
  return (std::uint64_t{static_cast<std::uint32_t>(left)} << 32) |
         static_cast<std::uint32_t>(right);
}

/// A token id that no merge makes: "this pair is not in the table".
constexpr TokenId kNoMerge = -1;
/// The token left at a position whose symbol was merged into its left neighbour.
constexpr TokenId kMergedAway = -1;

// region: tokenizer-create-checks
// Merge r may only join tokens that exist before it, 0 … 256+r−1, and each pair may be
// learned once: a repeated pair could never be applied at its second rank.
[[nodiscard]] std::expected<void, TokenizerError> check_merges(
    const MergeTable& table) {
  std::unordered_map<std::uint64_t, std::size_t> seen;
  for (std::size_t rank = 0; rank < table.merges.size(); ++rank) {
    const auto [left, right] = table.merges[rank];
    const TokenId made = MergeTable::token_of_rank(rank);
    const std::string stage = fmt::format("merge rank {}", rank);
    if (left < 0 || right < 0 || left >= made || right >= made)
      return reject(Code::later_token, stage,
                    fmt::format("pair ({}, {}) makes token {}", left, right, made));
    const auto [at, inserted] = seen.emplace(pair_key(left, right), rank);
    if (!inserted)
      return reject(
          Code::duplicate_merge, stage,
          fmt::format("pair ({}, {}) is already rank {}", left, right, at->second));
  }
  return {};
}
// endregion: tokenizer-create-checks

}  // namespace

// region: tokenizer-create
// The rank of every pair, for encoding, and the bytes of every token, for decoding:
// a merged token's bytes are its left part's followed by its right part's.
std::expected<Tokenizer, TokenizerError> Tokenizer::create(MergeTable merges) {
  LLMFS_TRY(check_merges(merges));
  Tokenizer t;
  t.merges_ = std::move(merges);
  t.pieces_.reserve(t.vocab_size());
  for (int byte = 0; byte < kByteTokens; ++byte)
    t.pieces_.emplace_back(1, static_cast<char>(byte));
  for (std::size_t rank = 0; rank < t.merges_.merges.size(); ++rank) {
    const auto [left, right] = t.merges_.merges[rank];
    t.ranks_.emplace(pair_key(left, right), static_cast<TokenId>(rank));
    std::string piece = t.pieces_[left] + t.pieces_[right];
    t.pieces_.push_back(std::move(piece));
  }
  t.pieces_.emplace_back();  // BOS: a boundary, no bytes
  t.pieces_.emplace_back();  // EOS
  return t;
}
// endregion: tokenizer-create

TokenId Tokenizer::rank_of(TokenPair pair) const noexcept {
  const auto found = ranks_.find(pair_key(pair.left, pair.right));
  return found == ranks_.end() ? kNoMerge : found->second;
}

std::string_view Tokenizer::token_bytes(TokenId id) const {
  return pieces_[static_cast<std::size_t>(id)];
}

namespace {

/// An adjacent pair that a merge could join: its rank, the positions of its two
/// symbols in the chunk, and the tokens they held when it was queued (so a pair that
/// an earlier merge changed is recognised as stale and skipped).
struct MergeCandidate {
  TokenId rank;
  std::ptrdiff_t left, right;
  TokenId left_token, right_token;

  /// Lower rank first; among equal ranks the leftmost pair.
  friend bool operator>(const MergeCandidate& a, const MergeCandidate& b) {
    return std::pair(a.rank, a.left) > std::pair(b.rank, b.left);
  }
};

/// The chunk's tokens after merge `rank` made a token at byte position `at`.
MergeStep step_of(TokenId rank, std::ptrdiff_t at, const std::vector<TokenId>& token,
                  const std::vector<std::ptrdiff_t>& next) {
  MergeStep step{rank, 0, {}};
  for (std::ptrdiff_t i = 0; i < std::ssize(token); i = next[i]) {
    if (i == at) step.position = step.tokens.size();
    step.tokens.push_back(token[i]);
  }
  return step;
}

}  // namespace

// region: encode-chunk
// One chunk [n bytes] -> its tokens. The symbols form a linked list over the byte
// positions; a min-heap holds every adjacent pair the table can merge. Pop the lowest
// rank (leftmost on a tie), join its two symbols, queue the two new neighbours' pairs.
void Tokenizer::encode_chunk(std::string_view chunk, std::vector<TokenId>& out,
                             std::vector<MergeStep>* steps) const {
  const std::ptrdiff_t n = std::ssize(chunk);  // int would wrap past 2^31 bytes
  std::vector<TokenId> token(n);
  std::vector<std::ptrdiff_t> prev(n), next(n);
  for (std::ptrdiff_t i = 0; i < n; ++i) {
    token[i] = static_cast<unsigned char>(chunk[i]);
    prev[i] = i - 1;
    next[i] = i + 1;  // n: the end of the list
  }
  std::priority_queue<MergeCandidate, std::vector<MergeCandidate>, std::greater<>> heap;
  const auto offer = [&](std::ptrdiff_t left) {
    if (left < 0 || next[left] >= n) return;
    const std::ptrdiff_t right = next[left];
    const TokenId rank = rank_of({token[left], token[right]});
    if (rank != kNoMerge) heap.push({rank, left, right, token[left], token[right]});
  };
  for (std::ptrdiff_t i = 0; i + 1 < n; ++i)
    offer(i);
  while (!heap.empty()) {
    const MergeCandidate c = heap.top();
    heap.pop();
    if (token[c.left] != c.left_token || next[c.left] != c.right ||
        token[c.right] != c.right_token)
      continue;  // stale: a merge since it was queued changed one of its symbols
    token[c.left] = MergeTable::token_of_rank(static_cast<std::size_t>(c.rank));
    token[c.right] = kMergedAway;
    next[c.left] = next[c.right];
    if (next[c.left] < n) prev[next[c.left]] = c.left;
    offer(prev[c.left]);
    offer(c.left);
    if (steps) steps->push_back(step_of(c.rank, c.left, token, next));
  }
  for (std::ptrdiff_t i = 0; i < n; i = next[i])
    out.push_back(token[i]);
}
// endregion: encode-chunk

std::vector<MergeStep> Tokenizer::encode_steps(std::string_view chunk) const {
  std::vector<MergeStep> steps;
  std::vector<TokenId> ignored;
  encode_chunk(chunk, ignored, &steps);
  return steps;
}

// Text -> ids: every chunk on its own (a merge never crosses a chunk), concatenated.
std::vector<TokenId> Tokenizer::encode(std::string_view text) const {
  std::vector<TokenId> ids;
  ids.reserve(text.size() / 3);
  for (std::string_view chunk : split_chunks(text))
    encode_chunk(chunk, ids);
  return ids;
}

// region: encode-naive
// The rule as a reader states it, without a heap: find the lowest rank among the
// chunk's adjacent pairs, merge every occurrence of that pair left to right, repeat.
std::vector<TokenId> Tokenizer::encode_naive(std::string_view text) const {
  std::vector<TokenId> ids;
  for (std::string_view chunk : split_chunks(text)) {
    std::vector<TokenId> symbols;
    for (char byte : chunk)
      symbols.push_back(static_cast<unsigned char>(byte));
    while (true) {
      TokenId best = kNoMerge;
      for (std::size_t i = 0; i + 1 < symbols.size(); ++i) {
        const TokenId rank = rank_of({symbols[i], symbols[i + 1]});
        if (rank != kNoMerge && (best == kNoMerge || rank < best)) best = rank;
      }
      if (best == kNoMerge) break;
      const TokenPair pair = merges_.merges[static_cast<std::size_t>(best)];
      std::vector<TokenId> merged;
      for (std::size_t i = 0; i < symbols.size(); ++i) {
        const bool hit = i + 1 < symbols.size() && symbols[i] == pair.left &&
                         symbols[i + 1] == pair.right;
        merged.push_back(hit ? kByteTokens + best : symbols[i]);
        if (hit) ++i;
      }
      symbols = std::move(merged);
    }
    ids.insert(ids.end(), symbols.begin(), symbols.end());
  }
  return ids;
}
// endregion: encode-naive

// An id must name a token of the vocabulary, and BOS and EOS mark boundaries, not text.
std::expected<void, TokenizerError> Tokenizer::check_decodable(
    TokenId id, std::size_t index) const {
  const std::string stage = fmt::format("decode token {}", index);
  if (id < 0 || static_cast<std::size_t>(id) >= vocab_size())
    return reject(Code::unknown_id, stage,
                  fmt::format("id {} with V = {}", id, vocab_size()));
  if (id == bos() || id == eos())
    return reject(Code::special_token, stage,
                  fmt::format("id {} is {}", id, id == bos() ? "BOS" : "EOS"));
  return {};
}

// Bytes that are not UTF-8: the Utf8Error (a byte offset), wrapped with the index of
// the token whose bytes hold that offset.
std::expected<void, TokenizerError> Tokenizer::check_utf8(
    std::string_view bytes, std::span<const TokenId> ids) const {
  const auto decoded = decode_utf8(bytes_of(bytes));
  if (decoded) return {};
  std::size_t index = 0;
  for (std::size_t end = 0; index < ids.size(); ++index) {
    end += pieces_[static_cast<std::size_t>(ids[index])].size();
    if (end > decoded.error().offset) break;
  }
  return at_stage(fmt::format("decode token {}", index), decoded.error());
}

// region: decode
// Ids -> bytes, each token's bytes in order; decode() then insists on UTF-8.
std::expected<std::string, TokenizerError> Tokenizer::decode_bytes(
    std::span<const TokenId> ids) const {
  std::string bytes;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    LLMFS_TRY(check_decodable(ids[i], i));
    bytes += pieces_[static_cast<std::size_t>(ids[i])];
  }
  return bytes;
}

std::expected<std::string, TokenizerError> Tokenizer::decode(
    std::span<const TokenId> ids) const {
  std::string bytes = LLMFS_TRY(decode_bytes(ids));
  LLMFS_TRY(check_utf8(bytes, ids));
  return bytes;
}
// endregion: decode

}  // namespace llmfs::text
