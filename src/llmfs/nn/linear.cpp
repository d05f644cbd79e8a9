// Chapter 19
#include <string>

#include <fmt/format.h>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/nn/init.hpp>
#include <llmfs/nn/linear.hpp>

namespace llmfs::nn {

namespace {

NnError linear_error(NnErrorCode code, std::string_view name, std::string detail) {
  return NnError{code, fmt::format("linear {}", name), std::move(detail), {}};
}

}  // namespace

std::expected<Linear, NnError> Linear::create(autograd::Tape& tape,
                                              std::string_view name, std::size_t in,
                                              std::size_t out, bool bias,
                                              SplitMix64& rng) {
  // Validate everything before the first draw.
  if (name.empty())
    return std::unexpected(linear_error(NnErrorCode::empty_name, name, ""));
  if (in == 0 || out == 0) {
    return std::unexpected(linear_error(NnErrorCode::zero_width, name,
                                        fmt::format("in {} and out {}", in, out)));
  }
  const tensor::Shape weight_shape{in, out};
  const auto weight_count = weight_shape.element_count();
  if (!weight_count || *weight_count > tensor::max_element_count()) {
    return std::unexpected(linear_error(NnErrorCode::size_overflow, name,
                                        fmt::format("weight {}", weight_shape)));
  }
  if (tape.released())
    return std::unexpected(linear_error(NnErrorCode::released_tape, name, ""));

  // Draw the weight, then the bias, with the same fan-in bound.
  auto weight = uniform_fan_in(weight_shape, in, rng);
  if (!weight) return std::unexpected(weight.error());
  std::optional<NamedParameter> bias_parameter;
  NamedParameter weight_parameter{fmt::format("{}.weight", name),
                                  tape.parameter(std::move(*weight))};
  if (bias) {
    auto values = uniform_fan_in(tensor::Shape{out}, in, rng);
    if (!values) return std::unexpected(values.error());
    bias_parameter = NamedParameter{fmt::format("{}.bias", name),
                                    tape.parameter(std::move(*values))};
  }
  return Linear(std::move(weight_parameter), std::move(bias_parameter));
}

std::expected<Linear, NnError> Linear::from_parameters(
    NamedParameter weight, std::optional<NamedParameter> bias) {
  const std::string_view name = weight.name;
  if (weight.name.empty()) {
    return std::unexpected(linear_error(NnErrorCode::empty_name, name, "weight"));
  }
  const auto& shape = weight.value.shape();
  if (shape.rank() != 2) {
    return std::unexpected(linear_error(NnErrorCode::weight_rank, name,
                                        fmt::format("got shape {}", shape)));
  }
  if (shape[0] == 0 || shape[1] == 0) {
    return std::unexpected(linear_error(NnErrorCode::zero_width, name,
                                        fmt::format("weight shape {}", shape)));
  }
  if (bias) {
    if (bias->name.empty()) {
      return std::unexpected(linear_error(NnErrorCode::empty_name, name, "bias"));
    }
    const tensor::Shape expected{shape[1]};
    if (bias->value.shape() != expected) {
      return std::unexpected(linear_error(
          NnErrorCode::bias_shape, name,
          fmt::format("expected {}, got {}", expected, bias->value.shape())));
    }
    if (!(bias->value.tape() == weight.value.tape())) {
      return std::unexpected(
          linear_error(NnErrorCode::different_tapes, name, bias->name));
    }
    auto checked = NamedParameters::create({weight, *bias});
    if (!checked) {
      auto error = checked.error();
      error.stage = fmt::format("linear {}", name);
      return std::unexpected(std::move(error));
    }
  }
  return Linear(std::move(weight), std::move(bias));
}

std::expected<autograd::TensorValue, NnError> Linear::forward(
    const autograd::TensorValue& x) const {
  // x: [..., in] -> [..., out]
  const auto& shape = x.shape();
  if (shape.rank() < 2) {
    return std::unexpected(linear_error(NnErrorCode::input_rank, weight_.name,
                                        fmt::format("got shape {}", shape)));
  }
  if (shape[shape.rank() - 1] != input_width()) {
    return std::unexpected(linear_error(
        NnErrorCode::input_width, weight_.name,
        fmt::format("expected {}, got {}", input_width(), shape[shape.rank() - 1])));
  }
  auto wrap = [&](autograd::AutogradError cause) {
    return NnError{NnErrorCode::autograd, fmt::format("linear {}", weight_.name), "",
                   std::move(cause)};
  };
  auto product = autograd::matmul(x, weight_.value);
  if (!product) return std::unexpected(wrap(std::move(product.error())));
  if (!bias_) return std::move(*product);
  auto shifted = autograd::add(*product, bias_->value);
  if (!shifted) return std::unexpected(wrap(std::move(shifted.error())));
  return std::move(*shifted);
}

std::vector<NamedParameter> Linear::parameters() const {
  std::vector<NamedParameter> list{weight_};
  if (bias_) list.push_back(*bias_);
  return list;
}

}  // namespace llmfs::nn
