// Chapter 26
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <llmfs/autograd/ops.hpp>
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
  auto query = Linear::create(tape, base + ".query", in, out, false, trial);
  if (!query) return std::unexpected(query.error());
  auto key = Linear::create(tape, base + ".key", in, out, false, trial);
  if (!key) return std::unexpected(key.error());
  auto value = Linear::create(tape, base + ".value", in, out, false, trial);
  if (!value) return std::unexpected(value.error());
  auto projections = from_weights(query->weight(), key->weight(), value->weight());
  if (projections) rng = trial;
  return projections;
}

std::expected<QkvProjections, NnError> QkvProjections::from_weights(
    NamedParameter query, NamedParameter key, NamedParameter value) {
  auto q = Linear::from_parameters(query);
  if (!q) return std::unexpected(q.error());
  auto k = Linear::from_parameters(key);
  if (!k) return std::unexpected(k.error());
  auto v = Linear::from_parameters(value);
  if (!v) return std::unexpected(v.error());
  if (key.value.shape() != query.value.shape() ||
      value.value.shape() != query.value.shape()) {
    return std::unexpected(
        NnError{NnErrorCode::width_mismatch,
                std::string(kStage),
                fmt::format("query {}, key {}, value {}", query.value.shape(),
                            key.value.shape(), value.value.shape()),
                {}});
  }
  if (!(key.value.tape() == query.value.tape()) ||
      !(value.value.tape() == query.value.tape())) {
    return std::unexpected(
        NnError{NnErrorCode::different_tapes, std::string(kStage), "", {}});
  }
  auto parameters = NamedParameters::create({query, key, value});
  if (!parameters) return std::unexpected(parameters.error());
  QkvProjections projections;
  projections.layout_ = QkvLayout::separate;
  projections.input_width_ = q->input_width();
  projections.output_width_ = q->output_width();
  projections.query_ = std::move(*q);
  projections.key_ = std::move(*k);
  projections.value_ = std::move(*v);
  projections.parameters_ = std::move(*parameters);
  return projections;
}

std::expected<QkvProjections, NnError> QkvProjections::from_combined(
    NamedParameter in_projection) {
  auto combined = Linear::from_parameters(in_projection);
  if (!combined) return std::unexpected(combined.error());
  if (combined->output_width() % 3 != 0) {
    return std::unexpected(
        NnError{NnErrorCode::width_mismatch,
                std::string(kStage),
                fmt::format("combined in-projection {} needs 3·out columns",
                            in_projection.value.shape()),
                {}});
  }
  auto parameters = NamedParameters::create({in_projection});
  if (!parameters) return std::unexpected(parameters.error());
  QkvProjections projections;
  projections.layout_ = QkvLayout::combined;
  projections.input_width_ = combined->input_width();
  projections.output_width_ = combined->output_width() / 3;
  projections.combined_ = std::move(*combined);
  projections.parameters_ = std::move(*parameters);
  return projections;
}

std::expected<QkvForward, NnError> QkvProjections::forward(
    const autograd::TensorValue& x) const {
  // x: [..., in] -> Q, K, V: [..., out]
  if (layout_ == QkvLayout::separate) {
    auto query = query_->forward(x);
    if (!query) return std::unexpected(query.error());
    auto key = key_->forward(x);
    if (!key) return std::unexpected(key.error());
    auto value = value_->forward(x);
    if (!value) return std::unexpected(value.error());
    return QkvForward{std::move(*query), std::move(*key), std::move(*value)};
  }
  auto packed = combined_->forward(x);  // [..., 3·out]
  if (!packed) return std::unexpected(packed.error());
  std::vector<autograd::TensorValue> blocks;
  for (std::size_t block = 0; block < 3; ++block) {
    auto taken = autograd::slice_last_axis(*packed, block * output_width_,
                                           (block + 1) * output_width_);
    if (!taken) {
      return std::unexpected(NnError{NnErrorCode::autograd, std::string(kStage),
                                     fmt::format("column block {}", block),
                                     std::move(taken.error())});
    }
    blocks.push_back(std::move(*taken));
  }
  return QkvForward{std::move(blocks[0]), std::move(blocks[1]), std::move(blocks[2])};
}

}  // namespace llmfs::nn
