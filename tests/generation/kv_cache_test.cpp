// Chapter 37: the key/value cache and the incremental attention step under the
// sanitizers — slots and positions, refusals that change nothing, and seeded random
// layers whose every step equals the full causal forward of Chapter 30.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/attention/multi_head.hpp>
#include <llmfs/autograd/tape.hpp>
#include <llmfs/core/splitmix64.hpp>
#include <llmfs/generation/kv_cache.hpp>

#include "support/random_tensor.hpp"

namespace {

using llmfs::SplitMix64;
using llmfs::attention::MultiHeadAttention;
using llmfs::generation::attend_cached;
using llmfs::generation::attention_step;
using llmfs::generation::CacheErrorCode;
using llmfs::generation::CacheShape;
using llmfs::generation::CacheStage;
using llmfs::generation::KvCache;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

// Positions [begin, end) of a [B,T,...] tensor (axis 1 for rank 3, axis 2 for rank 4).
Tensor positions(const Tensor& x, std::size_t axis, std::size_t begin,
                 std::size_t end) {
  std::vector<std::size_t> dims(x.shape().rank());
  for (std::size_t i = 0; i < dims.size(); ++i)
    dims[i] = x.shape()[i];
  std::size_t outer = 1, inner = 1;
  for (std::size_t i = 0; i < axis; ++i)
    outer *= dims[i];
  for (std::size_t i = axis + 1; i < dims.size(); ++i)
    inner *= dims[i];
  const std::size_t length = dims[axis];
  dims[axis] = end - begin;
  std::vector<double> out;
  for (std::size_t o = 0; o < outer; ++o)
    for (std::size_t t = begin; t < end; ++t)
      for (std::size_t e = 0; e < inner; ++e)
        out.push_back(x.values()[(o * length + t) * inner + e]);
  Shape shape;
  if (dims.size() == 3) shape = Shape{dims[0], dims[1], dims[2]};
  if (dims.size() == 4) shape = Shape{dims[0], dims[1], dims[2], dims[3]};
  return Tensor::from(shape, std::move(out)).value();
}

double max_difference(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.shape(), b.shape());
  double worst = 0.0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    worst = std::max(worst, std::abs(a.values()[i] - b.values()[i]));
  return worst;
}

TEST(KvCache, CreateRefusesZeroSizesAndAllocatesEverySlot) {
  for (const CacheShape& bad : {CacheShape{0, 2, 4, 8}, CacheShape{1, 0, 4, 8},
                                CacheShape{1, 2, 0, 8}, CacheShape{1, 2, 4, 0}}) {
    auto cache = KvCache::create(bad);
    ASSERT_FALSE(cache.has_value());
    EXPECT_EQ(cache.error().code, CacheErrorCode::zero_size);
    EXPECT_EQ(cache.error().stage, CacheStage::configuration);
  }
  const CacheShape shape{3, 2, 4, 5};
  auto cache = KvCache::create(shape).value();
  EXPECT_EQ(cache.length(), 0u);
  EXPECT_EQ(cache.capacity(), 5u);
  // Derived 2·B·h·T_max·d_h doubles = 240; measured from the storage
  EXPECT_EQ(llmfs::generation::cache_doubles(shape).value(), 240u);
  EXPECT_EQ(cache.allocated_bytes(), 240u * sizeof(double));
  auto huge = KvCache::create(CacheShape{1u << 20, 1u << 20, 1u << 20, 1u << 20});
  ASSERT_FALSE(huge.has_value());
  EXPECT_EQ(huge.error().code, CacheErrorCode::size_overflow);
}

TEST(KvCache, AppendFillsTheNextSlotsOfEveryLane) {
  auto cache = KvCache::create(CacheShape{2, 2, 2, 4}).value();
  const Tensor k1 = llmfs::test::random_tensor(Shape{2, 2, 3, 2}, 1);
  const Tensor v1 = llmfs::test::random_tensor(Shape{2, 2, 3, 2}, 2);
  ASSERT_TRUE(cache.append(k1, v1).has_value());
  EXPECT_EQ(cache.length(), 3u);
  EXPECT_EQ(cache.keys(), k1);
  EXPECT_EQ(cache.values(), v1);
  const Tensor k2 = llmfs::test::random_tensor(Shape{2, 2, 1, 2}, 3);
  ASSERT_TRUE(cache.append(k2, k2).has_value());
  EXPECT_EQ(cache.length(), 4u);
  EXPECT_EQ(positions(cache.keys(), 2, 0, 3), k1);
  EXPECT_EQ(positions(cache.keys(), 2, 3, 4), k2);
}

