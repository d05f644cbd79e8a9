#include <fmt/format.h>

#include <algorithm>
#include <llmfs/autograd/ops.hpp>
#include <llmfs/nn/qkv.hpp>
#include <string>
#include <vector>

namespace llmfs::nn {

namespace {

constexpr std::string_view kStage = "qkv projections";

// Columns [begin, begin+count) of the last axis, as a taped op whose backward writes the
// upstream gradient back into those columns (and adds nothing elsewhere).
std::expected<autograd::TensorValue, autograd::AutogradError> take_columns(
    const autograd::TensorValue& packed, std::size_t begin, std::size_t count) {
  // packed: [..., n] -> [..., count]
  auto source = packed.value_view();
  if (!source) return std::unexpected(source.error());
  const tensor::Shape& shape = packed.shape();
  const std::size_t width = shape[shape.rank() - 1];
  const std::size_t rows = width == 0 ? 0 : (*source)->size() / width;
  std::vector<std::size_t> dims = shape.as_vector();
  dims.back() = count;
  std::vector<double> values(rows * count);
  const auto in = (*source)->values();
  for (std::size_t r = 0; r < rows; ++r) {
    std::copy_n(in.begin() + static_cast<std::ptrdiff_t>(r * width + begin), count,
                values.begin() + static_cast<std::ptrdiff_t>(r * count));
  }
  auto result = tensor::Tensor::from(tensor::Shape(dims), std::move(values));
  if (!result) {
    return std::unexpected(autograd::AutogradError::from_tensor("take_columns", result.error()));
  }
  return autograd::record_op(
      "take_columns", std::move(*result), {packed},
      [begin, count, width,
       rows](autograd::BackwardContext& context) -> std::expected<void, autograd::AutogradError> {
        tensor::Tensor grad = tensor::Tensor::zeros(context.parent_value(0).shape());
        auto out = grad.mutable_values();
        const auto upstream = context.upstream().values();
        for (std::size_t r = 0; r < rows; ++r) {
          std::copy_n(upstream.begin() + static_cast<std::ptrdiff_t>(r * count), count,
                      out.begin() + static_cast<std::ptrdiff_t>(r * width + begin));
        }
        return context.accumulate(0, grad);
      });
}

}  // namespace

std::expected<QkvProjections, NnError> QkvProjections::create(autograd::Tape& tape,
                                                              std::string_view prefix,
                                                              std::size_t in, std::size_t out,
                                                              SplitMix64& rng) {
  // Validate on the first projection with a trial generator, then commit once all three exist.
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

std::expected<QkvProjections, NnError> QkvProjections::from_weights(NamedParameter query,
                                                                    NamedParameter key,
                                                                    NamedParameter value) {
  auto q = Linear::from_parameters(query);
  if (!q) return std::unexpected(q.error());
  auto k = Linear::from_parameters(key);
  if (!k) return std::unexpected(k.error());
  auto v = Linear::from_parameters(value);
  if (!v) return std::unexpected(v.error());
  if (key.value.shape() != query.value.shape() || value.value.shape() != query.value.shape()) {
    return std::unexpected(NnError{NnErrorCode::width_mismatch,
                                   std::string(kStage),
                                   fmt::format("query {}, key {}, value {}", query.value.shape(),
                                               key.value.shape(), value.value.shape()),
                                   {}});
  }
  if (!(key.value.tape() == query.value.tape()) || !(value.value.tape() == query.value.tape())) {
    return std::unexpected(NnError{NnErrorCode::different_tapes, std::string(kStage), "", {}});
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

std::expected<QkvProjections, NnError> QkvProjections::from_combined(NamedParameter in_projection) {
  auto combined = Linear::from_parameters(in_projection);
  if (!combined) return std::unexpected(combined.error());
  if (combined->output_width() % 3 != 0) {
    return std::unexpected(NnError{
        NnErrorCode::width_mismatch,
        std::string(kStage),
        fmt::format("combined in-projection {} needs 3·out columns", in_projection.value.shape()),
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

std::expected<QkvForward, NnError> QkvProjections::forward(const autograd::TensorValue& x) const {
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
    auto taken = take_columns(*packed, block * output_width_, output_width_);
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
