// Chapter 27
#include <algorithm>
#include <string>

#include <fmt/format.h>

#include <llmfs/attention/detail/checks.hpp>
#include <llmfs/core/try.hpp>
#include <llmfs/tensor/tensor.hpp>

namespace llmfs::attention::detail {

namespace {

bool same_leading_axes(const tensor::Shape& a, const tensor::Shape& b) {
  return std::equal(a.begin(), a.end() - 2, b.begin(), b.end() - 2);
}

}  // namespace

// region: pair-checks
std::expected<void, AttentionError> check_pair(std::string_view stage,
                                               const tensor::Shape& query,
                                               const tensor::Shape& key) {
  if (query.rank() < 2 || key.rank() != query.rank()) {
    return reject(AttentionErrorCode::input_rank, stage,
                  fmt::format("query {}, key {}", query, key));
  }
  if (!same_leading_axes(query, key)) {
    return reject(AttentionErrorCode::batch_mismatch, stage,
                  fmt::format("query {}, key {}", query, key));
  }
  const std::size_t rank = query.rank();
  if (query[rank - 1] != key[rank - 1]) {
    return reject(AttentionErrorCode::key_width, stage,
                  fmt::format("query {}, key {}", query, key));
  }
  if (key[rank - 1] == 0) {
    return reject(AttentionErrorCode::zero_key_width, stage,
                  fmt::format("key {}", key));
  }
  return {};
}

// endregion: pair-checks

// region: value-checks
std::expected<void, AttentionError> check_value(std::string_view stage,
                                                const tensor::Shape& query,
                                                const tensor::Shape& key,
                                                const tensor::Shape& value) {
  LLMFS_TRY(check_pair(stage, query, key));
  if (value.rank() != key.rank()) {
    return reject(AttentionErrorCode::input_rank, stage,
                  fmt::format("key {}, value {}", key, value));
  }
  if (!same_leading_axes(key, value)) {
    return reject(AttentionErrorCode::batch_mismatch, stage,
                  fmt::format("key {}, value {}", key, value));
  }
  const std::size_t rank = key.rank();
  if (key[rank - 2] != value[rank - 2]) {
    return reject(AttentionErrorCode::token_mismatch, stage,
                  fmt::format("key {}, value {}", key, value));
  }
  if (query[rank - 2] == 0 || key[rank - 2] == 0) {
    return reject(AttentionErrorCode::empty_tokens, stage,
                  fmt::format("query {}, key {}", query, key));
  }
  return {};
}
// endregion: value-checks

}  // namespace llmfs::attention::detail
