// Chapter 8
#include <cmath>

#include <fmt/format.h>

#include <llmfs/tensor/number_format.hpp>

namespace llmfs::tensor {

std::string format_number(double value) {
  if (std::isnan(value)) return "nan";  // one spelling, whatever the sign bit
  std::string text = fmt::format("{:.6f}", value);
  // A negative zero, or a tiny negative that rounds to zero, is printed without its
  // sign.
  if (text == "-0.000000") text.erase(0, 1);
  return text;
}

std::string format_values(std::span<const double> values) {
  std::string text = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) text += ',';
    text += format_number(values[i]);
  }
  text += ']';
  return text;
}

}  // namespace llmfs::tensor
