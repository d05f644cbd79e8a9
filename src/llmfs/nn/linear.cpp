// Chapter 19
#include <string>

#include <fmt/format.h>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/core/try.hpp>
#include <llmfs/nn/init.hpp>
#include <llmfs/nn/linear.hpp>

namespace llmfs::nn {

namespace {

// The stage of every error: `linear <name>`, or `linear (no name)`.
std::string stage_of(std::string_view name) {
  return fmt::format("linear {}", name.empty() ? "(no name)" : name);
}

// region: linear-create-checks
// A layer `name` of in·out weights (and out biases) can be drawn on `tape`.
[[nodiscard]] std::expected<void, NnError> check_create(const autograd::Tape& tape,
                                                        std::string_view name,
                                                        std::size_t in,
                                                        std::size_t out) {
  if (name.empty()) return reject(NnErrorCode::empty_name, stage_of(name));
  if (in == 0 || out == 0) {
    return reject(NnErrorCode::zero_width, stage_of(name),
                  fmt::format("in {} and out {}", in, out));
  }
  const tensor::Shape weight_shape{in, out};
  const auto weight_count = weight_shape.element_count();
  if (!weight_count || *weight_count > tensor::max_element_count()) {
    return reject(NnErrorCode::size_overflow, stage_of(name),
                  fmt::format("weight {}", weight_shape));
  }
  if (tape.released()) return reject(NnErrorCode::released_tape, stage_of(name));
  return {};
}
// endregion: linear-create-checks

// region: linear-parameter-checks
// A weight [in, out] and an optional bias [out] on the same tape, under distinct names.
[[nodiscard]] std::expected<void, NnError> check_parameters(
    const NamedParameter& weight, const std::optional<NamedParameter>& bias) {
  const std::string stage = stage_of(weight.name);
  if (weight.name.empty()) return reject(NnErrorCode::empty_name, stage, "weight");
  const auto& shape = weight.value.shape();
  if (shape.rank() != 2)
    return reject(NnErrorCode::weight_rank, stage, fmt::format("got shape {}", shape));
  if (shape[0] == 0 || shape[1] == 0)
    return reject(NnErrorCode::zero_width, stage,
                  fmt::format("weight shape {}", shape));
  if (!bias) return {};
  if (bias->name.empty()) return reject(NnErrorCode::empty_name, stage, "bias");
  const tensor::Shape expected{shape[1]};
  if (bias->value.shape() != expected) {
    return reject(NnErrorCode::bias_shape, stage,
                  fmt::format("expected {}, got {}", expected, bias->value.shape()));
  }
  if (bias->value.tape() != weight.value.tape())
    return reject(NnErrorCode::different_tapes, stage, bias->name);
  auto checked = NamedParameters::create({weight, *bias});
  if (!checked) {
    NnError error = std::move(checked.error());
    error.stage = stage;
    return std::unexpected(std::move(error));
  }
  return {};
}
// endregion: linear-parameter-checks

// region: linear-input-checks
// An input [..., T, in] for a layer of input width `in`.
[[nodiscard]] std::expected<void, NnError> check_input(const tensor::Shape& shape,
                                                       std::size_t in,
                                                       std::string_view name) {
  if (shape.rank() < 2) {
    return reject(NnErrorCode::input_rank, stage_of(name),
                  fmt::format("got shape {}", shape));
  }
  if (shape[shape.rank() - 1] != in) {
    return reject(NnErrorCode::input_width, stage_of(name),
                  fmt::format("expected {}, got {}", in, shape[shape.rank() - 1]));
  }
  return {};
}
// endregion: linear-input-checks

}  // namespace

// region: linear-create
std::expected<Linear, NnError> Linear::create(autograd::Tape& tape,
                                              std::string_view name, std::size_t in,
                                              std::size_t out, bool bias,
                                              SplitMix64& rng) {
  // Validate everything before the first draw.
  LLMFS_TRY(check_create(tape, name, in, out));

  // Draw the weight, then the bias, with the same fan-in bound.
  auto weight = LLMFS_TRY(uniform_fan_in(tensor::Shape{in, out}, in, rng));
  NamedParameter weight_parameter{fmt::format("{}.weight", name),
                                  tape.parameter(std::move(weight))};
  std::optional<NamedParameter> bias_parameter;
  if (bias) {
    auto values = LLMFS_TRY(uniform_fan_in(tensor::Shape{out}, in, rng));
    bias_parameter =
        NamedParameter{fmt::format("{}.bias", name), tape.parameter(std::move(values))};
  }
  return Linear(std::move(weight_parameter), std::move(bias_parameter));
}

std::expected<Linear, NnError> Linear::from_parameters(
    NamedParameter weight, std::optional<NamedParameter> bias) {
  LLMFS_TRY(check_parameters(weight, bias));
  return Linear(std::move(weight), std::move(bias));
}
// endregion: linear-create

// region: linear-forward
std::expected<autograd::TensorValue, NnError> Linear::forward(
    const autograd::TensorValue& x) const {
  // x: [..., in] -> [..., out]
  LLMFS_TRY(check_input(x.shape(), input_width(), weight_.name));
  const std::string stage = stage_of(weight_.name);
  auto product = LLMFS_TRY_AT(stage, autograd::matmul(x, weight_.value));
  if (!bias_) return product;
  return LLMFS_TRY_AT(stage, autograd::add(product, bias_->value));
}

std::vector<NamedParameter> Linear::parameters() const {
  std::vector<NamedParameter> list{weight_};
  if (bias_) list.push_back(*bias_);
  return list;
}

std::size_t Linear::parameter_count() const noexcept {
  return input_width() * output_width() + (bias_ ? output_width() : 0);
}
// endregion: linear-forward

}  // namespace llmfs::nn
