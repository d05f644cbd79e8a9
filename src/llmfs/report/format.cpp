// Chapter 8
#include <fmt/format.h>

#include <llmfs/report/format.hpp>
#include <llmfs/tensor/number_format.hpp>
#include <llmfs/tensor/tensor.hpp>

namespace llmfs::report {

// The spelling of numbers belongs to the tensor module (its formatter prints tensors
// the same way); reports and traces reuse it, so there is one definition and no include
// cycle.

std::string format_number(double value) {
  return tensor::format_number(value);
}

std::string format_values(std::span<const double> values) {
  return tensor::format_values(values);
}

std::string format_tensor(const tensor::Tensor& tensor) {
  return fmt::format("{}", tensor);
}

std::span<const double> row(const tensor::Tensor& value, std::size_t index,
                            std::size_t width) {
  const auto values = value.values();
  if (width == 0 || index >= values.size() / width) return {};
  return values.subspan(index * width, width);
}

}  // namespace llmfs::report
