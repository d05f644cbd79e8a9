// Unit tests of training/batches (Chapter 21): Lemire's bounded draw, Fisher–Yates,
// epoch orders, [B,T] batches and their refusals, and the position-weighted mean.
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/training/batches.hpp>

namespace {

using namespace llmfs::training;
using llmfs::SplitMix64;
using llmfs::text::Example;
using llmfs::text::TokenId;
using llmfs::text::WindowConfig;

TEST(Bounded, PowerOfTwoIsTheTopBitsOfOneDraw) {
  // n = 2^k: the high word of x·2^k is x >> (64 − k), and 2^64 mod 2^k = 0 never
  // rejects.
  for (unsigned k = 1; k < 64; k += 7) {
    SplitMix64 a(k), b(k);
    for (int i = 0; i < 50; ++i)
      EXPECT_EQ(bounded(a, std::uint64_t{1} << k), b.next_u64() >> (64 - k));
  }
}

TEST(Bounded, StaysBelowNForManyN) {
  SplitMix64 rng(5);
  for (std::uint64_t n :
       {1ull, 2ull, 3ull, 7ull, 1000ull, (3ull << 62), ~0ull, (1ull << 63) + 1})
    for (int i = 0; i < 200; ++i)
      EXPECT_LT(bounded(rng, n), n);
  EXPECT_EQ(bounded(rng, 0), 0u);
}

TEST(Bounded, ZeroDrawsNothing) {
  SplitMix64 rng(9);
  const SplitMix64 before = rng;
  EXPECT_EQ(bounded(rng, 0), 0u);
  EXPECT_EQ(rng, before);
}

TEST(Bounded, RemovesTheModuloBiasThatXModNHas) {
  // n = 3·2^62: x mod n lands below 2^62 for half of all x (two preimages each), where
  // a fair draw lands there a third of the time.
  const std::uint64_t n = 3ull << 62;
  SplitMix64 a(1), b(1);
  int fair = 0, modulo = 0;
  const int draws = 60000;
  for (int i = 0; i < draws; ++i) {
    fair += bounded(a, n) < (1ull << 62);
    modulo += b.next_u64() % n < (1ull << 62);
  }
  EXPECT_NEAR(fair / double(draws), 1.0 / 3, 0.01);
  EXPECT_NEAR(modulo / double(draws), 0.5, 0.01);
}

TEST(Shuffle, EveryOrderOfThreeIsEquallyLikely) {
  SplitMix64 rng(42);
  std::map<std::array<std::size_t, 3>, int> counts;
  const int trials = 60000;
  for (int i = 0; i < trials; ++i) {
    std::array<std::size_t, 3> a{0, 1, 2};
    shuffle(a, rng);
    ++counts[a];
  }
  ASSERT_EQ(counts.size(), 6u);
  double chi2 = 0;
  for (const auto& [order, c] : counts)
    chi2 += std::pow(c - trials / 6.0, 2) / (trials / 6.0);
  EXPECT_LT(chi2, 20.5);  // 5 degrees of freedom: p ≈ 0.001
}

TEST(EpochOrder, IsAPermutationDeterminedBySeedAndEpoch) {
  for (std::size_t n : {0u, 1u, 2u, 10u, 257u}) {
    const auto order = epoch_order(n, 7, 3);
    std::vector<std::size_t> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i < n; ++i)
      EXPECT_EQ(sorted[i], i);
    EXPECT_EQ(order, epoch_order(n, 7, 3));
  }
  EXPECT_NE(epoch_order(100, 7, 0), epoch_order(100, 7, 1));
  EXPECT_NE(epoch_order(100, 7, 0), epoch_order(100, 8, 0));
}

// Two sequences of a tiny fixture: [0,2,3,4,5,1] and [0,6,7,1], T = 2, S = 1: six
// examples, four from the first sequence and two from the second.
const std::vector<std::vector<TokenId>> kSequences = {{0, 2, 3, 4, 5, 1}, {0, 6, 7, 1}};
const std::vector<Example> kExamples = {{0, 0}, {0, 1}, {0, 2}, {0, 3}, {1, 0}, {1, 1}};
constexpr WindowConfig kWindows{2, 1};

