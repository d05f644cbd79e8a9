// Chapter 37
#pragma once
/// \file
/// \brief The key/value cache of one attention layer, attention of new queries over it,
/// and one incremental step of multi-head attention (Chapter 37). Inference only: plain
/// tensors, no tape. Sources: Vaswani et al. (2017) §3.2.3 for the decoder's masking that
/// makes it exact; Pope et al. (2022) §2 for the cache's memory.

#include <cstddef>
#include <expected>
#include <string_view>
#include <variant>

#include <fmt/format.h>

#include <llmfs/attention/multi_head.hpp>
#include <llmfs/attention/rope.hpp>
#include <llmfs/autograd/error.hpp>
#include <llmfs/core/error.hpp>
#include <llmfs/tensor/error.hpp>
#include <llmfs/tensor/tensor.hpp>

namespace llmfs::generation {

// region: cache-errors
/// What the cache or an incremental step rejected, or that a lower stage failed.
enum class CacheErrorCode {
  zero_size,          ///< B, h, d_h or T_max is 0
  size_overflow,      ///< the two `[B,h,T_max,d_h]` tables do not fit in memory
  entry_shape,        ///< keys and values are not both `[B,h,T_new,d_h]` of this cache
  empty_entry,        ///< T_new = 0: a step must bring at least one token
  capacity_exceeded,  ///< `length + T_new > T_max`: the slots are full
  query_shape,        ///< the query is not `[B,h,T_new,d_h]` with `T_new ≤ length`
  input_shape,        ///< the layer input is not `[B,T_new,d_model]` for this cache
  layer_mismatch,     ///< the layer's h or d_h differ from the cache's
  stage_failed,       ///< a lower stage failed: `stage` says which, `cause` says why
};

/// The step an error comes from, in the order the data flows.
enum class CacheStage {
  configuration,      ///< the cache's sizes
  input,              ///< the new tokens' shape and positions
  projection,         ///< `Q, K, V = X·W_Q, X·W_K, X·W_V` and the head split
  rotation,           ///< RoPE on the new queries and keys
  append,             ///< writing the new keys and values into their slots
  attention,          ///< the new queries against every filled slot
  output_projection,  ///< merge and `·W_O`
};

/// The fixed name of a stage, e.g. `"append"`.
[[nodiscard]] std::string_view describe(CacheStage stage) noexcept;
/// The fixed description of a code, e.g. `"cache capacity exceeded"`.
[[nodiscard]] std::string_view describe(CacheErrorCode code) noexcept;

/// The lower error a cache error wraps.
using CacheCause =
    std::variant<tensor::TensorError, attention::RopeError, autograd::AutogradError>;

/// One typed cache error. Formats as `<stage>: <description> (<detail>)`, then
/// `: <cause>` for a failed lower stage.
using CacheError =
    StageError<CacheErrorCode, CacheErrorCode::stage_failed, CacheCause, CacheStage>;
// endregion: cache-errors

// region: cache-shape
/// The sizes of one layer's cache: B sequences, h heads of width d_h, T_max slots.
struct CacheShape {
  std::size_t batch = 0;       ///< B
  std::size_t heads = 0;       ///< h
  std::size_t head_width = 0;  ///< d_h
  std::size_t capacity = 0;    ///< T_max: slots per sequence and head
  /// Equal when every size is equal.
  friend bool operator==(const CacheShape&, const CacheShape&) = default;
};

/// The doubles one layer's cache holds, derived: `2·B·h·T_max·d_h` (keys and values).
/// \return CacheErrorCode::size_overflow when the product does not fit `std::size_t`.
[[nodiscard]] std::expected<std::size_t, CacheError> cache_doubles(
    const CacheShape& shape);
// endregion: cache-shape

// region: kv-cache-class
/// One attention layer's key/value cache. Slot `s` of sequence `b`, head `i` holds the
/// key of the token at absolute position `s`, already rotated by RoPE at `s`, and its
/// value (values are never rotated). Slots `0..length()−1` are filled; the next token
/// goes to slot `length()` at position `length()`. Storage for all T_max slots is
/// allocated once, at create(). Source: Vaswani et al. (2017) §3.2.3 (the decoder sees
/// only earlier positions, so their keys and values never change); Chapter 37.
class KvCache {
 public:
  /// An empty cache with every slot allocated (zeros).
  /// \return CacheErrorCode::zero_size or CacheErrorCode::size_overflow (stage
  ///         configuration), checked before anything is allocated.
  [[nodiscard]] static std::expected<KvCache, CacheError> create(
      const CacheShape& shape);

