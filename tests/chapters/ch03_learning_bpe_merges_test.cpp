// Chapter 3: the chapter's claims. Every expected value is derived by hand beside its
// assertion from the chapter's rules (chunks cut before ␣ and \n; non-overlapping
// counts; the highest count, ties to the smallest (left, right); stop below 2), never
// taken from the code under test. The real corpus is the golden's (optimized build).
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "evidence.hpp"
#include "fixture.hpp"

namespace {

using ch03::TokenPair;
using Ch03Pairs = std::vector<TokenPair>;
using Ch03Counts = std::vector<std::int64_t>;

const ch03::Evidence& ch03_evidence() {
  static const ch03::Evidence e = [] {
    auto gathered = ch03::gather_fixture();
    EXPECT_TRUE(gathered.has_value()) << fmt::format("{}", gathered.error());
    return gathered.value_or(ch03::Evidence{});
  }();
  return e;
}

// The pairs of one step as (left, right, count) rows.
std::vector<std::tuple<int, int, std::int64_t>> ch03_rows(const ch03::MergeStep& s) {
  std::vector<std::tuple<int, int, std::int64_t>> rows;
  for (const ch03::Candidate& c : s.repeated)
    rows.emplace_back(c.pair.left, c.pair.right, c.count);
  return rows;
}

TEST(Ch03Prediction, TheFixtureHasTenChunks) {
  // Cut before each ␣ and \n: the|␣cat|␣sat|␣on|␣the|␣mat|\n and the|␣hat|\n.
  EXPECT_EQ(ch03_evidence().fixture.chunks,
            (std::vector<std::string>{"the", " cat", " sat", " on", " the", " mat",
                                      "\n", "the", " hat", "\n"}));
}

TEST(Ch03Prediction, FirstMergeIsAtWithCountFour) {
  // (a,t) in cat, sat, mat, hat = 4; (t,h) and (h,e) in the, ␣the, the = 3; the other
  // 11 pairs (␣c ca ␣s sa ␣o on ␣t ␣m ma ␣h ha) once each.
  const ch03::MergeStep& s = ch03_evidence().fixture.steps.at(0);
  EXPECT_EQ(s.pair, (TokenPair{'a', 't'}));
  EXPECT_EQ(s.count, 4);
  EXPECT_EQ(ch03_rows(s), (std::vector<std::tuple<int, int, std::int64_t>>{
                              {'a', 't', 4}, {'h', 'e', 3}, {'t', 'h', 3}}));
  EXPECT_EQ(s.single_pairs, 11u);
}

TEST(Ch03Prediction, TheTieBetweenThAndHeGoesToHe) {
  // Both 3; (h,e) = (104,101) < (t,h) = (116,104). Then t+he = (116,257), count 3.
  const auto& steps = ch03_evidence().fixture.steps;
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[1].pair, (TokenPair{'h', 'e'}));
  EXPECT_EQ(steps[1].count, 3);
  EXPECT_EQ(steps[2].pair, (TokenPair{'t', 257}));
  EXPECT_EQ(steps[2].count, 3);
  EXPECT_EQ(steps[2].segments.at(4), "␣·the");
  EXPECT_EQ(steps[2].segments.at(1), "␣·c·at");
}

TEST(Ch03Prediction, TrainingStopsWithElevenPairsSeenOnce) {
  // After "the": ␣c c·at ␣s s·at ␣o on ␣·the ␣m m·at ␣h h·at, each once.
  const ch03::FixtureRun& f = ch03_evidence().fixture;
  EXPECT_TRUE(f.after.repeated.empty());
  EXPECT_EQ(f.after.single_pairs, 11u);
  EXPECT_EQ(f.training.fast.stop, llmfs::text::BpeStop::no_repeated_pair);
  EXPECT_EQ(f.training.fast, f.training.naive);
  EXPECT_EQ(f.training.fast.table.merges,
            (Ch03Pairs{{'a', 't'}, {'h', 'e'}, {'t', 257}}));
}

