// Chapter 3
#include <algorithm>
#include <array>
#include <limits>
#include <queue>
#include <unordered_map>

#include <llmfs/core/try.hpp>
#include <llmfs/text/bpe_train.hpp>
#include <llmfs/text/chunks.hpp>

namespace llmfs::text {

std::string_view describe(BpeTrainErrorCode code) noexcept {
  switch (code) {
    case BpeTrainErrorCode::vocab_too_small: return "vocabulary too small";
    case BpeTrainErrorCode::vocab_too_large: return "vocabulary too large";
  }
  return "unknown BPE training error";
}

std::string_view describe(BpeStop stop) noexcept {
  return stop == BpeStop::vocab_size_reached ? "vocabulary size reached"
                                             : "no pair occurs twice";
}

// region: vocab-checks
// V ids = 256 bytes + M merges + BOS + EOS, so M = V − 258; every id must fit a
// TokenId.
std::expected<std::size_t, BpeTrainError> merges_for_vocab(std::size_t vocab_size) {
  constexpr auto kMaxId = static_cast<std::size_t>(std::numeric_limits<TokenId>::max());
  if (vocab_size < kReservedTokens)
    return reject(
        BpeTrainErrorCode::vocab_too_small, "train_bpe",
        fmt::format("vocab_size {}; needs at least {} = 256 bytes + BOS + EOS",
                    vocab_size, kReservedTokens));
  if (vocab_size - 1 > kMaxId)
    return reject(BpeTrainErrorCode::vocab_too_large, "train_bpe",
                  fmt::format("vocab_size {}; the largest id {} exceeds {}", vocab_size,
                              vocab_size - 1, kMaxId));
  return vocab_size - kReservedTokens;
}
// endregion: vocab-checks

namespace {

// region: pair-counting
// Calls `visit(pair)` once for every counted occurrence of a pair in `tokens`. Every
// adjacent pair counts, except that in a run x x x … the (x,x) starting right after a
// counted (x,x) overlaps it and is skipped: a run of L tokens counts ⌊L/2⌋, the number
// of tokens a left-to-right merge of (x,x) would make.
template <class Visit>
void for_each_counted_pair(std::span<const TokenId> tokens, Visit&& visit) {
  for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
    const TokenPair pair{tokens[i], tokens[i + 1]};
    visit(pair);
    if (pair.left == pair.right && i + 2 < tokens.size() && tokens[i + 2] == pair.left)
      ++i;  // the next (x,x) shares this one's right token
  }
}
// endregion: pair-counting

// The bytes of a chunk as tokens 0–255.
std::vector<TokenId> byte_tokens(std::string_view chunk) {
  std::vector<TokenId> tokens;
  tokens.reserve(chunk.size());
  for (char byte : chunk)
    tokens.push_back(static_cast<unsigned char>(byte));
  return tokens;
}

}  // namespace

void add_pair_counts(std::span<const TokenId> tokens, std::int64_t weight,
                     PairCounts& counts) {
  for_each_counted_pair(tokens, [&](TokenPair pair) { counts[pair] += weight; });
}

// region: merge-pair
// Left to right: where `pair` starts at i, write `token` and skip both; else copy.
std::size_t merge_pair(std::vector<TokenId>& tokens, TokenPair pair, TokenId token) {
  std::size_t kept = 0;
  std::size_t merged = 0;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (i + 1 < tokens.size() && tokens[i] == pair.left &&
        tokens[i + 1] == pair.right) {
      tokens[kept++] = token;
      ++i;
      ++merged;
    } else {
      tokens[kept++] = tokens[i];
    }
  }
  tokens.resize(kept);
  return merged;
}
// endregion: merge-pair

// region: best-pair
// The map is in pair order, so the first pair with the highest count is the smallest.
std::pair<TokenPair, std::int64_t> best_pair(const PairCounts& counts) {
  std::pair<TokenPair, std::int64_t> best{TokenPair{}, 0};
  for (const auto& [pair, count] : counts) {
    if (count > best.second) best = {pair, count};
  }
  return best;
}
// endregion: best-pair

