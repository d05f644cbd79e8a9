// Chapter 12
#include <cmath>
#include <limits>

#include <llmfs/tensor/softmax.hpp>

namespace llmfs::tensor {

std::expected<Tensor, TensorError> softmax_last_axis(const Tensor& logits) {
  const Shape& shape = logits.shape();
  if (shape.rank() == 0) {
    return std::unexpected(TensorError{TensorErrorCode::rank_too_small,
                                       "softmax_last_axis",
                                       {shape},
                                       "needs rank >= 1"});
  }
  const std::size_t width = shape[shape.rank() - 1];
  Tensor out = Tensor::zeros(shape);
  if (width == 0 || logits.size() == 0) return out;
  const std::size_t rows = logits.size() / width;
  const auto in = logits.values();

  // Validate every row before computing anything.
  for (std::size_t r = 0; r < rows; ++r) {
    const auto row = in.subspan(r * width, width);
    bool any_allowed = false;
    for (std::size_t j = 0; j < width; ++j) {
      if (std::isnan(row[j]) || row[j] == std::numeric_limits<double>::infinity()) {
        return std::unexpected(
            TensorError{TensorErrorCode::non_finite_input,
                        "softmax_last_axis",
                        {shape},
                        fmt::format("row {} entry {} is {}", r, j, row[j])});
      }
      if (row[j] != -std::numeric_limits<double>::infinity()) any_allowed = true;
    }
    if (!any_allowed) {
      return std::unexpected(TensorError{TensorErrorCode::fully_masked_row,
                                         "softmax_last_axis",
                                         {shape},
                                         fmt::format("row {} is entirely -inf", r)});
    }
  }

  // Subtract the row maximum, exponentiate, normalise.
  auto y = out.mutable_values();
  for (std::size_t r = 0; r < rows; ++r) {
    const auto row = in.subspan(r * width, width);
    auto out_row = y.subspan(r * width, width);
    double row_max = -std::numeric_limits<double>::infinity();
    for (double x : row)
      row_max = std::fmax(row_max, x);
    double total = 0.0;
    for (std::size_t j = 0; j < width; ++j) {
      out_row[j] = std::exp(row[j] - row_max);  // exp(-inf) is exactly 0.0
      total += out_row[j];
    }
    for (double& v : out_row)
      v /= total;
  }
  return out;
}

}  // namespace llmfs::tensor
