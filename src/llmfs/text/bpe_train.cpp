// Chapter 3
#include <algorithm>
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
// A word (a distinct chunk) is a doubly linked list of runs: maximal stretches of one
// token, so neighbouring runs never hold the same token. A run of L tokens x holds
// ⌊L/2⌋ counted (x,x), and each boundary between two runs holds one pair. A sentinel
// run stands at each end of a word; a removed run is marked gone.
constexpr TokenId kEdge = -1;  // the sentinel's token: it holds no pair
constexpr TokenId kGone = -2;  // the token of a run no longer in any list

struct Run {
  TokenId token = kEdge;
  std::int64_t length = 0;           // L, the tokens in the run (0 for a sentinel)
  std::int64_t weight = 0;           // how often its word occurs in the corpus
  std::uint32_t prev = 0, next = 0;  // neighbouring runs of the same word
};

// What a stretch of runs holds: `n` counted occurrences of `pair`, listed under run
// `at` (the run itself for (x,x), the left run of a boundary).
struct Term {
  TokenPair pair;
  std::uint32_t at = 0;
  std::int64_t n = 0;
};

// A heap entry; it is stale once the pair's count has changed since it was pushed.
// std::priority_queue keeps the "largest" on top: the highest count, then the
// smallest pair.
struct Candidate {
  std::int64_t count = 0;
  TokenPair pair;
};
struct CandidateOrder {
  bool operator()(const Candidate& a, const Candidate& b) const {
    if (a.count != b.count) return a.count < b.count;
    return b.pair < a.pair;
  }
};
// endregion: fast-state

struct PairHash {
  std::size_t operator()(TokenPair p) const noexcept {
    std::uint64_t k =
        (std::uint64_t(std::uint32_t(p.left)) << 32) | std::uint32_t(p.right);
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;  // MurmurHash3's 64-bit finalizer
    return k ^ (k >> 33);
  }
};

// The fast trainer's tables: the runs of every word, every pair's count, the runs
// where each pair may occur (entries may be stale, never missing), and the heap.
class FastTrainer {
 public:
  explicit FastTrainer(std::span<const ChunkCount> chunks);
  [[nodiscard]] Candidate best();
  void merge(TokenPair pair, TokenId token);

 private:
  void collect(std::uint32_t first, std::uint32_t last, std::vector<Term>& out) const;
  template <class Change>
  void rewrite(std::uint32_t first, std::uint32_t last, Change&& change);
  void split_run(std::uint32_t at, TokenId x, TokenId token);
  void join_runs(std::uint32_t at, TokenPair pair, TokenId token);
  std::uint32_t insert_after(std::uint32_t at, TokenId token);
  void unlink(std::uint32_t at);
  void push();

  std::vector<Run> runs_;
  std::unordered_map<TokenPair, std::int64_t, PairHash> counts_;
  std::unordered_map<TokenPair, std::vector<std::uint32_t>, PairHash> where_;
  std::priority_queue<Candidate, std::vector<Candidate>, CandidateOrder> queue_;
  std::vector<Term> before_, after_;  // rewrite()'s scratch
  std::vector<TokenPair> changed_;    // pairs whose count changed in this merge
};

// region: fast-runs
// Each word starts empty, two sentinels; writing its bytes in as runs is its first
// rewrite, which counts and lists all its pairs.
FastTrainer::FastTrainer(std::span<const ChunkCount> chunks) {
  for (const ChunkCount& chunk : chunks) {
    const auto first = static_cast<std::uint32_t>(runs_.size());
    runs_.push_back({kEdge, 0, chunk.count, first, first + 1});
    runs_.push_back({kEdge, 0, chunk.count, first, first + 1});
    rewrite(first, first + 1, [&] {
      std::uint32_t at = first;
      for (char c : chunk.chunk) {
        const TokenId byte = static_cast<unsigned char>(c);
        if (runs_[at].token == byte)
          ++runs_[at].length;
        else
          at = insert_after(at, byte);
      }
    });
  }
  push();
}

// The terms of the runs first … last: each run's (x,x), each boundary between them.
void FastTrainer::collect(std::uint32_t first, std::uint32_t last,
                          std::vector<Term>& out) const {
  out.clear();
  for (std::uint32_t at = first;; at = runs_[at].next) {
    const Run& run = runs_[at];
    if (run.length >= 2) out.push_back({{run.token, run.token}, at, run.length / 2});
    if (at == last) return;
    const TokenId next = runs_[run.next].token;
    if (run.token >= 0 && next >= 0) out.push_back({{run.token, next}, at, 1});
  }
}
// endregion: fast-runs