// region: naive-trainer
// Recount every pair of every chunk, merge the best one everywhere, repeat.
std::expected<BpeTraining, BpeTrainError> train_bpe_naive(
    std::span<const std::string_view> documents, std::size_t vocab_size) {
  const std::size_t merges = LLMFS_TRY(merges_for_vocab(vocab_size));
  std::vector<std::vector<TokenId>> chunks;
  for (std::string_view document : documents)
    for (std::string_view chunk : split_chunks(document))
      chunks.push_back(byte_tokens(chunk));
  BpeTraining result{{}, {}, BpeStop::vocab_size_reached};
  while (result.table.merges.size() < merges) {
    PairCounts counts;
    for (const std::vector<TokenId>& chunk : chunks)
      add_pair_counts(chunk, 1, counts);
    const auto [pair, count] = best_pair(counts);
    if (count < kMinPairCount) {
      result.stop = BpeStop::no_repeated_pair;
      break;
    }
    const TokenId token = MergeTable::token_of_rank(result.table.merges.size());
    for (std::vector<TokenId>& chunk : chunks)
      merge_pair(chunk, pair, token);
    result.table.merges.push_back(pair);
    result.counts.push_back(count);
  }
  return result;
}
// endregion: naive-trainer

// region: chunk-table
// Identical chunks are trained once, weighted by how often they occur.
std::vector<ChunkCount> count_chunks(std::span<const std::string_view> documents) {
  std::unordered_map<std::string_view, std::int64_t> table;
  for (std::string_view document : documents)
    for (std::string_view chunk : split_chunks(document))
      ++table[chunk];
  std::vector<ChunkCount> chunks;
  chunks.reserve(table.size());
  for (const auto& [chunk, count] : table)
    chunks.push_back({chunk, count});
  std::ranges::sort(chunks, {}, &ChunkCount::chunk);
  return chunks;
}
// endregion: chunk-table

namespace {

// region: fast-state
// A distinct chunk ("word") as its current tokens, with its count in the corpus.
struct Word {
  std::vector<TokenId> tokens;
  std::int64_t count = 0;
  TokenId visited = -1;  // the last merge that updated it (skips repeated entries)
};

struct PairHash {
  std::size_t operator()(TokenPair p) const noexcept {
    std::uint64_t k =
        (std::uint64_t(std::uint32_t(p.left)) << 32) | std::uint32_t(p.right);
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;  // MurmurHash3's 64-bit finalizer
    return k ^ (k >> 33);
  }
};

// A heap entry; it is stale once the pair's count has changed since it was pushed.
struct Candidate {
  std::int64_t count = 0;
  TokenPair pair;
};

// std::priority_queue keeps the "largest" on top: the highest count, then the
// smallest pair.
struct CandidateOrder {
  bool operator()(const Candidate& a, const Candidate& b) const {
    if (a.count != b.count) return a.count < b.count;
    return b.pair < a.pair;
  }
};
// endregion: fast-state

// region: fast-trainer-state
// The fast trainer's tables: the words, every pair's count, the words a pair may
// occur in (entries may be stale, never missing), and the heap of candidates.
class FastTrainer {
 public:
  explicit FastTrainer(std::span<const ChunkCount> chunks) {
    for (const ChunkCount& chunk : chunks)
      words_.push_back({byte_tokens(chunk.chunk), chunk.count});
    std::vector<TokenPair> changed;
    for (std::uint32_t w = 0; w < words_.size(); ++w)
      add_word(w, +1, changed, /*index_all=*/true);
    push(changed);
  }
  [[nodiscard]] Candidate best();
  void merge(TokenPair pair, TokenId token);

 private:
  void add_word(std::uint32_t w, std::int64_t sign, std::vector<TokenPair>& changed,
                bool index_all, TokenId token = -1);
  void push(std::vector<TokenPair>& changed);

