// Chapters 6 and 7 against an independent reference: NumPy float64 written from the
// chapters' formulas (tests/reference/make_bigram_reference.py), stored in
// tests/reference/data/text/ch07_bigram.txt. Counts must match exactly; probabilities
// to 1e-15 absolute (both sides compute (c + α) / (c(prev) + αV) in one division, so
// they may differ only if the sums differ); the metrics to 1e-12 relative (the
// reference sums surprisals with math.fsum, the library with a compensated sum; log may
// differ by an ulp between libm versions).
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/eval/metrics.hpp>

#include "support/reference_data.hpp"

namespace {

using llmfs::models::BigramConfig;
using llmfs::models::BigramModel;
using llmfs::models::TokenId;
using llmfs::models::TokenSequence;

const llmfs::testing::ReferenceData& ch07_reference() {
  static const auto data = llmfs::testing::load_reference(
      std::string(LLMFS_SOURCE_DIR) + "/tests/reference/data/text/ch07_bigram.txt");
  return data;
}

std::vector<TokenSequence> ch07_documents(const std::string& prefix,
                                          const char* which) {
  const auto& lengths = ch07_reference().at(prefix + "." + which + "_lengths").values;
  const auto& tokens = ch07_reference().at(prefix + "." + which + "_tokens").values;
  std::vector<TokenSequence> docs;
  std::size_t at = 0;
  for (double length : lengths) {
    TokenSequence doc;
    for (std::size_t i = 0; i < static_cast<std::size_t>(length); ++i)
      doc.push_back(static_cast<TokenId>(tokens[at++]));
    docs.push_back(doc);
  }
  return docs;
}

void ch07_check_case(const std::string& prefix) {
  SCOPED_TRACE(prefix);
  const auto& ref = ch07_reference();
  const auto& config = ref.at(prefix + ".config").values;  // V, BOS, EOS, alpha, bytes
  const BigramConfig c{static_cast<std::size_t>(config[0]),
                       static_cast<TokenId>(config[1]), static_cast<TokenId>(config[2]),
                       config[3]};
  const BigramModel m = BigramModel::fit(ch07_documents(prefix, "train"), c).value();
  const auto& counts = ref.at(prefix + ".counts").values;
  const auto& probabilities = ref.at(prefix + ".probabilities").values;
  for (std::size_t prev = 0; prev < c.vocab_size; ++prev) {
    for (std::size_t next = 0; next < c.vocab_size; ++next) {
      const auto p = static_cast<TokenId>(prev), n = static_cast<TokenId>(next);
      ASSERT_EQ(static_cast<double>(m.count(p, n).value()),
                counts[prev * c.vocab_size + next]);
      ASSERT_NEAR(m.probability(p, n).value(),
                  probabilities[prev * c.vocab_size + next], 1e-15);
    }
  }
  const auto score = llmfs::eval::score_bigram(m, ch07_documents(prefix, "valid"),
                                               static_cast<std::size_t>(config[4]));
  const auto metrics = llmfs::eval::summarize(score.value()).value();
  const auto near = [&](double got, const char* key) {
    const double want = ref.scalar(prefix + "." + key);
    EXPECT_NEAR(got, want, 1e-12 * std::abs(want)) << key;
  };
  EXPECT_EQ(static_cast<double>(metrics.score.tokens), ref.scalar(prefix + ".tokens"));
  near(metrics.score.total_nats, "total_nats");
  near(metrics.cross_entropy, "cross_entropy");
  near(metrics.perplexity, "perplexity");
  near(metrics.bits_per_byte, "bits_per_byte");
  near(llmfs::eval::uniform_cross_entropy(c.vocab_size).value(),
       "uniform_cross_entropy");
}

TEST(BigramReference, FixtureUnderLetters) {
  ch07_check_case("fixture_letters");
}
TEST(BigramReference, FixtureWithMergedAn) {
  ch07_check_case("fixture_merged");
}
TEST(BigramReference, SeededRandomCases) {
  for (const char* name : {"random_1", "random_2", "random_3"})
    ch07_check_case(name);
}

}  // namespace
