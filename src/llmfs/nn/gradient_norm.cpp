// Chapter 24
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <llmfs/core/try.hpp>
#include <llmfs/nn/gradient_norm.hpp>

namespace llmfs::nn {

double global_norm(std::span<const tensor::Tensor> tensors) noexcept {
  double squares = 0.0;
  for (const tensor::Tensor& t : tensors)
    for (const double v : t.values())
      squares += v * v;
  return std::sqrt(squares);
}

std::expected<double, NnError> gradient_norm(
    std::span<const NamedParameter> parameters) {
  std::vector<tensor::Tensor> gradients;
  for (const NamedParameter& p : parameters) {
    const std::string stage = fmt::format("gradient norm {}", p.name);
    gradients.push_back(LLMFS_TRY_AT(stage, p.value.gradient()));
  }
  return global_norm(gradients);
}

}  // namespace llmfs::nn
