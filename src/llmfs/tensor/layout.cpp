// Chapter 9
#include <array>
#include <utility>

#include <llmfs/tensor/layout.hpp>
#include <llmfs/tensor/strided.hpp>

namespace llmfs::tensor {

std::expected<Tensor, TensorError> reshape(const Tensor& input, Shape shape) {
  const auto count = shape.element_count();
  if (!count) {
    return std::unexpected(TensorError{TensorErrorCode::element_count_overflow,
                                       "reshape",
                                       {input.shape(), shape},
                                       {}});
  }
  if (*count != input.size()) {
    return std::unexpected(TensorError{
        TensorErrorCode::size_mismatch,
        "reshape",
        {input.shape(), shape},
        fmt::format("{} elements cannot take a shape of {}", input.size(), *count)});
  }
  std::vector<double> values(input.values().begin(), input.values().end());
  return Tensor::from(std::move(shape), std::move(values));
}

std::expected<Tensor, TensorError> transpose(const Tensor& input, std::size_t axis_a,
                                             std::size_t axis_b) {
  const Shape& in_shape = input.shape();
  if (axis_a >= in_shape.rank() || axis_b >= in_shape.rank()) {
    return std::unexpected(TensorError{
        TensorErrorCode::axis_out_of_range,
        "transpose",
        {in_shape},
        fmt::format("axes {} and {} for rank {}", axis_a, axis_b, in_shape.rank())});
  }
  // The output shape swaps two lengths; reading the input with its strides swapped the
  // same way visits the input elements in the output's row-major order.
  std::vector<std::size_t> out_dims = in_shape.as_vector();
  std::swap(out_dims[axis_a], out_dims[axis_b]);
  Shape out_shape(std::move(out_dims));
  std::vector<std::size_t> read_strides = row_major_strides(in_shape);
  std::swap(read_strides[axis_a], read_strides[axis_b]);

  std::vector<double> values;
  values.reserve(input.size());
  const auto in = input.values();
  for_each_strided<1>(out_shape, {std::span<const std::size_t>(read_strides)},
                      [&](const std::array<std::size_t, 1>& offset) {
                        values.push_back(in[offset[0]]);
                      });
  return Tensor::from(std::move(out_shape), std::move(values));
}

std::expected<Tensor, TensorError> slice_last_axis(const Tensor& input,
                                                   std::size_t begin, std::size_t end) {
  // in: [..., n] -> [..., end − begin]
  const Shape& in_shape = input.shape();
  if (in_shape.rank() == 0) {
    return std::unexpected(TensorError{TensorErrorCode::rank_too_small,
                                       "slice_last_axis",
                                       {in_shape},
                                       "needs at least one axis"});
  }
  const std::size_t width = in_shape[in_shape.rank() - 1];
  if (begin > end || end > width) {
    return std::unexpected(
        TensorError{TensorErrorCode::index_out_of_range,
                    "slice_last_axis",
                    {in_shape},
                    fmt::format("columns [{}, {}) of {}", begin, end, width)});
  }
  const std::size_t count = end - begin;
  const std::size_t rows = width == 0 ? 0 : input.size() / width;
  std::vector<std::size_t> out_dims = in_shape.as_vector();
  out_dims.back() = count;
  std::vector<double> values;
  values.reserve(rows * count);
  const auto in = input.values();
  for (std::size_t row = 0; row < rows; ++row) {
    const auto first = in.begin() + static_cast<std::ptrdiff_t>(row * width + begin);
    values.insert(values.end(), first, first + static_cast<std::ptrdiff_t>(count));
  }
  return Tensor::from(Shape(std::move(out_dims)), std::move(values));
}

}  // namespace llmfs::tensor
