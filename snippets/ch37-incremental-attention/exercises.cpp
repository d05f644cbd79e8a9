// Chapter 37
// The refused calls and the exercise answers, each computed by running the library.

#include <algorithm>
#include <cmath>

#include <llmfs/autograd/tape.hpp>
#include <llmfs/core/splitmix64.hpp>
#include <llmfs/nn/init.hpp>

#include "evidence.hpp"

namespace ch37 {

using llmfs::attention::MultiHeadAttention;
using llmfs::generation::CacheShape;
using llmfs::generation::KvCache;

// One refused call per way the cache and the step can say no.
Step<std::vector<std::pair<std::string, std::string>>> gather_errors() {
  std::vector<std::pair<std::string, std::string>> errors;
  errors.emplace_back("zero_size", snippets::error_text(KvCache::create({1, 2, 4, 0})));
  auto cache = LLMFS_TRY_AT("cache", KvCache::create({1, 2, 2, 3}));
  const Tensor entry = Tensor::zeros({1, 2, 4, 2});
  errors.emplace_back("capacity_exceeded",
                      snippets::error_text(cache.append(entry, entry)));
  errors.emplace_back("entry_shape", snippets::error_text(cache.append(
                                         entry, Tensor::zeros({1, 2, 4, 4}))));
  errors.emplace_back("empty_entry",
                      snippets::error_text(cache.append(Tensor::zeros({1, 2, 0, 2}),
                                                        Tensor::zeros({1, 2, 0, 2}))));
  llmfs::autograd::Tape tape;
  llmfs::SplitMix64 rng(1);
  const auto layer = LLMFS_TRY_AT(
      "layer", MultiHeadAttention::create(tape, "a", 4, 2, 3, kDemoBase, rng));
  errors.emplace_back("input_shape", snippets::error_text(attention_step(
                                         layer, Tensor::zeros({1, 1, 6}), cache)));
  auto other = LLMFS_TRY_AT("cache", KvCache::create({1, 1, 4, 3}));
  errors.emplace_back("layer_mismatch", snippets::error_text(attention_step(
                                            layer, Tensor::zeros({1, 1, 4}), other)));
  errors.emplace_back("query_shape",
                      snippets::error_text(llmfs::generation::attend_cached(
                          Tensor::zeros({1, 2, 1, 2}), cache)));
  return errors;
}

namespace {

// Exercise 2: prefill 3 tokens into a cache of 8, then single tokens until refused.
[[nodiscard]] Step<void> fill_until_refused(Exercises& e) {
  llmfs::autograd::Tape tape;
  llmfs::SplitMix64 rng(2);
  const auto layer = LLMFS_TRY_AT(
      "layer", MultiHeadAttention::create(tape, "a", 4, 1, 8, kDemoBase, rng));
  auto cache = LLMFS_TRY_AT("cache", KvCache::create({1, 1, 4, 8}));
  LLMFS_TRY_AT("prefill", attention_step(layer, Tensor::zeros({1, 3, 4}), cache));
  while (true) {
    auto step = attention_step(layer, Tensor::zeros({1, 1, 4}), cache);
    if (!step) {
      e.refusal = snippets::error_text(step);
      return {};
    }
    ++e.decode_steps_accepted;
  }
}

// Exercise 3: K/V rows projected from a 1-token prompt up to T_max = 8: through the
// cache (each token once) and recomputed (the whole prefix again, on an empty cache).
[[nodiscard]] Step<void> count_projected_rows(Exercises& e) {
  llmfs::autograd::Tape tape;
  llmfs::SplitMix64 rng(3);
  const auto layer = LLMFS_TRY_AT(
      "layer", MultiHeadAttention::create(tape, "a", 4, 1, 8, kDemoBase, rng));
  auto cache = LLMFS_TRY_AT("cache", KvCache::create({1, 1, 4, 8}));
  for (std::size_t length = 1; length <= 8; ++length) {
    const auto step =
        LLMFS_TRY_AT("cached", attention_step(layer, Tensor::zeros({1, 1, 4}), cache));
    e.rows_cached += step.rotated_key_heads.shape()[2];
    auto fresh = LLMFS_TRY_AT("cache", KvCache::create({1, 1, 4, 8}));
    const auto again = LLMFS_TRY_AT(
        "recomputed", attention_step(layer, Tensor::zeros({1, length, 4}), fresh));
    e.rows_recomputed += again.rotated_key_heads.shape()[2];
  }
  return {};
}

// Exercise 4: the demo layer's prompt prefilled in one call, and one token at a time.
[[nodiscard]] Step<double> chunk_against_single() {
  llmfs::autograd::Tape tape;
  llmfs::SplitMix64 rng(kDemoSeed);
  const auto layer = LLMFS_TRY_AT(
      "layer", MultiHeadAttention::create(tape, "attention", kDemoWidth, kDemoHeads,
                                          kDemoCapacity, kDemoBase, rng));
  const Tensor x = LLMFS_TRY_AT(
      "input",
      llmfs::nn::uniform_fan_in({kDemoBatch, kDemoCapacity, kDemoWidth}, 1, rng));
  const CacheShape shape{kDemoBatch, kDemoHeads, kDemoWidth / kDemoHeads,
                         kDemoCapacity};
  auto chunked = LLMFS_TRY_AT("cache", KvCache::create(shape));
  auto single = chunked;
  const auto all = LLMFS_TRY_AT("chunk", attention_step(layer, x, chunked));
  double worst = 0.0;
  for (std::size_t t = 0; t < kDemoCapacity; ++t) {
    const auto one =
        LLMFS_TRY_AT("single", attention_step(layer, token_rows(x, t, t + 1), single));
    const Tensor row = token_rows(all.output, t, t + 1);
    for (std::size_t i = 0; i < row.size(); ++i)
      worst = std::max(worst, std::abs(row.values()[i] - one.output.values()[i]));
  }
  return worst;
}

}  // namespace

Step<Exercises> answer_exercises() {
  Exercises e;
  e.gpt_layer_doubles =
      LLMFS_TRY_AT("exercise 1", llmfs::generation::cache_doubles({1, 12, 64, 1024}));
  LLMFS_TRY(fill_until_refused(e));
  LLMFS_TRY(count_projected_rows(e));
  e.chunk_vs_single = LLMFS_TRY(chunk_against_single());
  return e;
}

}  // namespace ch37
