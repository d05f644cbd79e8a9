// Chapter 37
#include <cmath>
#include <limits>
#include <vector>

#include <llmfs/core/try.hpp>
#include <llmfs/generation/kv_cache.hpp>
#include <llmfs/tensor/layout.hpp>
#include <llmfs/tensor/matmul.hpp>
#include <llmfs/tensor/softmax.hpp>

namespace llmfs::generation {

std::string_view describe(CacheStage stage) noexcept {
  switch (stage) {
    case CacheStage::configuration: return "cache configuration";
    case CacheStage::input: return "incremental input";
    case CacheStage::projection: return "Q/K/V projection";
    case CacheStage::rotation: return "rotation";
    case CacheStage::append: return "cache append";
    case CacheStage::attention: return "cached attention";
    case CacheStage::output_projection: return "output projection";
  }
  return "unknown stage";
}

std::string_view describe(CacheErrorCode code) noexcept {
  switch (code) {
    case CacheErrorCode::zero_size: return "cache size must be nonzero";
    case CacheErrorCode::size_overflow: return "cache size overflows";
    case CacheErrorCode::entry_shape: return "keys and values have the wrong shape";
    case CacheErrorCode::empty_entry: return "at least one new token is needed";
    case CacheErrorCode::capacity_exceeded: return "cache capacity exceeded";
    case CacheErrorCode::query_shape: return "query has the wrong shape";
    case CacheErrorCode::input_shape: return "input has the wrong shape";
    case CacheErrorCode::layer_mismatch: return "layer and cache differ";
    case CacheErrorCode::stage_failed: return "stage failed";
  }
  return "unknown cache error";
}

// region: cache-doubles-checks
std::expected<std::size_t, CacheError> cache_doubles(const CacheShape& shape) {
  // 2 tables · B · h · T_max · d_h, every product checked
  std::size_t count = 2;
  for (std::size_t factor :
       {shape.batch, shape.heads, shape.capacity, shape.head_width}) {
    if (__builtin_mul_overflow(count, factor, &count)) {
      return reject(CacheErrorCode::size_overflow, CacheStage::configuration,
                    fmt::format("B {}, h {}, T_max {}, d_h {}", shape.batch,
                                shape.heads, shape.capacity, shape.head_width));
    }
  }
  return count;
}
// endregion: cache-doubles-checks

namespace {

// The slot table's shape, [B,h,T_max,d_h].
[[nodiscard]] tensor::Shape table_shape(const CacheShape& shape) {
  return tensor::Shape{shape.batch, shape.heads, shape.capacity, shape.head_width};
}

}  // namespace

namespace {

// region: kv-cache-create-checks
// Every size nonzero, and each table's element count storable.
[[nodiscard]] std::expected<void, CacheError> check_shape(const CacheShape& shape) {
  if (shape.batch == 0 || shape.heads == 0 || shape.head_width == 0 ||
      shape.capacity == 0) {
    return reject(CacheErrorCode::zero_size, CacheStage::configuration,
                  fmt::format("B {}, h {}, T_max {}, d_h {}", shape.batch, shape.heads,
                              shape.capacity, shape.head_width));
  }
  const std::size_t doubles = LLMFS_TRY(cache_doubles(shape));
  if (doubles / 2 > tensor::max_element_count()) {
    return reject(CacheErrorCode::size_overflow, CacheStage::configuration,
                  fmt::format("{} doubles per table", doubles / 2));
  }
  return {};
}
// endregion: kv-cache-create-checks

}  // namespace

// region: kv-cache-create
std::expected<KvCache, CacheError> KvCache::create(const CacheShape& shape) {
  LLMFS_TRY(check_shape(shape));
  // Every slot allocated now: a step never allocates cache storage
  return KvCache(shape, tensor::Tensor::zeros(table_shape(shape)),
                 tensor::Tensor::zeros(table_shape(shape)));
}
// endregion: kv-cache-create

// region: kv-cache-append-checks
namespace {

// keys and values: both [B,h,T_new,d_h] with 1 ≤ T_new ≤ T_max − length.
[[nodiscard]] std::expected<void, CacheError> check_entry(const CacheShape& shape,
                                                          std::size_t length,
                                                          const tensor::Shape& keys,
                                                          const tensor::Shape& values) {
  constexpr auto stage = CacheStage::append;
  const bool fits = keys.rank() == 4 && keys == values && keys[0] == shape.batch &&
                    keys[1] == shape.heads && keys[3] == shape.head_width;
  if (!fits) {
    return reject(CacheErrorCode::entry_shape, stage,
                  fmt::format("keys {}, values {}, cache [{},{},T,{}]", keys, values,
                              shape.batch, shape.heads, shape.head_width));
  }
  if (keys[2] == 0) return reject(CacheErrorCode::empty_entry, stage);
  if (keys[2] > shape.capacity - length) {
    return reject(
        CacheErrorCode::capacity_exceeded, stage,
        fmt::format("{} filled + {} new > T_max {}", length, keys[2], shape.capacity));
  }
  return {};
}

}  // namespace
// endregion: kv-cache-append-checks

// region: kv-cache-append
std::expected<void, CacheError> KvCache::append(const tensor::Tensor& keys,
                                                const tensor::Tensor& values) {
  // keys, values: [B,h,T_new,d_h] -> slots length..length+T_new−1 of every (b, head)
  LLMFS_TRY(check_entry(shape_, length_, keys.shape(), values.shape()));
  const std::size_t fresh = keys.shape()[2];
  const std::size_t width = shape_.head_width;
  const std::size_t lanes = shape_.batch * shape_.heads;  // one (b, head) pair each
  for (std::size_t lane = 0; lane < lanes; ++lane) {
    const std::size_t from = lane * fresh * width;
    const std::size_t to = (lane * shape_.capacity + length_) * width;
    for (std::size_t e = 0; e < fresh * width; ++e) {
      keys_.mutable_values()[to + e] = keys.values()[from + e];
      values_.mutable_values()[to + e] = values.values()[from + e];
    }
  }
  length_ += fresh;
  return {};
}
// endregion: kv-cache-append

namespace {

// Slots 0..length−1 of a [B,h,T_max,d_h] table as a contiguous [B,h,length,d_h].
[[nodiscard]] tensor::Tensor filled(const tensor::Tensor& table,
                                    const CacheShape& shape, std::size_t length) {
  const std::size_t width = shape.head_width;
  tensor::Tensor out =
      tensor::Tensor::zeros(tensor::Shape{shape.batch, shape.heads, length, width});
  for (std::size_t lane = 0; lane < shape.batch * shape.heads; ++lane) {
    for (std::size_t e = 0; e < length * width; ++e) {
      out.mutable_values()[lane * length * width + e] =
          table.values()[lane * shape.capacity * width + e];
    }
  }
  return out;
}

}  // namespace

tensor::Tensor KvCache::keys() const {
  return filled(keys_, shape_, length_);
}

tensor::Tensor KvCache::values() const {
  return filled(values_, shape_, length_);
}

std::size_t KvCache::allocated_bytes() const noexcept {
  return (keys_.size() + values_.size()) * sizeof(double);
}

// region: cached-attention
std::expected<CachedAttention, CacheError> attend_cached(const tensor::Tensor& query,
                                                         const KvCache& cache) {
  // q: [B,h,T_new,d_h], cache: length slots -> [B,h,T_new,d_h]
  const CacheShape& shape = cache.shape();
  const tensor::Shape& q = query.shape();
  if (q.rank() != 4 || q[0] != shape.batch || q[1] != shape.heads ||
      q[3] != shape.head_width || q[2] == 0 || q[2] > cache.length()) {
    return reject(CacheErrorCode::query_shape, CacheStage::attention,
                  fmt::format("query {}, cache length {}", q, cache.length()));
  }
  constexpr auto stage = CacheStage::attention;
  // Scores of every new query against every filled slot, scaled by 1/√d_h
  auto keys_t = LLMFS_TRY_AT(stage, tensor::transpose(cache.keys(), 2, 3));
  auto dots = LLMFS_TRY_AT(stage, tensor::matmul(query, keys_t));
  auto scores = LLMFS_TRY_AT(
      stage, tensor::scale(dots, 1.0 / std::sqrt(static_cast<double>(q[3]))));

  // Query row i sits at position first+i: block the slots after it
  const std::size_t fresh = q[2];
  const std::size_t length = cache.length();
  const std::size_t first = length - fresh;
  auto cells = scores.mutable_values();
  for (std::size_t row = 0; row < cells.size() / length; ++row) {
    const std::size_t position = first + row % fresh;
    for (std::size_t slot = position + 1; slot < length; ++slot)
      cells[row * length + slot] = -std::numeric_limits<double>::infinity();
  }

  // Weights over the visible slots, then the mix of their values
  auto weights = LLMFS_TRY_AT(stage, tensor::softmax_last_axis(scores));
  auto output = LLMFS_TRY_AT(stage, tensor::matmul(weights, cache.values()));
  return CachedAttention{std::move(scores), std::move(weights), std::move(output)};
}
// endregion: cached-attention

namespace {

// region: incremental-checks
// Shapes, heads and every capacity, before anything changes.
[[nodiscard]] std::expected<void, CacheError> check_step(
    const attention::MultiHeadAttention& layer, const tensor::Shape& input,
    const KvCache& cache) {
  constexpr auto stage = CacheStage::input;
  const CacheShape& shape = cache.shape();
  if (input.rank() != 3 || input[0] != shape.batch || input[2] != layer.model_width()) {
    return reject(CacheErrorCode::input_shape, stage,
                  fmt::format("input {}, expected [{},T,{}]", input, shape.batch,
                              layer.model_width()));
  }
  if (layer.heads() != shape.heads || layer.head_width() != shape.head_width) {
    return reject(CacheErrorCode::layer_mismatch, stage,
                  fmt::format("layer h {} d_h {}, cache h {} d_h {}", layer.heads(),
                              layer.head_width(), shape.heads, shape.head_width));
  }
  if (input[1] == 0) return reject(CacheErrorCode::empty_entry, stage);
  const std::size_t end = cache.length() + input[1];
  const std::size_t positions = layer.rope() ? layer.rope()->max_positions()
                                             : std::numeric_limits<std::size_t>::max();
  if (input[1] > cache.capacity() - cache.length() || end > positions) {
    return reject(CacheErrorCode::capacity_exceeded, stage,
                  fmt::format("{} filled + {} new > T_max {}, RoPE positions {}",
                              cache.length(), input[1], cache.capacity(), positions));
  }
  return {};
}
// endregion: incremental-checks

// x·W for one of the layer's weights, read from its tape without recording.
[[nodiscard]] std::expected<tensor::Tensor, CacheError> project(
    const tensor::Tensor& x, const nn::NamedParameter& weight) {
  const tensor::Tensor* w =
      LLMFS_TRY_AT(CacheStage::projection, weight.value.value_view());
  return LLMFS_TRY_AT(CacheStage::projection, tensor::matmul(x, *w));
}

// [B,T,d] -> [B,h,T,d_h]: the reshape and transpose of Chapter 30's split, on values.
[[nodiscard]] std::expected<tensor::Tensor, CacheError> split(const tensor::Tensor& x,
                                                              std::size_t heads) {
  const tensor::Shape& s = x.shape();
  auto grouped = LLMFS_TRY_AT(CacheStage::projection,
                              tensor::reshape(x, {s[0], s[1], heads, s[2] / heads}));
  return LLMFS_TRY_AT(CacheStage::projection, tensor::transpose(grouped, 1, 2));
}

// Q, K, V heads of the new tokens, in either of Chapter 26's layouts.
[[nodiscard]] std::expected<std::vector<tensor::Tensor>, CacheError> project_heads(
    const attention::MultiHeadAttention& layer, const tensor::Tensor& x) {
  const nn::NamedParameters& weights = layer.qkv().parameters();
  std::vector<tensor::Tensor> heads;
  if (weights.size() == 3) {
    for (const nn::NamedParameter& weight : weights) {
      auto projected = LLMFS_TRY(project(x, weight));
      heads.push_back(LLMFS_TRY(split(projected, layer.heads())));
    }
    return heads;
  }
  auto packed = LLMFS_TRY(project(x, *weights.begin()));
  const std::size_t d = layer.model_width();
  for (std::size_t block = 0; block < 3; ++block) {
    auto taken =
        LLMFS_TRY_AT(CacheStage::projection,
                     tensor::slice_last_axis(packed, block * d, (block + 1) * d));
    heads.push_back(LLMFS_TRY(split(taken, layer.heads())));
  }
  return heads;
}

// RoPE at positions offset.. on a plain tensor, or nothing without positions.
[[nodiscard]] std::expected<tensor::Tensor, CacheError> rotate(
    const attention::MultiHeadAttention& layer, const tensor::Tensor& heads,
    std::size_t offset) {
  if (!layer.rope()) return heads;
  return LLMFS_TRY_AT(CacheStage::rotation, layer.rope()->rotate(heads, offset));
}

}  // namespace

// region: incremental-step
std::expected<IncrementalAttention, CacheError> attention_step(
    const attention::MultiHeadAttention& layer, const tensor::Tensor& input,
    KvCache& cache) {
  // x: [B,T_new,d_model] at positions length.. -> [B,T_new,d_model]
  LLMFS_TRY(check_step(layer, input.shape(), cache));
  const std::size_t first = cache.length();

  // Project and split the new tokens only: [B,T_new,d] -> [B,h,T_new,d_h]
  auto qkv = LLMFS_TRY(project_heads(layer, input));

  // Rotate queries and keys at their absolute positions; values stay as they are
  auto query = LLMFS_TRY(rotate(layer, qkv[0], first));
  auto key = LLMFS_TRY(rotate(layer, qkv[1], first));

  // The new keys and values join the cache; then the queries read every filled slot
  LLMFS_TRY(cache.append(key, qkv[2]));
  auto attended = LLMFS_TRY(attend_cached(query, cache));

  // Merge the heads back to [B,T_new,d_model] and apply W_O
  auto merged_heads = LLMFS_TRY_AT(CacheStage::output_projection,
                                   tensor::transpose(attended.output, 1, 2));
  const tensor::Shape& s = input.shape();
  auto merged =
      LLMFS_TRY_AT(CacheStage::output_projection,
                   tensor::reshape(std::move(merged_heads), {s[0], s[1], s[2]}));
  auto output = LLMFS_TRY(project(merged, layer.output_projection().weight()));
  return IncrementalAttention{.first_position = first,
                              .rotated_query_heads = std::move(query),
                              .rotated_key_heads = std::move(key),
                              .value_heads = std::move(qkv[2]),
                              .attention = std::move(attended),
                              .output = std::move(output)};
}
// endregion: incremental-step

}  // namespace llmfs::generation