  /// Writes `keys` (rotated) and `values`, each `[B,h,T_new,d_h]`, into slots
  /// `length()..length()+T_new−1` and grows length() by T_new. Everything is checked
  /// first, so a rejected call leaves the cache unchanged.
  /// \return CacheErrorCode::entry_shape, CacheErrorCode::empty_entry or
  ///         CacheErrorCode::capacity_exceeded (stage append).
  [[nodiscard]] std::expected<void, CacheError> append(const tensor::Tensor& keys,
                                                       const tensor::Tensor& values);
  // endregion: kv-cache-class

  // region: kv-cache-accessors

  /// The filled keys, `[B,h,length,d_h]` (a copy).
  [[nodiscard]] tensor::Tensor keys() const;
  /// The filled values, `[B,h,length,d_h]` (a copy).
  [[nodiscard]] tensor::Tensor values() const;
  /// The number of filled slots per sequence and head: the next token's position.
  [[nodiscard]] std::size_t length() const noexcept { return length_; }
  /// T_max.
  [[nodiscard]] std::size_t capacity() const noexcept { return shape_.capacity; }
  /// The sizes given to create().
  [[nodiscard]] const CacheShape& shape() const noexcept { return shape_; }
  /// The bytes of the two slot tables this object holds, measured from its storage
  /// (element counts times `sizeof(double)`), not from the formula.
  [[nodiscard]] std::size_t allocated_bytes() const noexcept;
  /// Empties the cache (length 0); the storage stays allocated.
  void clear() noexcept { length_ = 0; }

 private:
  KvCache(CacheShape shape, tensor::Tensor keys, tensor::Tensor values)
      : shape_(shape), keys_(std::move(keys)), values_(std::move(values)) {}
  CacheShape shape_;
  tensor::Tensor keys_;    // [B,h,T_max,d_h]
  tensor::Tensor values_;  // [B,h,T_max,d_h]
  std::size_t length_ = 0;
};
// endregion: kv-cache-accessors

// region: cached-attention-api
/// Every stage of new queries attending over a cache.
struct CachedAttention {
  /// `q·kᵀ/√d_h` for every query and filled slot, −∞ on slots after the query's own
  /// position, `[B,h,T_new,length]`.
  tensor::Tensor scores;
  tensor::Tensor weights;  ///< row softmax of the scores, `[B,h,T_new,length]`
  tensor::Tensor output;   ///< `weights·V`, `[B,h,T_new,d_h]`
};

/// Attention of the newest T_new tokens over the cache that already holds them: query
/// row `i` sits at position `p = length−T_new+i` and sees slots `0..p`, exactly the
/// keys row p of the full causal softmax sees (Chapter 28). The cache's only reader:
/// how the weights are computed can change without touching the cache.
/// \return CacheErrorCode::query_shape (stage attention) for a query that is not
///         `[B,h,T_new,d_h]` with `1 ≤ T_new ≤ length`, or stage_failed.
[[nodiscard]] std::expected<CachedAttention, CacheError> attend_cached(
    const tensor::Tensor& query, const KvCache& cache);
// endregion: cached-attention-api

// region: incremental-step-api
/// Every intermediate of one incremental multi-head attention step.
struct IncrementalAttention {
  std::size_t first_position = 0;  ///< the first new token's position: the old length
  tensor::Tensor rotated_query_heads;  ///< RoPE(split(X·W_Q)), `[B,h,T_new,d_h]`
  tensor::Tensor rotated_key_heads;    ///< RoPE(split(X·W_K)), appended to the cache
  tensor::Tensor value_heads;          ///< split(X·W_V), appended unrotated
  CachedAttention attention;           ///< the queries over every filled slot
  tensor::Tensor output;               ///< `merge(heads)·W_O`, `[B,T_new,d_model]`
};

/// One step of Chapter 30's layer on new tokens `input [B,T_new,d_model]` at positions
/// `cache.length()..cache.length()+T_new−1`: project, rotate, append, attend, merge,
/// project. Equal to rows `length..length+T_new−1` of `layer.forward()` on the whole
/// sequence. Every check (shapes, heads, slot capacity, RoPE capacity) comes before
/// the cache changes; a rejected step leaves it as it was.
/// \return CacheErrorCode::input_shape, CacheErrorCode::layer_mismatch,
///         CacheErrorCode::empty_entry, CacheErrorCode::capacity_exceeded (stage
///         input), or stage_failed naming the stage (a released tape, a RoPE table too
///         short).
[[nodiscard]] std::expected<IncrementalAttention, CacheError> attention_step(
    const attention::MultiHeadAttention& layer, const tensor::Tensor& input,
    KvCache& cache);
// endregion: incremental-step-api

}  // namespace llmfs::generation
