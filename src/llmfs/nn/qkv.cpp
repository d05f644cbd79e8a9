// Chapter 26
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/core/try.hpp>
#include <llmfs/nn/qkv.hpp>

namespace llmfs::nn {

namespace {

constexpr std::string_view kStage = "qkv projections";

// region: qkv-weight-checks
// Three separate weights: the same [in, out] shape, on one tape.
[[nodiscard]] std::expected<void, NnError> check_separate(const NamedParameter& query,
                                                          const NamedParameter& key,
                                                          const NamedParameter& value) {
  if (key.value.shape() != query.value.shape() ||
      value.value.shape() != query.value.shape()) {
    return reject(NnErrorCode::width_mismatch, kStage,
                  fmt::format("query {}, key {}, value {}", query.value.shape(),
                              key.value.shape(), value.value.shape()));
  }
  if (!(key.value.tape() == query.value.tape()) ||
      !(value.value.tape() == query.value.tape())) {
    return reject(NnErrorCode::different_tapes, kStage);
  }
  return {};
}

// One combined weight [in, 3·out]: its column count splits into three equal blocks.
[[nodiscard]] std::expected<void, NnError> check_combined(
    const NamedParameter& in_projection, std::size_t columns) {
  if (columns % 3 != 0) {
    return reject(NnErrorCode::width_mismatch, kStage,
                  fmt::format("combined in-projection {} needs 3·out columns",
                              in_projection.value.shape()));
  }
  return {};
}
// endregion: qkv-weight-checks

}  // namespace

// region: qkv-create
std::expected<QkvProjections, NnError> QkvProjections::create(autograd::Tape& tape,
                                                              std::string_view prefix,
                                                              std::size_t in,
                                                              std::size_t out,
                                                              SplitMix64& rng) {
  // Draw W_Q, W_K, W_V in that order from a trial copy of the generator; commit the
  // copy only once all three exist, so a refused call leaves `rng` where it was.
  SplitMix64 trial = rng;
  const std::string base(prefix);
  auto query = LLMFS_TRY(Linear::create(tape, base + ".query", in, out, false, trial));
  auto key = LLMFS_TRY(Linear::create(tape, base + ".key", in, out, false, trial));
  auto value = LLMFS_TRY(Linear::create(tape, base + ".value", in, out, false, trial));
  auto projections = from_weights(query.weight(), key.weight(), value.weight());
  if (projections) rng = trial;
  return projections;
}
// endregion: qkv-create

// region: qkv-from-weights
// Separate layout: three chapter-19 layers without bias, one per projection.
std::expected<QkvProjections, NnError> QkvProjections::from_weights(
    NamedParameter query, NamedParameter key, NamedParameter value) {
  auto q = LLMFS_TRY(Linear::from_parameters(query));
  auto k = LLMFS_TRY(Linear::from_parameters(key));
  auto v = LLMFS_TRY(Linear::from_parameters(value));
  LLMFS_TRY(check_separate(query, key, value));
  auto parameters = LLMFS_TRY(NamedParameters::create({query, key, value}));
  QkvProjections projections;
  projections.layout_ = QkvLayout::separate;
  projections.input_width_ = q.input_width();
  projections.output_width_ = q.output_width();
  projections.query_ = std::move(q);
  projections.key_ = std::move(k);
  projections.value_ = std::move(v);
  projections.parameters_ = std::move(parameters);
  return projections;
}
// endregion: qkv-from-weights

// region: qkv-from-combined
// Combined layout: one chapter-19 layer [in, 3·out]; each projection is out wide.
std::expected<QkvProjections, NnError> QkvProjections::from_combined(
    NamedParameter in_projection) {
  auto combined = LLMFS_TRY(Linear::from_parameters(in_projection));
  LLMFS_TRY(check_combined(in_projection, combined.output_width()));
  auto parameters = LLMFS_TRY(NamedParameters::create({in_projection}));
  QkvProjections projections;
  projections.layout_ = QkvLayout::combined;
  projections.input_width_ = combined.input_width();
  projections.output_width_ = combined.output_width() / 3;
  projections.combined_ = std::move(combined);
  projections.parameters_ = std::move(parameters);
  return projections;
}
// endregion: qkv-from-combined

// region: qkv-forward
std::expected<QkvForward, NnError> QkvProjections::forward(
    const autograd::TensorValue& x) const {
  // x: [..., in] -> Q, K, V: [..., out]
  if (layout_ == QkvLayout::separate) {
    auto query = LLMFS_TRY(query_->forward(x));
    auto key = LLMFS_TRY(key_->forward(x));
    auto value = LLMFS_TRY(value_->forward(x));
    return QkvForward{std::move(query), std::move(key), std::move(value)};
  }
  // One product [..., 3·out], cut into its column blocks [Q | K | V] on the tape: the
  // cut's backward writes each block's gradient back into its own columns.
  auto packed = LLMFS_TRY(combined_->forward(x));
  std::vector<autograd::TensorValue> blocks;
  for (std::size_t block = 0; block < 3; ++block) {
    auto taken =
        LLMFS_TRY_AT(kStage, autograd::slice_last_axis(packed, block * output_width_,
                                                       (block + 1) * output_width_));
    blocks.push_back(std::move(taken));
  }
  return QkvForward{std::move(blocks[0]), std::move(blocks[1]), std::move(blocks[2])};
}
// endregion: qkv-forward

}  // namespace llmfs::nn
