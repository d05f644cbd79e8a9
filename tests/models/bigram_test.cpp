// Chapter 6: the bigram model against hand counts, its typed errors, and seeded random
// corpora against a naive dense reference written here from the chapter's formulas.
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/core/splitmix64.hpp>
#include <llmfs/models/bigram.hpp>

namespace {

using llmfs::SplitMix64;
using llmfs::models::BigramConfig;
using llmfs::models::BigramErrorCode;
using llmfs::models::BigramModel;
using llmfs::models::TokenId;
using llmfs::models::TokenSequence;

// V = 4: tokens 0 and 1, BOS = 2, EOS = 3.
constexpr BigramConfig kCh06Small{4, 2, 3, 1.0};

BigramModel fit_or_die(const std::vector<TokenSequence>& docs, const BigramConfig& c) {
  auto fitted = BigramModel::fit(docs, c);
  EXPECT_TRUE(fitted.has_value());
  return std::move(fitted).value();
}

TEST(Bigram, CountsPairsOfFramedDocumentsOnly) {
  // [0,1,0] -> (2,0) (0,1) (1,0) (0,3); [1] -> (2,1) (1,3). The pair (0,1) across the
  // document boundary (last 0 of doc 0, first 1 of doc 1) is never counted.
  const BigramModel m = fit_or_die({{0, 1, 0}, {1}}, kCh06Small);
  EXPECT_EQ(m.pairs(), 6u);
  EXPECT_EQ(m.distinct_pairs(), 6u);
  EXPECT_EQ(m.count(0, 1).value(), 1u);
  EXPECT_EQ(m.count(2, 0).value(), 1u);
  EXPECT_EQ(m.count(2, 1).value(), 1u);
  EXPECT_EQ(m.count(0, 3).value(), 1u);
  EXPECT_EQ(m.count(1, 3).value(), 1u);
  EXPECT_EQ(m.count(1, 0).value(), 1u);
  EXPECT_EQ(m.count(1, 1).value(), 0u);
  EXPECT_EQ(m.row_total(0).value(), 2u);
  EXPECT_EQ(m.row_total(3).value(), 0u);  // EOS is never a previous token
}

TEST(Bigram, AddAlphaProbabilitiesByHand) {
  // Row 0: c(0,1) = 1, c(0,3) = 1, c(0) = 2; alpha = 1, V = 4: (1+1)/(2+4) = 1/3,
  // unseen (0+1)/6 = 1/6. Row EOS: c = 0, so uniform 1/4.
  const BigramModel m = fit_or_die({{0, 1, 0}, {1}}, kCh06Small);
  EXPECT_DOUBLE_EQ(m.probability(0, 1).value(), 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(m.probability(0, 0).value(), 1.0 / 6.0);
  EXPECT_DOUBLE_EQ(m.probability(3, 0).value(), 0.25);
  BigramConfig half = kCh06Small;
  half.alpha = 0.5;  // (1+0.5)/(2+2) = 3/8
  EXPECT_DOUBLE_EQ(fit_or_die({{0, 1, 0}, {1}}, half).probability(0, 1).value(), 0.375);
}

TEST(Bigram, WithAlphaKeepsTheCountsAndChangesTheSmoothing) {
  const BigramModel m = fit_or_die({{0, 1, 0}, {1}}, kCh06Small);
  const BigramModel half = m.with_alpha(0.5).value();
  EXPECT_EQ(half.count(0, 1).value(), 1u);
  EXPECT_EQ(half.pairs(), m.pairs());
  EXPECT_DOUBLE_EQ(half.probability(0, 1).value(), 0.375);  // (1 + 0.5) / (2 + 2)
  EXPECT_DOUBLE_EQ(m.probability(0, 1).value(), 1.0 / 3);   // the original is unchanged
  EXPECT_EQ(m.with_alpha(0.0).error().code, BigramErrorCode::bad_smoothing);
}

TEST(Bigram, EmptyDocumentIsOneBosEosPair) {
  const BigramModel m = fit_or_die({{}}, kCh06Small);
  EXPECT_EQ(m.pairs(), 1u);
  EXPECT_EQ(m.count(2, 3).value(), 1u);
}

TEST(Bigram, RefusesBadConfigurations) {
  const std::vector<TokenSequence> docs{{0, 1}};
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (double alpha : {0.0, -0.5, nan, inf}) {
    BigramConfig c = kCh06Small;
    c.alpha = alpha;
    const auto fitted = BigramModel::fit(docs, c);
    ASSERT_FALSE(fitted.has_value()) << alpha;
    EXPECT_EQ(fitted.error().code, BigramErrorCode::bad_smoothing);
  }
  EXPECT_EQ(BigramModel::fit(docs, {0, 0, 0, 1.0}).error().code,
            BigramErrorCode::empty_vocabulary);
  EXPECT_EQ(BigramModel::fit(docs, {4, 4, 3, 1.0}).error().code,
            BigramErrorCode::special_out_of_range);
  EXPECT_EQ(BigramModel::fit(docs, {4, 2, -1, 1.0}).error().code,
            BigramErrorCode::special_out_of_range);
}

TEST(Bigram, NamesTheDocumentAndPositionOfABadToken) {
  const auto fitted =
      BigramModel::fit(std::vector<TokenSequence>{{0, 1}, {1, 1, 4}}, kCh06Small);
  ASSERT_FALSE(fitted.has_value());
  EXPECT_EQ(fmt::format("{}", fitted.error()),
            "bigram fit: token id out of range (document 1, position 2: id 4 (V = 4))");
  const auto negative = BigramModel::fit(std::vector<TokenSequence>{{-1}}, kCh06Small);
  EXPECT_EQ(negative.error().code, BigramErrorCode::token_out_of_range);
}

TEST(Bigram, QueriesRefuseIdsOutsideTheVocabulary) {
  const BigramModel m = fit_or_die({{0, 1}}, kCh06Small);
  EXPECT_EQ(m.probability(4, 0).error().code, BigramErrorCode::token_out_of_range);
  EXPECT_EQ(m.probability(0, -1).error().code, BigramErrorCode::token_out_of_range);
  EXPECT_EQ(m.count(0, 4).error().code, BigramErrorCode::token_out_of_range);
  EXPECT_EQ(m.row(7).error().code, BigramErrorCode::token_out_of_range);
  SplitMix64 rng(1);
  EXPECT_EQ(m.sample(4, rng).error().code, BigramErrorCode::token_out_of_range);
  EXPECT_EQ(rng, SplitMix64(1));  // a refused draw leaves the generator untouched
}

TEST(Bigram, MemoryOfBothLayouts) {
  // Dense: 8 bytes per cell, V² cells. Sparse: (V+1) offsets and V totals of 8 bytes,
  // 4 + 8 bytes per distinct pair. V = 4: dense 128; sparse 40 + 32 + 2·12 = 96.
  const BigramModel m = fit_or_die({{0}}, kCh06Small);
  EXPECT_EQ(m.dense_bytes(), 128u);
  EXPECT_EQ(m.distinct_pairs(), 2u);
  EXPECT_EQ(m.stored_bytes(), 96u);
}

// The naive reference: a dense [V,V] table of counts, rows smoothed by the formula.
struct Ch06DenseReference {
  std::size_t v;
  std::vector<std::uint64_t> counts;  // [V*V]
  std::vector<std::uint64_t> totals;  // [V]
  double alpha;
  double probability(std::size_t prev, std::size_t next) const {
    return (static_cast<double>(counts[prev * v + next]) + alpha) /
           (static_cast<double>(totals[prev]) + alpha * static_cast<double>(v));
  }
};

Ch06DenseReference dense_reference(const std::vector<TokenSequence>& docs,
                                   const BigramConfig& c) {
  Ch06DenseReference ref{c.vocab_size,
                         std::vector<std::uint64_t>(c.vocab_size * c.vocab_size),
                         std::vector<std::uint64_t>(c.vocab_size), c.alpha};
  for (const TokenSequence& doc : docs) {
    std::vector<TokenId> framed{c.bos};
    framed.insert(framed.end(), doc.begin(), doc.end());
    framed.push_back(c.eos);
    for (std::size_t i = 0; i + 1 < framed.size(); ++i) {
      ++ref.counts[static_cast<std::size_t>(framed[i]) * ref.v +
                   static_cast<std::size_t>(framed[i + 1])];
      ++ref.totals[static_cast<std::size_t>(framed[i])];
    }
  }
  return ref;
}

struct Ch06RandomCase {
  std::vector<TokenSequence> docs;
  BigramConfig config;
};

Ch06RandomCase random_case(SplitMix64& rng) {
  const std::size_t v = 3 + rng.next_u64() % 10;
  Ch06RandomCase c{{},
                   {v, static_cast<TokenId>(v - 2), static_cast<TokenId>(v - 1),
                    0.05 + 2.0 * rng.next_unit()}};
  const std::size_t documents = rng.next_u64() % 5;
  for (std::size_t d = 0; d < documents; ++d) {
    TokenSequence doc(rng.next_u64() % 12);
    for (TokenId& t : doc)
      t = static_cast<TokenId>(rng.next_u64() % (v - 2));
    c.docs.push_back(doc);
  }
  return c;
}

TEST(Bigram, RandomCorporaMatchADenseReference) {
  SplitMix64 rng(0xC406);
  for (int trial = 0; trial < 300; ++trial) {
    const Ch06RandomCase c = random_case(rng);
    const BigramModel m = fit_or_die(c.docs, c.config);
    const Ch06DenseReference ref = dense_reference(c.docs, c.config);
    for (std::size_t prev = 0; prev < ref.v; ++prev) {
      const std::vector<double> row = m.row(static_cast<TokenId>(prev)).value();
      double sum = 0.0;
      for (std::size_t next = 0; next < ref.v; ++next) {
        const auto p = static_cast<TokenId>(prev), n = static_cast<TokenId>(next);
        ASSERT_EQ(m.count(p, n).value(), ref.counts[prev * ref.v + next]);
        ASSERT_DOUBLE_EQ(m.probability(p, n).value(), ref.probability(prev, next));
        ASSERT_DOUBLE_EQ(row[next], ref.probability(prev, next));
        sum += row[next];
      }
      ASSERT_NEAR(sum, 1.0, 1e-12);
      ASSERT_EQ(m.row_total(static_cast<TokenId>(prev)).value(), ref.totals[prev]);
    }
  }
}

TEST(Bigram, SamplesAreTheNaiveInverseCdf) {
  // The same u through a naive inverse CDF over probabilities: the first id whose
  // cumulative probability exceeds u (rounding may move a boundary by an ulp, so the
  // reference must agree for all but draws within 1e-12 of a boundary).
  SplitMix64 cases(0x5A4);
  for (int trial = 0; trial < 200; ++trial) {
    const Ch06RandomCase c = random_case(cases);
    const BigramModel m = fit_or_die(c.docs, c.config);
    const Ch06DenseReference ref = dense_reference(c.docs, c.config);
    SplitMix64 rng(static_cast<std::uint64_t>(trial));
    for (int draw = 0; draw < 20; ++draw) {
      const std::size_t prev = static_cast<std::size_t>(rng.state() % ref.v);
      SplitMix64 copy = rng;
      const double u = copy.next_unit();
      const TokenId got = m.sample(static_cast<TokenId>(prev), rng).value();
      ASSERT_EQ(rng, copy);  // exactly one draw
      double cumulative = 0.0;
      std::size_t expected = ref.v - 1;
      bool near_boundary = false;
      for (std::size_t j = 0; j < ref.v; ++j) {
        cumulative += ref.probability(prev, j);
        near_boundary = near_boundary || std::abs(cumulative - u) < 1e-12;
        if (cumulative > u) {
          expected = j;
          break;
        }
      }
      if (!near_boundary) {
        ASSERT_EQ(static_cast<std::size_t>(got), expected);
      }
    }
  }
}

TEST(Bigram, SampleFrequenciesApproachTheRow) {
  // Row 0 of the small model: 1/6, 1/3, 1/6, 1/3 (ids 0, 1, BOS, EOS). 60,000 draws:
  // each frequency within 0.01 (about five standard deviations, sqrt(p(1-p)/n) ≤
  // 0.002).
  const BigramModel m = fit_or_die({{0, 1, 0}, {1}}, kCh06Small);
  SplitMix64 rng(17);
  std::vector<int> seen(4, 0);
  constexpr int kDraws = 60000;
  for (int i = 0; i < kDraws; ++i)
    ++seen[static_cast<std::size_t>(m.sample(0, rng).value())];
  const double expected[] = {1.0 / 6, 1.0 / 3, 1.0 / 6, 1.0 / 3};
  for (std::size_t j = 0; j < 4; ++j)
    EXPECT_NEAR(seen[j] / static_cast<double>(kDraws), expected[j], 0.01) << j;
}

TEST(Bigram, SampleDocumentStopsAtEosOrTheCap) {
  // A model trained only on empty documents: from BOS, EOS has (1+1)/(1+4) = 0.4.
  const BigramModel m = fit_or_die({{}}, kCh06Small);
  SplitMix64 rng(3);
  for (int i = 0; i < 50; ++i) {
    const TokenSequence doc = llmfs::models::sample_document(m, rng, 5).value();
    EXPECT_LE(doc.size(), 5u);
    for (TokenId t : doc)
      EXPECT_NE(t, 3);  // the final EOS is not part of the document
  }
}

// V past 2^31 (one more than the largest TokenId) is refused before any table is
// sized: V = 2^62 used to reach std::vector's length_error.
TEST(Bigram, RefusesAVocabularyTooLargeForItsTables) {
  const std::vector<TokenSequence> docs = {{0, 1}};
  std::optional<std::expected<BigramModel, llmfs::models::BigramError>> huge_fit,
      next_fit;
  EXPECT_NO_THROW(huge_fit = BigramModel::fit(docs, {std::size_t{1} << 62, 0, 1, 1.0}));
  ASSERT_TRUE(huge_fit.has_value());
  const auto& huge = *huge_fit;
  ASSERT_FALSE(huge.has_value());
  EXPECT_EQ(huge.error().code, BigramErrorCode::vocabulary_too_large);
  EXPECT_EQ(huge.error().detail, "V = 4611686018427387904 > 2147483648");
  EXPECT_NO_THROW(next_fit =
                      BigramModel::fit(docs, {(std::size_t{1} << 31) + 1, 0, 1, 1.0}));
  ASSERT_TRUE(next_fit.has_value());
  const auto& first_too_big = *next_fit;
  ASSERT_FALSE(first_too_big.has_value());
  EXPECT_EQ(first_too_big.error().code, BigramErrorCode::vocabulary_too_large);
  EXPECT_EQ(llmfs::models::describe(BigramErrorCode::vocabulary_too_large),
            "vocabulary too large");
}

}  // namespace