TEST(Batch, TargetsAreInputsShiftedByOneToken) {
  const std::vector<std::size_t> order = {5, 1, 0, 2, 3, 4};
  const auto batch = make_batch(kSequences, kExamples, order, 0, {4}, kWindows);
  ASSERT_TRUE(batch.has_value());
  EXPECT_EQ(batch->inputs.batch, 4u);
  EXPECT_EQ(batch->inputs.time, 2u);
  EXPECT_EQ(batch->inputs.ids, (std::vector<TokenId>{6, 7, 2, 3, 0, 2, 3, 4}));
  EXPECT_EQ(batch->targets.ids, (std::vector<TokenId>{7, 1, 3, 4, 2, 3, 4, 5}));
  EXPECT_EQ(batch->examples, (std::vector<std::size_t>{5, 1, 0, 2}));
  const auto last = make_batch(kSequences, kExamples, order, 1, {4}, kWindows);
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->inputs.batch, 2u);
  EXPECT_EQ(last->targets.ids, (std::vector<TokenId>{5, 1, 6, 7}));
}

TEST(Batch, AnEpochVisitsEveryExampleOnceWhenTheLastIsKept) {
  for (std::size_t b = 1; b <= 7; ++b) {
    const auto order = epoch_order(kExamples.size(), b, 0);
    const std::size_t n = batch_count(kExamples.size(), {b}).value();
    EXPECT_EQ(n, (kExamples.size() + b - 1) / b);
    std::vector<std::size_t> seen;
    for (std::size_t k = 0; k < n; ++k) {
      const auto batch = make_batch(kSequences, kExamples, order, k, {b}, kWindows);
      ASSERT_TRUE(batch.has_value());
      seen.insert(seen.end(), batch->examples.begin(), batch->examples.end());
    }
    EXPECT_EQ(seen, order);
    EXPECT_EQ(batch_count(kExamples.size(), {b, LastBatch::drop}).value(),
              kExamples.size() / b);
  }
}

TEST(Batch, RefusalsAreTyped) {
  const std::vector<std::size_t> order = {0, 1, 2, 3, 4, 5};
  const auto code = [&](auto&& result) { return result.error().code; };
  EXPECT_EQ(code(make_batch(kSequences, kExamples, order, 0, {0}, kWindows)),
            BatchErrorCode::zero_batch_size);
  EXPECT_EQ(code(make_batch(kSequences, kExamples, std::span(order).first(5), 0, {4},
                            kWindows)),
            BatchErrorCode::order_size);
  EXPECT_EQ(code(make_batch(kSequences, kExamples, order, 2, {4}, kWindows)),
            BatchErrorCode::batch_index);
  EXPECT_EQ(
      code(make_batch(kSequences, kExamples, order, 1, {4, LastBatch::drop}, kWindows)),
      BatchErrorCode::batch_index);
  const std::vector<std::size_t> bad_entry = {0, 1, 2, 3, 4, 6};
  EXPECT_EQ(code(make_batch(kSequences, kExamples, bad_entry, 1, {4}, kWindows)),
            BatchErrorCode::order_entry);
  EXPECT_EQ(code(make_batch(kSequences, kExamples, order, 1, {4}, WindowConfig{3, 1})),
            BatchErrorCode::window_outside);
  const auto config =
      make_batch(kSequences, kExamples, order, 0, {4}, WindowConfig{0, 1});
  EXPECT_EQ(code(config), BatchErrorCode::window_config);
  ASSERT_TRUE(config.error().cause.has_value());
  EXPECT_EQ(config.error().cause->code, llmfs::text::WindowErrorCode::zero_context);
  EXPECT_EQ(
      fmt::format("{}",
                  make_batch(kSequences, kExamples, order, 2, {4}, kWindows).error()),
      "batch: batch index past the epoch (batch 2 of 2 (N=6, B=4))");
}

TEST(PositionWeightedMean, WeighsEachBatchByItsPositions) {
  const std::vector<double> losses = {1.0, 2.0};
  const std::vector<std::size_t> positions = {8, 4};
  EXPECT_DOUBLE_EQ(position_weighted_mean(losses, positions), 16.0 / 12.0);
  EXPECT_EQ(position_weighted_mean({}, {}), 0.0);
}

}  // namespace
