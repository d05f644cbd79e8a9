// Chapter 4: the chapter's claims. Every expected value is derived by hand beside its
// assertion (the merge-rank rule on the hand table of fixture.hpp), never taken from
// the code under test.
#include <gtest/gtest.h>

#include "evidence.hpp"
#include "fixture.hpp"

namespace {

using ch04::Ids;

const ch04::Evidence& ch04_evidence() {
  static const ch04::Evidence e = [] {
    auto gathered = ch04::gather_fixture();
    EXPECT_TRUE(gathered.has_value()) << fmt::format("{}", gathered.error());
    return gathered.value_or(ch04::Evidence{});
  }();
  return e;
}

std::vector<llmfs::text::TokenId> ch04_ranks(const ch04::ChunkTrace& c) {
  std::vector<llmfs::text::TokenId> ranks;
  for (const auto& s : c.steps)
    ranks.push_back(s.rank);
  return ranks;
}

TEST(Ch04Prediction, LayoutOfEightMerges) {
  // 256 bytes, merges 256..263, BOS 264, EOS 265, V = 258 + 8.
  const ch04::Layout& l = ch04_evidence().layout;
  EXPECT_EQ(l.merges, 8u);
  EXPECT_EQ(l.bos, 264);
  EXPECT_EQ(l.eos, 265);
  EXPECT_EQ(l.vocab, 266u);
  EXPECT_EQ(ch04_evidence().token_text.at(263), " lower");  // " low" + "er"
}

TEST(Ch04Prediction, LowLowerLowestNewer) {
  // low = 257; " lower" = 263; " lowest" = " low" 261 + est 260; " newer" keeps its
  // bytes but er (258): (w,e) rank 6 loses to (e,r) rank 2.
  const ch04::Encoded& p = ch04_evidence().predict;
  EXPECT_EQ(p.ids, (Ids{257, 263, 261, 260, ' ', 'n', 'e', 'w', 258}));
  EXPECT_TRUE(p.naive_agrees);
  EXPECT_TRUE(p.round_trip);
}

TEST(Ch04Derive, EachChunkMergesInRankOrder) {
  // " lower": lo r0, low r1, er r2 (before " low" r5), " low" r5, " lower" r7.
  const auto& c = ch04_evidence().chunks;
  ASSERT_EQ(c.size(), 4u);
  EXPECT_EQ(ch04_ranks(c[0]), (std::vector<llmfs::text::TokenId>{0, 1}));
  EXPECT_EQ(ch04_ranks(c[1]), (std::vector<llmfs::text::TokenId>{0, 1, 2, 5, 7}));
  EXPECT_EQ(ch04_ranks(c[2]), (std::vector<llmfs::text::TokenId>{0, 1, 3, 4, 5}));
  EXPECT_EQ(ch04_ranks(c[3]), (std::vector<llmfs::text::TokenId>{2}));
  // After r2 in " lower" the chunk is " ", low, er; the new token er sits at index 2.
  EXPECT_EQ(c[1].steps[2].tokens, (Ids{' ', 257, 258}));
  EXPECT_EQ(c[1].steps[2].position, 2u);
}

TEST(Ch04EdgeCases, RankRuleEmptyNulAndNoMerges) {
  const ch04::Evidence& e = ch04_evidence();
  EXPECT_EQ(e.rank_vs_greedy.ids, (Ids{'a', 256}));  // (b,c) is rank 0
  EXPECT_TRUE(e.empty.ids.empty());
  EXPECT_EQ(e.nul.ids, Ids{0});
  // héllo €🙂 without merges: its 14 bytes, é = C3 A9, € = E2 82 AC, 🙂 = F0
  // 9F 99 82.
  EXPECT_EQ(e.no_merges.ids,
            (Ids{104, 195, 169, 108, 108, 111, 32, 226, 130, 172, 240, 159, 153, 130}));
  EXPECT_TRUE(e.no_merges.round_trip);
  EXPECT_TRUE(e.file_round_trip);
}

TEST(Ch04Evidence, EveryDamagedFileIsNamedWithItsLine) {
  const auto& d = ch04_evidence().damaged;
  ASSERT_EQ(d.size(), 7u);
  EXPECT_TRUE(d[0].error.starts_with("merges file low.merges line 1: bad header"));
  EXPECT_TRUE(
      d[1].error.starts_with("merges file low.merges line 1: unknown format version"));
  // 257 256 119 is the merge of rank 1, the file's line 3 (line 1 is the header).
  EXPECT_TRUE(
      d[2].error.starts_with("merges file low.merges line 3: malformed merge line"));
  EXPECT_TRUE(d[3].error.starts_with(
      "merges file low.merges line 3: merge uses a token not made yet"));
  // Five lines kept: the header and ranks 0-3; rank 4 (line 6) is missing.
  EXPECT_EQ(d[4].error,
            "merges file low.merges line 6: file is truncated (header says 8 merges, "
            "file has 4)");
  EXPECT_TRUE(
      d[5].error.starts_with("merges file low.merges line 1: checksum mismatch"));
  EXPECT_EQ(d[6].error,
            "merges file no-such-folder/kjv-4096.merges: cannot read merges file (no "
            "such file)");
}

TEST(Ch04Evidence, StreamingHoldsPartialCharacters) {
  const ch04::Streaming& s = ch04_evidence().streaming;
  ASSERT_EQ(s.byte_by_byte.size(), 14u);
  // é's lead byte (push 2) is held; its continuation (push 3) releases "é".
  EXPECT_EQ(s.byte_by_byte[1].answer, "text:\"\"");
  EXPECT_EQ(s.byte_by_byte[1].held, 1u);
  EXPECT_EQ(s.byte_by_byte[2].answer, "text:\"\xC3\xA9\"");
  // 🙂 holds 1, 2, 3 bytes, then comes out whole.
  EXPECT_EQ(s.byte_by_byte[12].held, 3u);
  EXPECT_EQ(s.byte_by_byte[13].answer, "text:\"\xF0\x9F\x99\x82\"");
  EXPECT_EQ(s.split_points, 15u);  // 0..14
  EXPECT_EQ(s.whole_splits, 15u);
  ASSERT_EQ(s.overlong.size(), 2u);
  EXPECT_EQ(s.overlong[1].held, 1u);  // E0 still held after the failed push of 80
  EXPECT_TRUE(s.overlong[1].answer.starts_with("error:streaming decode"));
}

TEST(Ch04Exercise, Answers) {
  const ch04::Exercises& x = ch04_evidence().exercises;
  // " slower": lo r0, low r1, er r2; no merge joins ' ' and s, or s and low.
  EXPECT_EQ(x.slower.ids, (Ids{' ', 's', 257, 258}));
  // V = 258 + M: 266 for 8 merges, 4,096 for 3,838; BOS = 256 + M.
  EXPECT_EQ(x.fixture_layout.vocab, 266u);
  EXPECT_EQ(x.course_layout.vocab, 4096u);
  EXPECT_EQ(x.course_layout.bos, 4094);
  EXPECT_EQ(x.course_layout.eos, 4095);
  // Greedy takes "we" (longest at 'w'), the rank rule takes "er" (rank 2 < 6).
  EXPECT_EQ(x.greedy, (std::vector<std::string>{" ", "n", "e", "we", "r"}));
  EXPECT_EQ(x.newer.pieces, (std::vector<std::string>{" ", "n", "e", "w", "er"}));
  ASSERT_EQ(x.euro.size(), 3u);
  EXPECT_EQ(x.euro[0].held, 1u);
  EXPECT_EQ(x.euro[1].held, 2u);
  EXPECT_EQ(x.euro[2].answer, "text:\"\xE2\x82\xAC\"");
}

}  // namespace

// The course tokenizer on the whole corpus (the course_* lines) is checked by the
// golden ch04.golden.report in the optimized build: encoding 4 MB under ASan takes half
// a minute.
