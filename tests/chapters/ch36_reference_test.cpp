// Chapter 36 against its independent reference: PyTorch float64 (tempered softmax, a
// stable-sort top-k cut checked against torch.topk, the inverse CDF of SplitMix64's
// uniforms), tests/reference/data/generation/ch36_sampling.txt, written by
// tests/reference/make_sampling_reference.py.

#include <cmath>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/core/splitmix64.hpp>
#include <llmfs/generation/sampling.hpp>

#include "support/records.hpp"

namespace {

using namespace llmfs::generation;

// A comma-separated list of numbers (`-inf` included).
std::vector<double> ch36_numbers(const std::string& text) {
  std::vector<double> values;
  std::istringstream parts(text);
  for (std::string item; std::getline(parts, item, ',');)
    values.push_back(std::stod(item));
  return values;
}

TEST(Reference, StagesAndDrawsMatchPyTorch) {
  const auto records = llmfs::testing::read_keyed_records(
      "tests/reference/data/generation/ch36_sampling.txt");
  ASSERT_EQ(records.size(), 21u);
  for (const auto& r : records) {
    const std::string& name = r.fields.at("name");
    const auto logits = ch36_numbers(r.fields.at("logits"));
    const std::string k = r.fields.at("top_k");
    const SamplingConfig config{
        .temperature = r.number("temperature"),
        .top_k =
            k == "none" ? std::nullopt : std::optional<std::size_t>(std::stoul(k))};
    const auto stages = sampling_stages(logits, config);
    ASSERT_TRUE(stages.has_value()) << name;
    const auto tempered = ch36_numbers(r.fields.at("tempered"));
    const auto probabilities = ch36_numbers(r.fields.at("probabilities"));
    std::vector<bool> kept(logits.size(), false);
    for (double id : ch36_numbers(r.fields.at("kept")))
      kept[static_cast<std::size_t>(id)] = true;
    EXPECT_EQ(stages->kept, kept) << name;
    for (std::size_t i = 0; i < logits.size(); ++i) {
      EXPECT_NEAR(stages->tempered[i], tempered[i], 1e-13) << name << " id " << i;
      EXPECT_NEAR(stages->probabilities[i], probabilities[i], 1e-13)
          << name << " id " << i;
    }
    // The same seed draws the same uniforms; the same uniforms give the same tokens.
    const auto uniforms = ch36_numbers(r.fields.at("uniforms"));
    const auto tokens = ch36_numbers(r.fields.at("tokens"));
    llmfs::SplitMix64 rng(std::stoull(r.fields.at("seed")));
    for (std::size_t n = 0; n < tokens.size(); ++n) {
      EXPECT_EQ(llmfs::SplitMix64(rng).next_unit(), uniforms[n])
          << name << " draw " << n;
      const auto token = sample_token(logits, config, rng);
      ASSERT_TRUE(token.has_value()) << name;
      EXPECT_EQ(*token, static_cast<TokenId>(tokens[n])) << name << " draw " << n;
    }
  }
}

}  // namespace