  std::vector<Word> words_;
  std::unordered_map<TokenPair, std::int64_t, PairHash> counts_;
  std::unordered_map<TokenPair, std::vector<std::uint32_t>, PairHash> where_;
  std::priority_queue<Candidate, std::vector<Candidate>, CandidateOrder> queue_;
};
// endregion: fast-trainer-state

// region: fast-counts
// Adds (sign +1) or removes (−1) one word's pairs from the counts. A pair that holds
// the new `token` is new to this word, so the word joins its list of places.
void FastTrainer::add_word(std::uint32_t w, std::int64_t sign,
                           std::vector<TokenPair>& changed, bool index_all,
                           TokenId token) {
  const Word& word = words_[w];
  for_each_counted_pair(word.tokens, [&](TokenPair pair) {
    counts_[pair] += sign * word.count;
    changed.push_back(pair);
    if (index_all || pair.left == token || pair.right == token)
      where_[pair].push_back(w);
  });
}

// Each pair whose count changed gets one entry with its current count; a count that
// fell to zero leaves the table (its old entries are now stale).
void FastTrainer::push(std::vector<TokenPair>& changed) {
  std::ranges::sort(changed);
  const auto [first, last] = std::ranges::unique(changed);
  changed.erase(first, last);
  for (TokenPair pair : changed) {
    const auto it = counts_.find(pair);
    if (it->second > 0)
      queue_.push({it->second, pair});
    else
      counts_.erase(it);
  }
  changed.clear();
}
// endregion: fast-counts

// region: fast-merge
// The top of the heap, after discarding entries whose count is no longer current.
Candidate FastTrainer::best() {
  while (!queue_.empty()) {
    const Candidate top = queue_.top();
    const auto it = counts_.find(top.pair);
    if (it != counts_.end() && it->second == top.count) return top;
    queue_.pop();
  }
  return {};
}

// Only the words that hold `pair` change: remove their pairs, merge, add them back.
void FastTrainer::merge(TokenPair pair, TokenId token) {
  const std::vector<std::uint32_t> places = std::move(where_[pair]);
  where_.erase(pair);
  std::vector<TokenPair> changed;
  for (std::uint32_t w : places) {
    Word& word = words_[w];
    if (word.visited == token) continue;
    word.visited = token;
    const auto holds =
        std::ranges::search(word.tokens, std::array{pair.left, pair.right});
    if (holds.empty()) continue;  // a stale place: an earlier merge took the pair
    add_word(w, -1, changed, false);
    merge_pair(word.tokens, pair, token);
    add_word(w, +1, changed, false, token);
  }
  push(changed);
}
// endregion: fast-merge

}  // namespace

// region: fast-trainer
// The same loop as the naive trainer, over the chunk table and the heap.
std::expected<BpeTraining, BpeTrainError> train_bpe(
    std::span<const std::string_view> documents, std::size_t vocab_size) {
  const std::size_t merges = LLMFS_TRY(merges_for_vocab(vocab_size));
  FastTrainer trainer(count_chunks(documents));
  BpeTraining result{{}, {}, BpeStop::vocab_size_reached};
  while (result.table.merges.size() < merges) {
    const Candidate best = trainer.best();
    if (best.count < kMinPairCount) {
      result.stop = BpeStop::no_repeated_pair;
      break;
    }
    trainer.merge(best.pair, MergeTable::token_of_rank(result.table.merges.size()));
    result.table.merges.push_back(best.pair);
    result.counts.push_back(best.count);
  }
  return result;
}
// endregion: fast-trainer

// region: token-bytes
// Token 256 + r is the bytes of its left token followed by those of its right token.
std::vector<std::string> token_bytes(const MergeTable& table) {
  std::vector<std::string> tokens;
  tokens.reserve(kByteTokens + table.merges.size());
  for (TokenId byte = 0; byte < kByteTokens; ++byte)
    tokens.emplace_back(1, static_cast<char>(byte));
  for (const TokenPair& merge : table.merges)
    tokens.push_back(tokens[merge.left] + tokens[merge.right]);
  return tokens;
}
// endregion: token-bytes

}  // namespace llmfs::text
