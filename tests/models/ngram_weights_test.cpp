// Chapter 23's n-gram weights file (the long run's model, for Chapter 39's test table):
// a random model written and read back scores bit for bit as the one written, and a
// damaged file is refused by a typed error naming the file and what is wrong.

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include <llmfs/core/read_file.hpp>
#include <llmfs/core/splitmix64.hpp>
#include <llmfs/models/ngram_weights.hpp>

#include "support/temp_dir.hpp"

namespace {

using llmfs::models::NgramMlp;

struct TempDir {
  std::filesystem::path path = llmfs::test::make_temp_dir("ch23-weights");
  ~TempDir() { std::filesystem::remove_all(path); }
};

void write(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

TEST(NgramWeights, RandomModelsRoundTripBitForBit) {
  TempDir dir;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    llmfs::SplitMix64 rng(seed);
    const llmfs::models::NgramConfig config{
        2 + (rng.next_u64() % 9), 1 + (rng.next_u64() % 4), 1 + (rng.next_u64() % 5),
        1 + (rng.next_u64() % 6)};
    const NgramMlp model = NgramMlp::create(config, rng).value();
    const auto file = dir.path / "model.weights";
    ASSERT_TRUE(llmfs::models::save_ngram_weights(file, model).has_value());
    const auto back = llmfs::models::load_ngram_weights(file);
    ASSERT_TRUE(back.has_value()) << fmt::format("{}", back.error());
    EXPECT_EQ(back->config().vocab_size, config.vocab_size);
    EXPECT_EQ(back->config().context, config.context);
    EXPECT_EQ(back->config().embedding_width, config.embedding_width);
    EXPECT_EQ(back->config().hidden_width, config.hidden_width);
    ASSERT_EQ(back->values().size(), model.values().size());
    for (std::size_t i = 0; i < model.values().size(); ++i) {
      EXPECT_EQ(back->values()[i].shape(), model.values()[i].shape());
      const auto a = model.values()[i].values(), b = back->values()[i].values();
      ASSERT_EQ(a.size(), b.size());
      EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(double)), 0)
          << "parameter " << i << ", seed " << seed;
    }
    // The header names the sizes; the length is 8 bytes per value after it.
    const std::string bytes = llmfs::read_file(file).value();
    const std::string header = fmt::format(
        "llmfs-ngram-weights version=1 V={} n={} d={} h={}\n", config.vocab_size,
        config.context, config.embedding_width, config.hidden_width);
    EXPECT_EQ(bytes.substr(0, header.size()), header);
    EXPECT_EQ(bytes.size(), header.size() + 8 * model.parameter_count());
  }
}

TEST(NgramWeights, DamagedFilesAreRefusedByName) {
  TempDir dir;
  llmfs::SplitMix64 rng(23);
  const NgramMlp model = NgramMlp::create({5, 2, 3, 4}, rng).value();
  const auto good = dir.path / "good.weights";
  ASSERT_TRUE(llmfs::models::save_ngram_weights(good, model).has_value());
  const std::string bytes = llmfs::read_file(good).value();
  const std::size_t body = bytes.find('\n') + 1;
  const auto refused = [&](const std::string& name, const std::string& content) {
    const auto file = dir.path / name;
    write(file, content);
    const auto result = llmfs::models::load_ngram_weights(file);
    EXPECT_FALSE(result.has_value()) << name;
    return result ? std::string() : fmt::format("{}", result.error());
  };
  const std::string path = (dir.path / "short.weights").string();
  EXPECT_EQ(refused("short.weights", bytes.substr(0, bytes.size() - 1)),
            fmt::format("load weights: file length does not match its header ({}: {} "
                        "bytes after the header at offset {}, {} expected)",
                        path, bytes.size() - body - 1, body, bytes.size() - body));
  EXPECT_EQ(refused("long.weights", bytes + "x").find("load weights: file length"), 0u);
  for (const std::string header :
       {"llmfs-ngram-weights version=2 V=5 n=2 d=3 h=4\n",
        "llmfs-ngram-weights version=1 V=05 n=2 d=3 h=4\n",
        "llmfs-ngram-weights version=1 V=5 n=2 d=3\n",
        "llmfs-ngram-weights version=1 V=5 n=2 d=3 h=4 \n",
        "llmfs-ngram-weights version=1 V=5000000 n=2 d=3 h=4\n", "no header at all"}) {
    const std::string text = refused("header.weights", header + bytes.substr(body));
    EXPECT_EQ(text.find("load weights: not an n-gram weights file header"), 0u)
        << header;
    EXPECT_NE(text.find("header.weights, line 1"), std::string::npos) << text;
  }
  // A missing file is the file's own error, wrapped.
  const auto missing = llmfs::models::load_ngram_weights(dir.path / "missing.weights");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code, llmfs::models::NgramWeightsErrorCode::stage_failed);
  // A model of a zero size, with the length its header asks for (n·d·h + h = 28
  // values): the header parses and from_values() refuses it.
  const std::string zero =
      refused("zero.weights", "llmfs-ngram-weights version=1 V=0 n=2 d=3 h=4\n" +
                                  std::string(28 * sizeof(double), '\0'));
  EXPECT_NE(zero.find("ngram create"), std::string::npos) << zero;
}

}  // namespace