TEST(KvCache, RefusedAppendLeavesTheCacheUnchanged) {
  auto cache = KvCache::create(CacheShape{1, 2, 2, 3}).value();
  const Tensor two = llmfs::test::random_tensor(Shape{1, 2, 2, 2}, 4);
  ASSERT_TRUE(cache.append(two, two).has_value());
  const Tensor keys = cache.keys();
  struct Case {
    Shape keys, values;
    CacheErrorCode code;
  };
  for (const Case& c :
       {Case{Shape{1, 2, 2, 2}, Shape{1, 2, 2, 2}, CacheErrorCode::capacity_exceeded},
        Case{Shape{1, 2, 0, 2}, Shape{1, 2, 0, 2}, CacheErrorCode::empty_entry},
        Case{Shape{1, 2, 1, 2}, Shape{1, 2, 1, 4}, CacheErrorCode::entry_shape},
        Case{Shape{2, 2, 1, 2}, Shape{2, 2, 1, 2}, CacheErrorCode::entry_shape},
        Case{Shape{2, 1, 2}, Shape{2, 1, 2}, CacheErrorCode::entry_shape}}) {
    auto refused = cache.append(Tensor::zeros(c.keys), Tensor::zeros(c.values));
    ASSERT_FALSE(refused.has_value());
    EXPECT_EQ(refused.error().code, c.code);
    EXPECT_EQ(cache.length(), 2u);
    EXPECT_EQ(cache.keys(), keys);
  }
  cache.clear();
  EXPECT_EQ(cache.length(), 0u);
  EXPECT_EQ(cache.allocated_bytes(), 2u * 1 * 2 * 3 * 2 * sizeof(double));
}

TEST(KvCache, AttendCachedRefusesQueriesTheCacheDoesNotHold) {
  auto cache = KvCache::create(CacheShape{1, 1, 2, 4}).value();
  const Tensor one = llmfs::test::random_tensor(Shape{1, 1, 1, 2}, 5);
  EXPECT_EQ(attend_cached(one, cache).error().code, CacheErrorCode::query_shape);
  ASSERT_TRUE(cache.append(one, one).has_value());
  // A single slot: the weight on it is exactly 1, the output is its value
  const auto attended = attend_cached(one, cache).value();
  EXPECT_EQ(attended.weights.values()[0], 1.0);
  EXPECT_EQ(attended.output, one);
  const Tensor two = Tensor::zeros(Shape{1, 1, 2, 2});
  EXPECT_EQ(attend_cached(two, cache).error().code, CacheErrorCode::query_shape);
}

// One seeded random layer and input; prefill `prompt` rows, then one row at a time.
void expect_incremental_equals_full(std::uint64_t seed, std::size_t batch,
                                    std::size_t heads, std::size_t head_width,
                                    std::size_t capacity, std::size_t prompt) {
  llmfs::autograd::Tape tape;
  SplitMix64 rng(seed);
  const std::size_t d = heads * head_width;
  auto layer =
      MultiHeadAttention::create(tape, "attention", d, heads, capacity, 100.0, rng)
          .value();
  const Tensor x = llmfs::test::random_tensor(Shape{batch, capacity, d}, seed);
  const auto full = layer.forward(tape.constant(x), 0).value();
  const Tensor full_output = full.output.value().value();
  const Tensor full_keys = full.rotated_key_heads.value().value();
  const Tensor full_values = full.projected_value_heads.value().value();
  auto cache = KvCache::create(CacheShape{batch, heads, head_width, capacity}).value();
  std::size_t begin = 0;
  for (std::size_t end = prompt; end <= capacity; begin = end, ++end) {
    const auto step = attention_step(layer, positions(x, 1, begin, end), cache).value();
    EXPECT_EQ(step.first_position, begin);
    EXPECT_EQ(cache.length(), end);  // one slot per new token
    EXPECT_LE(max_difference(step.output, positions(full_output, 1, begin, end)), 1e-12)
        << "seed " << seed << " positions " << begin << ".." << end;
    // Slot s holds the key rotated at position s, and the unrotated value
    EXPECT_LE(max_difference(cache.keys(), positions(full_keys, 2, 0, end)), 1e-12);
    EXPECT_EQ(cache.values(), positions(full_values, 2, 0, end));
  }
  // Full: the next step is refused and nothing changes
  const Tensor keys = cache.keys();
  auto refused = attention_step(layer, positions(x, 1, 0, 1), cache);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().code, CacheErrorCode::capacity_exceeded);
  EXPECT_EQ(cache.length(), capacity);
  EXPECT_EQ(cache.keys(), keys);
}

