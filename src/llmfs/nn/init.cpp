// Chapter 17
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include <llmfs/nn/init.hpp>

namespace llmfs::nn {

double fan_in_bound(std::size_t fan_in) noexcept {
  return 1.0 / std::sqrt(static_cast<double>(fan_in));
}

std::expected<tensor::Tensor, NnError> uniform_fan_in(const tensor::Shape& shape,
                                                      std::size_t fan_in,
                                                      SplitMix64& rng) {
  if (fan_in == 0) {
    return reject(NnErrorCode::zero_width, "initialization", "fan-in is 0");
  }
  const auto count = shape.element_count();
  if (!count || *count > tensor::max_element_count()) {
    return reject(NnErrorCode::size_overflow, "initialization",
                  fmt::format("shape {}", shape));
  }
  const double bound = fan_in_bound(fan_in);
  std::vector<double> values(*count);
  for (double& value : values)
    value = bound * (2.0 * rng.next_unit() - 1.0);
  auto tensor = tensor::Tensor::from(shape, std::move(values));
  if (!tensor) {  // unreachable: the count was computed from the shape
    return reject(NnErrorCode::size_overflow, "initialization",
                  fmt::format("{}", tensor.error()));
  }
  return std::move(*tensor);
}

}  // namespace llmfs::nn
