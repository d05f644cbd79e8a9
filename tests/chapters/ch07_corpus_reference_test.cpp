// Chapters 6 and 7 on the real corpus: the numbers the demos print (their committed
// goldens, which ch06.golden.report and ch07.golden.report check against the programs)
// against the independent NumPy reference (tests/reference/make_bigram_reference.py,
// which re-implements the corpus reading, the partition manifest, the byte-level BPE
// encoding from tools/kjv-4096.merges and the bigram). Counts must agree exactly; the
// metrics are printed with six decimals, so they must agree within 5e-7 (+1e-9).
// Reading two text files, this test stays fast under ASan; the corpus itself is only
// read by the demos.
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "support/reference_data.hpp"

namespace {

// `key:value` fields of the golden line starting with `name=`.
std::map<std::string, std::string> ch07_golden_fields(const std::string& chapter,
                                                      const std::string& name) {
  std::ifstream file(std::string(LLMFS_SOURCE_DIR) + "/snippets/" + chapter +
                     "/expected.txt");
  std::string line;
  std::map<std::string, std::string> fields;
  while (std::getline(file, line)) {
    if (!line.starts_with(name + "=")) continue;
    std::istringstream words(line.substr(name.size() + 1));
    for (std::string word; words >> word;)
      if (const auto colon = word.find(':'); colon != std::string::npos)
        fields[word.substr(0, colon)] = word.substr(colon + 1);
  }
  return fields;
}

const llmfs::testing::ReferenceData& ch07_corpus_reference() {
  static const auto data = llmfs::testing::load_reference(
      std::string(LLMFS_SOURCE_DIR) + "/tests/reference/data/text/ch07_bigram.txt");
  return data;
}

class Ch07CorpusReference : public ::testing::TestWithParam<const char*> {};

TEST_P(Ch07CorpusReference, GoldenNumbersMatchTheIndependentReference) {
  const std::string name = GetParam();
  const auto& ref = ch07_corpus_reference();
  ASSERT_TRUE(ref.contains("corpus_" + name + ".cross_entropy"))
      << "run tests/reference/make_bigram_reference.py build/default/corpus/kjv.txt";
  const auto fit = ch07_golden_fields("ch06-a-bigram-baseline", "corpus_" + name);
  const auto metrics =
      ch07_golden_fields("ch07-language-model-metrics", "corpus_" + name + "_bigram");
  const auto uniform =
      ch07_golden_fields("ch07-language-model-metrics", "corpus_" + name + "_uniform");
  ASSERT_FALSE(fit.empty());
  ASSERT_FALSE(metrics.empty());
  const auto scalar = [&](const std::string& key) {
    return ref.scalar("corpus_" + name + "." + key);
  };
  EXPECT_EQ(std::stod(fit.at("V")), ref.at("corpus_" + name + ".config").values[0]);
  EXPECT_EQ(std::stod(fit.at("pairs")), scalar("pairs"));
  EXPECT_EQ(std::stod(fit.at("distinct")), scalar("distinct_pairs"));
  EXPECT_EQ(std::stod(metrics.at("tokens")), scalar("tokens"));
  EXPECT_EQ(std::stod(metrics.at("bytes")),
            ref.at("corpus_" + name + ".config").values[4]);
  constexpr double kPrinted = 5e-7 + 1e-9;
  EXPECT_NEAR(std::stod(metrics.at("total_nats")), scalar("total_nats"), kPrinted);
  EXPECT_NEAR(std::stod(metrics.at("cross_entropy")), scalar("cross_entropy"),
              kPrinted);
  EXPECT_NEAR(std::stod(metrics.at("perplexity")), scalar("perplexity"), kPrinted);
  EXPECT_NEAR(std::stod(metrics.at("bits_per_byte")), scalar("bits_per_byte"),
              kPrinted);
  EXPECT_NEAR(std::stod(uniform.at("cross_entropy")), scalar("uniform_cross_entropy"),
              kPrinted);
  const auto& alphas = ref.at("corpus_" + name + ".alphas").values;
  const auto& h = ref.at("corpus_" + name + ".alpha_cross_entropy").values;
  const auto& bpb = ref.at("corpus_" + name + ".alpha_bits_per_byte").values;
  for (std::size_t i = 0; i < alphas.size(); ++i) {
    const auto line =
        ch07_golden_fields("ch07-language-model-metrics",
                           fmt::format("corpus_{}_alpha_{}", name, alphas[i]));
    ASSERT_FALSE(line.empty()) << alphas[i];
    EXPECT_NEAR(std::stod(line.at("cross_entropy")), h[i], kPrinted) << alphas[i];
    EXPECT_NEAR(std::stod(line.at("bits_per_byte")), bpb[i], kPrinted) << alphas[i];
  }
}

INSTANTIATE_TEST_SUITE_P(BothTokenizers, Ch07CorpusReference,
                         ::testing::Values("bytes", "bpe4096"));

}  // namespace
