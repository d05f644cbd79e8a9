// Chapter 3: learning BPE merges (src/llmfs/text/bpe_train.hpp). Every expected merge
// below is derived by hand in the comment beside it, under the chapter's rules: pairs
// within a chunk, non-overlapping counts, the highest count first, ties to the smallest
// (left, right), stop when no pair occurs twice.
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/text/bpe_train.hpp>
#include <llmfs/text/chunks.hpp>

namespace {

using llmfs::text::BpeStop;
using llmfs::text::BpeTrainErrorCode;
using llmfs::text::BpeTraining;
using llmfs::text::MergeTable;
using llmfs::text::PairCounts;
using llmfs::text::TokenId;
using llmfs::text::TokenPair;

using Ch03Docs = std::vector<std::string_view>;
using Ch03Tokens = std::vector<TokenId>;

constexpr std::size_t kCh03Vocab = 4096;  // the course's V: room for 3,838 merges

// Both trainers, so that every hand-derived case checks each of them.
BpeTraining ch03_train_both(const Ch03Docs& docs, std::size_t vocab = kCh03Vocab) {
  const auto naive = llmfs::text::train_bpe_naive(docs, vocab);
  const auto fast = llmfs::text::train_bpe(docs, vocab);
  EXPECT_TRUE(naive.has_value());
  EXPECT_TRUE(fast.has_value());
  if (!naive || !fast) return {};
  EXPECT_EQ(*naive, *fast);
  return *fast;
}

Ch03Tokens ch03_bytes(std::string_view text) {
  Ch03Tokens tokens;
  for (char c : text)
    tokens.push_back(static_cast<unsigned char>(c));
  return tokens;
}

PairCounts ch03_counts(std::string_view text) {
  PairCounts counts;
  llmfs::text::add_pair_counts(ch03_bytes(text), 1, counts);
  return counts;
}

TEST(BpePairCounting, ARunOfOneByteCountsNonOverlappingPairs) {
  // aaaa: (a,a) at 0 and 2; the one at 1 overlaps both. aaa: only the first.
  // aaaaa: ⌊5/2⌋ = 2.
  EXPECT_EQ(ch03_counts("aaaa"), (PairCounts{{{'a', 'a'}, 2}}));
  EXPECT_EQ(ch03_counts("aaa"), (PairCounts{{{'a', 'a'}, 1}}));
  EXPECT_EQ(ch03_counts("aaaaa"), (PairCounts{{{'a', 'a'}, 2}}));
  EXPECT_EQ(ch03_counts("aa"), (PairCounts{{{'a', 'a'}, 1}}));
}

TEST(BpePairCounting, PairsAroundARunStillCount) {
  // aaab: (a,a) once (run of 3), (a,b) once. abbba: (a,b), (b,b) once, (b,a).
  EXPECT_EQ(ch03_counts("aaab"), (PairCounts{{{'a', 'a'}, 1}, {{'a', 'b'}, 1}}));
  EXPECT_EQ(ch03_counts("abbba"),
            (PairCounts{{{'a', 'b'}, 1}, {{'b', 'a'}, 1}, {{'b', 'b'}, 1}}));
  // abab: distinct bytes never overlap: (a,b) twice, (b,a) once.
  EXPECT_EQ(ch03_counts("abab"), (PairCounts{{{'a', 'b'}, 2}, {{'b', 'a'}, 1}}));
}

TEST(BpePairCounting, WeightMultipliesEveryCount) {
  PairCounts counts;
  llmfs::text::add_pair_counts(ch03_bytes("aaaa"), 5, counts);
  EXPECT_EQ(counts, (PairCounts{{{'a', 'a'}, 10}}));
}

TEST(BpeMergePair, MergesLeftToRightWithoutOverlap) {
  Ch03Tokens four = ch03_bytes("aaaa");
  EXPECT_EQ(llmfs::text::merge_pair(four, {'a', 'a'}, 256), 2u);
  EXPECT_EQ(four, (Ch03Tokens{256, 256}));
  Ch03Tokens three = ch03_bytes("aaa");
  EXPECT_EQ(llmfs::text::merge_pair(three, {'a', 'a'}, 256), 1u);
  EXPECT_EQ(three, (Ch03Tokens{256, 'a'}));  // left to right: X a, not a X
  Ch03Tokens none = ch03_bytes("ba");
  EXPECT_EQ(llmfs::text::merge_pair(none, {'a', 'b'}, 256), 0u);
  EXPECT_EQ(none, ch03_bytes("ba"));
}

TEST(BpeBestPair, HighestCountThenSmallestPair) {
  EXPECT_EQ(llmfs::text::best_pair({{{'b', 'a'}, 3}, {{'a', 'b'}, 2}}),
            (std::pair<TokenPair, std::int64_t>{{'b', 'a'}, 3}));
  EXPECT_EQ(llmfs::text::best_pair({{{'b', 'a'}, 2}, {{'a', 'c'}, 2}, {{'a', 'b'}, 2}}),
            (std::pair<TokenPair, std::int64_t>{{'a', 'b'}, 2}));
  EXPECT_EQ(llmfs::text::best_pair({}).second, 0);
}

TEST(BpeTrain, TheFixtureLearnsAtThenHeThenThe) {
  // Chunks: the, ␣cat, ␣sat, ␣on, ␣the, ␣mat, \n | the, ␣hat, \n.
  // (a,t) occurs in cat, sat, mat, hat: 4, more than any other pair -> 256 = "at".
  // Then (t,h) = (h,e) = 3 (the, the, ␣the): the tie goes to (h,e) = (104,101) <
  // (116,104) -> 257 = "he". Then (t,257) = 3 -> 258 = "the". Every other pair
  // (␣c, c·at, ␣the, …) occurs once: training stops.
  const BpeTraining t = ch03_train_both({"the cat sat on the mat\n", "the hat\n"});
  EXPECT_EQ(t.table.merges,
            (std::vector<TokenPair>{{'a', 't'}, {'h', 'e'}, {'t', 257}}));
  EXPECT_EQ(t.counts, (std::vector<std::int64_t>{4, 3, 3}));
  EXPECT_EQ(t.stop, BpeStop::no_repeated_pair);
  const auto bytes = llmfs::text::token_bytes(t.table);
  ASSERT_EQ(bytes.size(), 259u);
  EXPECT_EQ(bytes[256], "at");
  EXPECT_EQ(bytes[257], "he");
  EXPECT_EQ(bytes[258], "the");
}

TEST(BpeTrain, TheCountingRuleDecidesTheFirstMerge) {
  // Chunks bbbb, ␣abab. Non-overlapping: (b,b) = 2, (a,b) = 2, (␣,a) = 1, (b,a) = 1;
  // the tie goes to (a,b) = (97,98) < (98,98). Counting all overlapping pairs would
  // give (b,b) = 3 and merge it first. After 256 = ab: bbbb, ␣ 256 256 -> (b,b) = 2
  // -> 257 = bb; then 257 257, ␣ 256 256: every pair once.
  const BpeTraining t = ch03_train_both({"bbbb abab"});
  EXPECT_EQ(t.table.merges, (std::vector<TokenPair>{{'a', 'b'}, {'b', 'b'}}));
  EXPECT_EQ(t.counts, (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(t.stop, BpeStop::no_repeated_pair);
}

TEST(BpeTrain, AnOddRunMergesFromTheLeft) {
  // aaa, ␣aaa: (a,a) = 1 + 1 = 2 -> 256; the chunks become 256 a and ␣ 256 a, so
  // (256,a) = 2 -> 257; then ␣ 257 once: stop.
  const BpeTraining t = ch03_train_both({"aaa aaa"});
  EXPECT_EQ(t.table.merges, (std::vector<TokenPair>{{'a', 'a'}, {256, 'a'}}));
  EXPECT_EQ(t.counts, (std::vector<std::int64_t>{2, 2}));
}

TEST(BpeTrain, EqualCountsGoToTheSmallestPair) {
  // Chunks ba, ␣ab, ␣ba, ␣ab: (b,a) = 2 (ba, ␣ba), (␣,a) = 2, (a,b) = 2, (␣,b) = 1.
  // Three pairs tie at 2 -> the smallest, (␣,a) = (32,97) -> 256. Now ba, 256 b,
  // ␣ba, 256 b: (b,a) = 2 and (256,b) = 2 tie -> (98,97) < (256,98) -> 257 = ba.
  // Then (256,b) = 2 -> 258; only (␣,257) is left, once.
  const BpeTraining t = ch03_train_both({"ba ab ba ab"});
  EXPECT_EQ(t.table.merges,
            (std::vector<TokenPair>{{' ', 'a'}, {'b', 'a'}, {256, 'b'}}));
  EXPECT_EQ(t.counts, (std::vector<std::int64_t>{2, 2, 2}));
  EXPECT_EQ(t.stop, BpeStop::no_repeated_pair);
}

TEST(BpeTrain, MergesNeverCrossChunksOrDocuments) {
  // Chunks ab, ␣ab, ␣ab | ab. Across the cuts (b,␣) would occur twice and (b,a) once
  // (end of document 1, start of document 2); inside chunks (a,b) = 4 -> 256, then
  // (␣,256) = 2 -> 257, and the chunks are single tokens: 256, 257, 257 | 256.
  const BpeTraining t = ch03_train_both({"ab ab ab", "ab"});
  EXPECT_EQ(t.table.merges, (std::vector<TokenPair>{{'a', 'b'}, {' ', 256}}));
  EXPECT_EQ(t.counts, (std::vector<std::int64_t>{4, 2}));
}

TEST(BpeTrain, ACorpusWithoutPairsLearnsNothing) {
  // Every chunk is one byte (or there are none).
  for (const Ch03Docs& docs :
       {Ch03Docs{}, Ch03Docs{""}, Ch03Docs{"a", "\n\n\n", "b"}}) {
    const BpeTraining t = ch03_train_both(docs);
    EXPECT_TRUE(t.table.merges.empty());
    EXPECT_EQ(t.stop, BpeStop::no_repeated_pair);
  }
}

TEST(BpeTrain, APairSeenOnceIsNotMerged) {
  const BpeTraining t = ch03_train_both({"ab cd"});
  EXPECT_TRUE(t.table.merges.empty());
  EXPECT_EQ(t.stop, BpeStop::no_repeated_pair);
}

TEST(BpeTrain, StopsAtTheVocabularySize) {
  // V = 259 leaves room for one merge: the fixture's "at".
  const BpeTraining t = ch03_train_both({"the cat sat on the mat\n", "the hat\n"}, 259);
  EXPECT_EQ(t.table.merges, (std::vector<TokenPair>{{'a', 't'}}));
  EXPECT_EQ(t.stop, BpeStop::vocab_size_reached);
  const BpeTraining none = ch03_train_both({"aaaa"}, 258);
  EXPECT_TRUE(none.table.merges.empty());
  EXPECT_EQ(none.stop, BpeStop::vocab_size_reached);
}

TEST(BpeTrainErrors, AVocabularyBelow258IsRefusedWithItsSize) {
  for (std::size_t v : {0u, 255u, 256u, 257u}) {
    const auto fast = llmfs::text::train_bpe(Ch03Docs{"aaaa"}, v);
    const auto naive = llmfs::text::train_bpe_naive(Ch03Docs{"aaaa"}, v);
    ASSERT_FALSE(fast.has_value());
    ASSERT_FALSE(naive.has_value());
    EXPECT_EQ(fast.error().code, BpeTrainErrorCode::vocab_too_small);
    EXPECT_EQ(fast.error(), naive.error());
  }
  const auto e = llmfs::text::merges_for_vocab(255);
  ASSERT_FALSE(e.has_value());
  EXPECT_EQ(fmt::format("{}", e.error()),
            "train_bpe: vocabulary too small (vocab_size 255; needs at least 258 = 256 "
            "bytes + BOS + EOS)");
}

TEST(BpeTrainErrors, AVocabularyWhoseIdsOverflowTokenIdIsRefused) {
  // Ids 0 … V−1 must fit int32: V = 2^31 + 1 has largest id 2^31.
  const std::size_t too_big = (std::size_t{1} << 31) + 1;
  const auto e = llmfs::text::merges_for_vocab(too_big);
  ASSERT_FALSE(e.has_value());
  EXPECT_EQ(e.error().code, BpeTrainErrorCode::vocab_too_large);
  EXPECT_EQ(fmt::format("{}", e.error()),
            "train_bpe: vocabulary too large (vocab_size 2147483649; the largest id "
            "2147483648 exceeds 2147483647)");
  EXPECT_EQ(llmfs::text::merges_for_vocab(too_big - 1).value(), too_big - 1 - 258);
  EXPECT_EQ(llmfs::text::merges_for_vocab(4096).value(), 3838u);
}

TEST(BpeChunkTable, CountsEachDistinctChunkOnce) {
  // the ×2 (one per document), ␣the ×1, \n ×2, …, sorted by bytes ("\n" < "␣…" < "t").
  const auto chunks =
      llmfs::text::count_chunks(Ch03Docs{"the cat sat on the mat\n", "the hat\n"});
  ASSERT_EQ(chunks.size(), 8u);
  EXPECT_EQ(chunks.front(), (llmfs::text::ChunkCount{"\n", 2}));
  EXPECT_EQ(chunks.back(), (llmfs::text::ChunkCount{"the", 2}));
  EXPECT_EQ(chunks[5], (llmfs::text::ChunkCount{" sat", 1}));
}

// A SplitMix64 of the test's own (the library's generator is a later chapter's).
struct Ch03Rng {
  std::uint64_t state;
  std::uint64_t next() {
    state += 0x9E3779B97F4A7C15ULL;
    std::uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
};

// A small random corpus over a 5-byte alphabet, with runs and ties everywhere.
std::vector<std::string> ch03_random_corpus(Ch03Rng& rng) {
  constexpr std::string_view kAlphabet = "aab \nc";
  std::vector<std::string> docs(rng.below(4) + 1);
  for (std::string& doc : docs) {
    const std::size_t length = rng.below(40);
    for (std::size_t i = 0; i < length; ++i)
      doc += kAlphabet[rng.below(kAlphabet.size())];
  }
  return docs;
}

TEST(BpeTrainProperty, FastAndNaiveTrainersAgreeMergeByMerge) {
  for (std::uint64_t seed = 0; seed < 400; ++seed) {
    Ch03Rng rng{seed};
    const std::vector<std::string> owned = ch03_random_corpus(rng);
    const Ch03Docs docs(owned.begin(), owned.end());
    const std::size_t vocab = 258 + rng.below(40);
    const auto naive = llmfs::text::train_bpe_naive(docs, vocab);
    const auto fast = llmfs::text::train_bpe(docs, vocab);
    ASSERT_TRUE(naive && fast);
    ASSERT_EQ(naive->table.merges, fast->table.merges) << "seed " << seed;
    ASSERT_EQ(naive->counts, fast->counts) << "seed " << seed;
    ASSERT_EQ(naive->stop, fast->stop) << "seed " << seed;
  }
}

// Text without spaces or newlines (code, Chinese, minified data): few, long chunks over
// a 1-, 2- or 3-byte alphabet, written as runs of 1 to 9 equal bytes, so that long
// runs, odd runs and runs that a merge splits or joins are everywhere. The documents
// are cut into chunks of many lengths by an occasional space or newline, and some
// repeat, so that a chunk's count is not always 1.
std::vector<std::string> ch03_spaceless_corpus(Ch03Rng& rng) {
  const std::size_t alphabet = rng.below(3) + 1;
  const std::size_t max_length = std::size_t{1} << rng.below(10);  // 1 … 512 bytes
  std::vector<std::string> docs(rng.below(3) + 1);
  for (std::string& doc : docs) {
    const std::size_t length = rng.below(max_length + 1);
    while (doc.size() < length) {
      char byte = static_cast<char>('a' + rng.below(alphabet));
      if (rng.below(64) == 0) byte = rng.below(2) == 0 ? ' ' : '\n';
      doc.append(rng.below(3) == 0 ? rng.below(9) + 1 : 1, byte);
    }
  }
  if (rng.below(2) == 0) docs.push_back(docs.front());
  return docs;
}

TEST(BpeTrainProperty, FastAndNaiveAgreeOnLongChunksWithoutSpaces) {
  for (std::uint64_t seed = 2000; seed < 2600; ++seed) {
    Ch03Rng rng{seed};
    const std::vector<std::string> owned = ch03_spaceless_corpus(rng);
    const Ch03Docs docs(owned.begin(), owned.end());
    const std::size_t vocab = rng.below(4) == 0 ? kCh03Vocab : 258 + rng.below(60);
    const auto naive = llmfs::text::train_bpe_naive(docs, vocab);
    const auto fast = llmfs::text::train_bpe(docs, vocab);
    ASSERT_TRUE(naive && fast);
    ASSERT_EQ(naive->table.merges, fast->table.merges) << "seed " << seed;
    ASSERT_EQ(naive->counts, fast->counts) << "seed " << seed;
    ASSERT_EQ(naive->stop, fast->stop) << "seed " << seed;
  }
}

TEST(BpeTrainProperty, OneLongChunkOfTwoBytesAgreesWithTheNaiveTrainer) {
  // 6,000 random a/b bytes in one chunk: every merge's places lie in the same chunk,
  // the case where recounting the whole chunk made the trainer quadratic.
  Ch03Rng rng{7};
  std::string text(6000, 'a');
  for (char& byte : text)
    byte = rng.below(2) == 0 ? 'a' : 'b';
  const auto naive = llmfs::text::train_bpe_naive(Ch03Docs{text}, kCh03Vocab);
  const auto fast = llmfs::text::train_bpe(Ch03Docs{text}, kCh03Vocab);
  ASSERT_TRUE(naive && fast);
  EXPECT_GT(naive->table.merges.size(), 100u);
  EXPECT_EQ(*naive, *fast);
}

TEST(BpeTrain, RunsSplitAndJoinAsTheLeftToRightMergeSays) {
  // A run split: chunks aaaaab, ␣aaaaab. (a,a) = 2 + 2 = 4 -> 256, leaving 256 256 a b
  // and ␣ 256 256 a b. Then (256,256) = (256,a) = (a,b) = 2: the smallest, (a,b) =
  // (97,98) -> 257. Then (256,256) = (256,257) = 2 -> 258 = (256,256), smaller. Then
  // (258,257) = 2 -> 259; ␣ 259 is left once: stop.
  const BpeTraining t = ch03_train_both({"aaaaab aaaaab"});
  EXPECT_EQ(t.table.merges,
            (std::vector<TokenPair>{{'a', 'a'}, {'a', 'b'}, {256, 256}, {258, 257}}));
  EXPECT_EQ(t.counts, (std::vector<std::int64_t>{4, 2, 2, 2}));
  // Runs joined: chunks ababab, \nababab. (a,b) = 3 + 3 = 6 -> 256, and the three new
  // tokens of each chunk stand side by side: 256 256 256 and \n 256 256 256. Then
  // (256,256) = ⌊3/2⌋ + ⌊3/2⌋ = 2 -> 257 (257 256, \n 257 256); (257,256) = 2 -> 258;
  // \n 258 is left once: stop.
  const BpeTraining j = ch03_train_both({"ababab\nababab"});
  EXPECT_EQ(j.table.merges,
            (std::vector<TokenPair>{{'a', 'b'}, {256, 256}, {257, 256}}));
  EXPECT_EQ(j.counts, (std::vector<std::int64_t>{6, 2, 2}));
}

TEST(BpeTrainProperty, EachCountIsWhatTheMergeReplacesAndCountsNeverRise) {
  for (std::uint64_t seed = 1000; seed < 1200; ++seed) {
    Ch03Rng rng{seed};
    const std::vector<std::string> owned = ch03_random_corpus(rng);
    const Ch03Docs docs(owned.begin(), owned.end());
    const BpeTraining t = llmfs::text::train_bpe(docs, kCh03Vocab).value();
    std::vector<Ch03Tokens> chunks;
    for (std::string_view doc : docs)
      for (std::string_view chunk : llmfs::text::split_chunks(doc))
        chunks.push_back(ch03_bytes(chunk));
    std::set<TokenPair> seen;
    for (std::size_t r = 0; r < t.table.merges.size(); ++r) {
      const TokenPair pair = t.table.merges[r];
      const TokenId token = MergeTable::token_of_rank(r);
      EXPECT_LT(pair.left, token);
      EXPECT_LT(pair.right, token);
      EXPECT_TRUE(seen.insert(pair).second) << "merge learned twice";
      std::int64_t replaced = 0;
      for (Ch03Tokens& chunk : chunks)
        replaced +=
            static_cast<std::int64_t>(llmfs::text::merge_pair(chunk, pair, token));
      EXPECT_EQ(replaced, t.counts[r]) << "seed " << seed << " rank " << r;
      if (r > 0) {
        EXPECT_LE(t.counts[r], t.counts[r - 1]);
      }
    }
    // When it stopped early, no pair is left that occurs twice.
    PairCounts left;
    for (const Ch03Tokens& chunk : chunks)
      llmfs::text::add_pair_counts(chunk, 1, left);
    EXPECT_LT(llmfs::text::best_pair(left).second, 2) << "seed " << seed;
    // No learned token holds a separator after its first byte.
    for (const std::string& bytes : llmfs::text::token_bytes(t.table))
      for (std::size_t i = 1; i < bytes.size(); ++i)
        EXPECT_FALSE(llmfs::text::is_chunk_separator(bytes[i]));
  }
}

}  // namespace