TEST(KvCache, PropertyEveryStepEqualsTheFullCausalForward) {
  SplitMix64 draw(3700);
  for (std::uint64_t seed = 0; seed < 24; ++seed) {
    const std::size_t batch = 1 + draw.next_u64() % 3;
    const std::size_t heads = 1 + draw.next_u64() % 3;
    const std::size_t head_width = 2 * (1 + draw.next_u64() % 3);
    const std::size_t capacity = 1 + draw.next_u64() % 8;
    const std::size_t prompt = 1 + draw.next_u64() % capacity;
    expect_incremental_equals_full(37000 + seed, batch, heads, head_width, capacity,
                                   prompt);
  }
}

TEST(KvCache, StepChecksComeBeforeAnyChange) {
  llmfs::autograd::Tape tape;
  SplitMix64 rng(7);
  auto layer = MultiHeadAttention::create(tape, "a", 4, 2, 3, 100.0, rng).value();
  auto cache = KvCache::create(CacheShape{1, 2, 2, 4}).value();
  // The RoPE table holds 3 positions, the cache 4: the fourth token is refused
  const Tensor x = llmfs::test::random_tensor(Shape{1, 3, 4}, 8);
  ASSERT_TRUE(attention_step(layer, x, cache).has_value());
  auto beyond = attention_step(layer, positions(x, 1, 0, 1), cache);
  EXPECT_EQ(beyond.error().code, CacheErrorCode::capacity_exceeded);
  EXPECT_EQ(cache.length(), 3u);
  auto wide = attention_step(layer, Tensor::zeros(Shape{1, 1, 6}), cache);
  EXPECT_EQ(wide.error().code, CacheErrorCode::input_shape);
  auto empty = attention_step(layer, Tensor::zeros(Shape{1, 0, 4}), cache);
  EXPECT_EQ(empty.error().code, CacheErrorCode::empty_entry);
  auto other = KvCache::create(CacheShape{1, 1, 4, 4}).value();
  auto mismatch = attention_step(layer, positions(x, 1, 0, 1), other);
  EXPECT_EQ(mismatch.error().code, CacheErrorCode::layer_mismatch);
  EXPECT_EQ(other.length(), 0u);
  tape.release();
  auto fresh = KvCache::create(CacheShape{1, 2, 2, 4}).value();
  auto released = attention_step(layer, positions(x, 1, 0, 1), fresh);
  ASSERT_FALSE(released.has_value());
  EXPECT_EQ(released.error().code, CacheErrorCode::stage_failed);
  EXPECT_EQ(released.error().stage, CacheStage::projection);
  EXPECT_EQ(fresh.length(), 0u);
}

TEST(KvCache, CombinedLayoutAndNoPositionsMatchTheirFullForward) {
  llmfs::autograd::Tape tape;
  const Tensor in_w = llmfs::test::random_tensor(Shape{4, 12}, 9);
  const Tensor out_w = llmfs::test::random_tensor(Shape{4, 4}, 10);
  for (const llmfs::attention::PositionEncoding& encoding :
       {llmfs::attention::PositionEncoding{llmfs::attention::RotaryPositions{5, 10.0}},
        llmfs::attention::PositionEncoding{llmfs::attention::NoPositions{}}}) {
    auto layer =
        MultiHeadAttention::from_combined_parameters(
            {"in", tape.parameter(in_w)}, {"out", tape.parameter(out_w)}, 2, encoding)
            .value();
    const Tensor x = llmfs::test::random_tensor(Shape{2, 5, 4}, 11);
    const Tensor full =
        layer.forward(tape.constant(x), 0).value().output.value().value();
    auto cache = KvCache::create(CacheShape{2, 2, 2, 5}).value();
    const auto prefill = attention_step(layer, positions(x, 1, 0, 2), cache).value();
    EXPECT_LE(max_difference(prefill.output, positions(full, 1, 0, 2)), 1e-12);
    for (std::size_t t = 2; t < 5; ++t) {
      const auto step = attention_step(layer, positions(x, 1, t, t + 1), cache).value();
      EXPECT_LE(max_difference(step.output, positions(full, 1, t, t + 1)), 1e-12);
    }
  }
}

}  // namespace
