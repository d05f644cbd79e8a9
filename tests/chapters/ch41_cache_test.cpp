// Chapter 41 with chapter 37's cache: the cache keeps keys and values and runs its own
// attention over them (Chapter 37), so a decoder built with either kernel decodes the
// same tokens from the same logits; and with the streaming kernel the cached logits
// equal the streaming model's full forward at every step.
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/attention/streaming.hpp>
#include <llmfs/generation/generate.hpp>
#include <llmfs/models/decoder.hpp>

#include "evidence.hpp"

namespace {

namespace at = llmfs::attention;
namespace gen = llmfs::generation;
using llmfs::tensor::Tensor;

TEST(Cache, CachedDecodingGivesTheSameTokensWithEitherKernel) {
  const llmfs::autograd::TokenGrid prompt{2, 5, {3, 1, 4, 1, 5, 9, 2, 6, 5, 3}};
  std::vector<gen::Generation> runs;
  std::vector<llmfs::models::DecoderModel> models;
  for (const auto& kernel : {at::AttentionKernel{}, at::streaming_kernel(2).value()}) {
    auto config = ch41::kTrainConfig;
    config.attention = kernel;
    auto model = llmfs::models::DecoderModel::create(config);
    ASSERT_TRUE(model.has_value());
    auto run =
        gen::generate(*model, prompt, 8, gen::greedy_chooser(), gen::CacheMode::cached);
    ASSERT_TRUE(run.has_value());
    runs.push_back(std::move(*run));
    models.push_back(std::move(*model));
  }
  EXPECT_EQ(runs[1].tokens.ids, runs[0].tokens.ids);
  ASSERT_EQ(runs[1].step_logits.size(), 8u);
  for (std::size_t s = 0; s < 8; ++s)
    EXPECT_LE(ch41::relative_difference(runs[1].step_logits[s], runs[0].step_logits[s]),
              1e-12);
  // The streaming model's full forward on the whole generated sequence: each step's
  // cached logits are the forward's logits at the position that chose the next token.
  const auto& streaming = models[1];
  auto logits = streaming.forward(runs[1].tokens);
  ASSERT_TRUE(logits.has_value());
  const Tensor all = *logits->value();
  const std::size_t vocab = ch41::kTrainConfig.vocab_size, length = runs[1].tokens.time;
  for (std::size_t s = 0; s < 8; ++s) {
    std::vector<double> row;
    for (std::size_t b = 0; b < 2; ++b) {
      const std::size_t position = prompt.time - 1 + s;
      const auto first = all.values().begin() +
                         static_cast<std::ptrdiff_t>((b * length + position) * vocab);
      row.insert(row.end(), first, first + static_cast<std::ptrdiff_t>(vocab));
    }
    const Tensor full = Tensor::from(runs[1].step_logits[s].shape(), row).value();
    EXPECT_LE(ch41::relative_difference(runs[1].step_logits[s], full), 1e-12) << s;
  }
}

}  // namespace