// region: fast-rewrite
// Every change to a word: a stretch's terms leave the counts, the stretch changes (its
// two end runs stay), its new terms come in; one not there before is listed.
template <class Change>
void FastTrainer::rewrite(std::uint32_t first, std::uint32_t last, Change&& change) {
  collect(first, last, before_);
  change();
  collect(first, last, after_);
  const std::int64_t weight = runs_[first].weight;  // the word's, sentinels included
  const auto count = [&](const Term& term, std::int64_t sign) {
    counts_[term.pair] += sign * weight * term.n;
    changed_.push_back(term.pair);
  };
  for (const Term& term : before_)
    count(term, -1);
  for (const Term& term : after_) {
    count(term, +1);
    const auto same = [&](const Term& t) {
      return t.pair == term.pair && t.at == term.at;
    };
    if (std::ranges::none_of(before_, same)) where_[term.pair].push_back(term.at);
  }
}

// Each pair whose count changed gets one entry with its current count; a pair whose
// count fell to zero leaves the tables (its old entries are now stale).
void FastTrainer::push() {
  std::ranges::sort(changed_);
  const auto [first, last] = std::ranges::unique(changed_);
  changed_.erase(first, last);
  for (TokenPair pair : changed_) {
    const auto it = counts_.find(pair);
    if (it->second > 0) {
      queue_.push({it->second, pair});
    } else {
      counts_.erase(it);
      where_.erase(pair);
    }
  }
  changed_.clear();
}
// endregion: fast-rewrite

// A new run of one `token` after run `at`.
std::uint32_t FastTrainer::insert_after(std::uint32_t at, TokenId token) {
  const auto added = static_cast<std::uint32_t>(runs_.size());
  const std::uint32_t next = runs_[at].next;
  runs_.push_back({token, 1, runs_[at].weight, at, next});
  runs_[at].next = added;
  runs_[next].prev = added;
  return added;
}

// Run `at` leaves its list.
void FastTrainer::unlink(std::uint32_t at) {
  Run& run = runs_[at];
  runs_[run.prev].next = run.next;
  runs_[run.next].prev = run.prev;
  run.token = kGone;
  run.length = 0;
}

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

// Only the places listed under `pair` change; a place an earlier merge took is skipped.
void FastTrainer::merge(TokenPair pair, TokenId token) {
  const std::vector<std::uint32_t> places = std::move(where_[pair]);
  where_.erase(pair);
  for (std::uint32_t at : places) {
    if (pair.left == pair.right)
      split_run(at, pair.left, token);
    else
      join_runs(at, pair, token);
  }
  push();
}

// (x,x): left to right, a run of L tokens x becomes ⌊L/2⌋ tokens z, then one x if L
// is odd. Its neighbours hold neither x nor z, so nothing joins.
void FastTrainer::split_run(std::uint32_t at, TokenId x, TokenId token) {
  if (runs_[at].token != x || runs_[at].length < 2) return;
  rewrite(runs_[at].prev, runs_[at].next, [&] {
    const std::int64_t length = runs_[at].length;
    runs_[at].token = token;
    runs_[at].length = length / 2;
    if (length % 2 == 1) insert_after(at, x);
  });
}
// endregion: fast-merge

// region: fast-join
// (a,b), a ≠ b: where a run of a meets a run of b, the last a and the first b become
// one z; a z run on either side then takes it in, so that runs stay maximal.
void FastTrainer::join_runs(std::uint32_t at, TokenPair pair, TokenId token) {
  const std::uint32_t right = runs_[at].next;
  if (runs_[at].token != pair.left || runs_[right].token != pair.right) return;
  // The stretch ends two runs past b, beyond any z that may be taken in (a
  // sentinel is its own next).
  const std::uint32_t last = runs_[runs_[right].next].next;
  rewrite(runs_[at].prev, last, [&] {
    std::uint32_t z = at;  // the last a: its run shrinks, or it was the whole run
    if (runs_[at].length > 1) {
      --runs_[at].length;
      z = insert_after(at, token);
    } else {
      runs_[at].token = token;
    }
    if (runs_[right].length > 1)  // the first b: likewise
      --runs_[right].length;
    else
      unlink(right);
    if (const std::uint32_t before = runs_[z].prev; runs_[before].token == token) {
      runs_[before].length += runs_[z].length;
      unlink(z);
      z = before;
    }
    if (const std::uint32_t after = runs_[z].next; runs_[after].token == token) {
      runs_[z].length += runs_[after].length;
      unlink(after);
    }
  });
}
// endregion: fast-join

}  // namespace

// region: fast-trainer
// The same loop as the naive trainer, over the runs and the heap.
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
