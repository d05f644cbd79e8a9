// Chapter 17
#include <cmath>
#include <numbers>
#include <vector>

#include <fmt/format.h>

#include <llmfs/core/try.hpp>
#include <llmfs/nn/init.hpp>

namespace llmfs::nn {

namespace {

// The element count of `shape`, if a tensor can hold it.
std::expected<std::size_t, NnError> checked_count(const tensor::Shape& shape) {
  const auto count = shape.element_count();
  if (!count || *count > tensor::max_element_count()) {
    return reject(NnErrorCode::size_overflow, "initialization",
                  fmt::format("shape {}", shape));
  }
  return *count;
}

// `values` as a tensor of `shape` (their count was checked against it).
std::expected<tensor::Tensor, NnError> as_tensor(const tensor::Shape& shape,
                                                 std::vector<double> values) {
  auto tensor = tensor::Tensor::from(shape, std::move(values));
  if (!tensor) {  // unreachable: the count was computed from the shape
    return reject(NnErrorCode::size_overflow, "initialization",
                  fmt::format("{}", tensor.error()));
  }
  return std::move(*tensor);
}

// Both fans are at least 1.
std::expected<void, NnError> check_fans(std::size_t fan_in, std::size_t fan_out) {
  if (fan_in == 0)
    return reject(NnErrorCode::zero_width, "initialization", "fan-in is 0");
  if (fan_out == 0) {
    return reject(NnErrorCode::zero_width, "initialization", "fan-out is 0");
  }
  return {};
}

}  // namespace

double fan_in_bound(std::size_t fan_in) noexcept {
  return 1.0 / std::sqrt(static_cast<double>(fan_in));
}

std::expected<tensor::Tensor, NnError> uniform_fan_in(const tensor::Shape& shape,
                                                      std::size_t fan_in,
                                                      SplitMix64& rng) {
  if (fan_in == 0) {
    return reject(NnErrorCode::zero_width, "initialization", "fan-in is 0");
  }
  const std::size_t count = LLMFS_TRY(checked_count(shape));
  const double bound = fan_in_bound(fan_in);
  std::vector<double> values(count);
  for (double& value : values)
    value = bound * (2.0 * rng.next_unit() - 1.0);
  return as_tensor(shape, std::move(values));
}

// region: fan-scales
std::expected<InitScheme, NnError> lecun(std::size_t fan_in,
                                         Distribution distribution) {
  LLMFS_TRY(check_fans(fan_in, 1));
  return InitScheme{distribution, std::sqrt(1.0 / static_cast<double>(fan_in))};
}

std::expected<InitScheme, NnError> xavier(std::size_t fan_in, std::size_t fan_out,
                                          Distribution distribution) {
  LLMFS_TRY(check_fans(fan_in, fan_out));
  const double fans = static_cast<double>(fan_in) + static_cast<double>(fan_out);
  return InitScheme{distribution, std::sqrt(2.0 / fans)};
}
// endregion: fan-scales

// region: box-muller
double standard_normal(SplitMix64& rng) noexcept {
  const double u1 = rng.next_unit();  // [0, 1)
  const double u2 = rng.next_unit();
  const double radius = std::sqrt(-2.0 * std::log(1.0 - u1));  // 1 − u1 in (0, 1]
  return radius * std::cos(2.0 * std::numbers::pi * u2);
}
// endregion: box-muller

// region: draw
std::expected<tensor::Tensor, NnError> draw(const tensor::Shape& shape,
                                            const InitScheme& scheme, SplitMix64& rng) {
  // Check everything before the first draw
  if (!std::isfinite(scheme.std_dev) || scheme.std_dev < 0.0) {
    return reject(NnErrorCode::bad_scale, "initialization",
                  fmt::format("std {}", scheme.std_dev));
  }
  const std::size_t count = LLMFS_TRY(checked_count(shape));
  // Draw in row-major order
  std::vector<double> values(count);
  if (scheme.distribution == Distribution::uniform) {
    const double bound = std::sqrt(3.0) * scheme.std_dev;  // variance a²/3 = σ²
    for (double& value : values)
      value = bound * (2.0 * rng.next_unit() - 1.0);
  } else {
    for (double& value : values)
      value = scheme.std_dev * standard_normal(rng);
  }
  return as_tensor(shape, std::move(values));
}
// endregion: draw

// region: make-parameter
std::expected<NamedParameter, NnError> make_parameter(autograd::Tape& tape,
                                                      std::string name,
                                                      const tensor::Shape& shape,
                                                      const InitScheme& scheme,
                                                      SplitMix64& rng) {
  const std::string stage = fmt::format("parameter '{}'", name);
  if (name.empty()) return reject(NnErrorCode::empty_name, stage);
  if (tape.released()) return reject(NnErrorCode::released_tape, stage);
  tensor::Tensor value = LLMFS_TRY(draw(shape, scheme, rng));
  return NamedParameter{std::move(name), tape.parameter(std::move(value))};
}
// endregion: make-parameter

Moments moments(std::span<const double> values) noexcept {
  if (values.empty()) return {};
  const auto n = static_cast<double>(values.size());
  double sum = 0.0, squares = 0.0;
  for (const double v : values)
    sum += v;
  const double mean = sum / n;
  for (const double v : values)
    squares += (v - mean) * (v - mean);
  return {mean, squares / n};
}

}  // namespace llmfs::nn
