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

}  // namespace

std::expected<QkvProjections, NnError> QkvProjections::create(autograd::Tape& tape,
                                                              std::string_view prefix,
                                                              std::size_t in,
                                                              std::size_t out,
                                                              SplitMix64& rng) {
  // Validate on the first projection with a trial generator, then commit once all three
  // exist.
  SplitMix64 trial = rng;
  const std::string base(prefix);
  auto query = LLMFS_TRY(Linear::create(tape, base + ".query", in, out, false, trial));
  auto key = LLMFS_TRY(Linear::create(tape, base + ".key", in, out, false, trial));
  auto value = LLMFS_TRY(Linear::create(tape, base + ".value", in, out, false, trial));
  auto projections = from_weights(query.weight(), key.weight(), value.weight());
  if (projections) rng = trial;
  return projections;
}

std::expected<QkvProjections, NnError> QkvProjections::from_weights(
    NamedParameter query, NamedParameter key, NamedParameter value) {
  auto q = LLMFS_TRY(Linear::from_parameters(query));
  auto k = LLMFS_TRY(Linear::from_parameters(key));
  auto v = LLMFS_TRY(Linear::from_parameters(value));
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

std::expected<QkvProjections, NnError> QkvProjections::from_combined(
    NamedParameter in_projection) {
  auto combined = LLMFS_TRY(Linear::from_parameters(in_projection));
  if (combined.output_width() % 3 != 0) {
    return reject(NnErrorCode::width_mismatch, kStage,
                  fmt::format("combined in-projection {} needs 3·out columns",
                              in_projection.value.shape()));
  }
  auto parameters = LLMFS_TRY(NamedParameters::create({in_projection}));
  QkvProjections projections;
  projections.layout_ = QkvLayout::combined;
  projections.input_width_ = combined.input_width();
  projections.output_width_ = combined.output_width() / 3;
  projections.combined_ = std::move(combined);
  projections.parameters_ = std::move(parameters);
  return projections;
}

std::expected<QkvForward, NnError> QkvProjections::forward(
    const autograd::TensorValue& x) const {
  // x: [..., in] -> Q, K, V: [..., out]
  if (layout_ == QkvLayout::separate) {
    auto query = LLMFS_TRY(query_->forward(x));
    auto key = LLMFS_TRY(key_->forward(x));
    auto value = LLMFS_TRY(value_->forward(x));
    return QkvForward{std::move(query), std::move(key), std::move(value)};
  }
  auto packed = LLMFS_TRY(combined_->forward(x));  // [..., 3·out]
  std::vector<autograd::TensorValue> blocks;
  for (std::size_t block = 0; block < 3; ++block) {
    auto taken =
        LLMFS_TRY_AT(kStage, autograd::slice_last_axis(packed, block * output_width_,
                                                       (block + 1) * output_width_));
    blocks.push_back(std::move(taken));
  }
  return QkvForward{std::move(blocks[0]), std::move(blocks[1]), std::move(blocks[2])};
}

}  // namespace llmfs::nn