TEST(Ch03Misconception, EachMergeCountIsTheTokensItSaves) {
  // 23 + 8 = 31 bytes; 4 + 3 + 3 = 10 merges made; 31 − 10 = 21 tokens left:
  // the, ␣·c·at, ␣·s·at, ␣·o·n, ␣·the, ␣·m·at, \n, the, ␣·h·at, \n =
  // 1+3+3+3+2+3+1+1+3+1.
  const ch03::FixtureRun& f = ch03_evidence().fixture;
  EXPECT_EQ(f.bytes, 31u);
  EXPECT_EQ(f.tokens_after, 21u);
}

TEST(Ch03Rules, TheRunCaseMergesAbBeforeBb) {
  // bbbb counts (b,b) twice, not three times; the tie with (a,b) goes to (97,98).
  const ch03::Training& t = ch03_evidence().run_case;
  EXPECT_EQ(t.fast.table.merges, (Ch03Pairs{{'a', 'b'}, {'b', 'b'}}));
  EXPECT_EQ(t.fast.counts, (Ch03Counts{2, 2}));
}

TEST(Ch03Rules, TheTieCaseTakesTheSmallestPairEachTime) {
  // ba ␣ab ␣ba ␣ab: (␣,a) (a,b) (b,a) at 2 -> (32,97); then (b,a) and (256,b) at 2 ->
  // (98,97); then (256,98).
  const ch03::Training& t = ch03_evidence().tie_case;
  EXPECT_EQ(t.fast.table.merges, (Ch03Pairs{{' ', 'a'}, {'b', 'a'}, {256, 'b'}}));
  EXPECT_EQ(t.fast, t.naive);
}

TEST(Ch03Rules, VocabularySizesBelow258AreRefused) {
  const auto& v = ch03_evidence().vocab_outcomes;
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(
      v[0],
      "error:train_bpe: vocabulary too small (vocab_size 255; needs at least 258 = "
      "256 bytes + BOS + EOS)");
  EXPECT_EQ(
      v[1],
      "error:train_bpe: vocabulary too small (vocab_size 257; needs at least 258 = "
      "256 bytes + BOS + EOS)");
  EXPECT_EQ(v[2], "ok:0 merges (vocabulary size reached)");
  EXPECT_TRUE(ch03_evidence().empty.fast.table.merges.empty());
}

TEST(Ch03Exercise, AFiveRunCountsTwoNotFour) {
  // aaaaa: (a,a) at 0 and 2 under the rule; at 0, 1, 2, 3 if every adjacent pair
  // counts.
  EXPECT_EQ(ch03_evidence().exercises.run_count, 2);
  EXPECT_EQ(ch03_evidence().exercises.overlapping_count, 4);
}

TEST(Ch03Exercise, TheFourthMergeWouldBeSpaceC) {
  // All 11 remaining pairs count 1; the smallest is (␣,c) = (32,99) (␣ = 32 is the
  // smallest left id among them; c = 99 < h, m, o, s, 258).
  const ch03::Candidate& c = ch03_evidence().exercises.fourth;
  EXPECT_EQ(c.pair, (TokenPair{' ', 'c'}));
  EXPECT_EQ(c.count, 1);
}

TEST(Ch03Exercise, RoomForTwoMergesStopsAfterHe) {
  // V = 260 = 258 + 2.
  const auto& t = ch03_evidence().exercises.two_merges;
  EXPECT_EQ(t.table.merges, (Ch03Pairs{{'a', 't'}, {'h', 'e'}}));
  EXPECT_EQ(t.stop, llmfs::text::BpeStop::vocab_size_reached);
}

TEST(Ch03Exercise, TheCourseVocabularyHas3838Merges) {
  EXPECT_EQ(ch03_evidence().exercises.course_merges, 4096u - 256u - 2u);
}

TEST(Ch03Report, ShowsSpacesAndNewlines) {
  EXPECT_EQ(ch03::show(" the\n"), "␣the\\n");
}

}  // namespace
