// Chapter 9
#include <algorithm>
#include <array>
#include <optional>
#include <utility>

#include <llmfs/tensor/layout.hpp>
#include <llmfs/tensor/strided.hpp>

namespace llmfs::tensor {

namespace {

// region: reshape-checks
// Nothing, or the reason `from` cannot take the shape `to`.
std::optional<TensorError> reshape_error(const Shape& from, std::size_t from_count,
                                         const Shape& to) {
  const auto count = to.element_count();
  if (!count)
    return TensorError{
        TensorErrorCode::element_count_overflow, "reshape", {from, to}, {}};
  if (*count != from_count) {
    return TensorError{
        TensorErrorCode::size_mismatch,
        "reshape",
        {from, to},
        fmt::format("{} elements cannot take a shape of {}", from_count, *count)};
  }
  return std::nullopt;
}
// endregion: reshape-checks

// region: transpose-checks
// Nothing, or the reason axes `a` and `b` of `shape` cannot be swapped.
std::optional<TensorError> transpose_error(const Shape& shape, std::size_t a,
                                           std::size_t b) {
  if (a >= shape.rank() || b >= shape.rank()) {
    return TensorError{TensorErrorCode::axis_out_of_range,
                       "transpose",
                       {shape},
                       fmt::format("axes {} and {} for rank {}", a, b, shape.rank())};
  }
  return std::nullopt;
}
// endregion: transpose-checks

}  // namespace

// region: reshape
// Same count, same order: only the shape changes. A tensor the caller gives up has its
// storage moved into the result, no element copied; a const one is copied first.
std::expected<Tensor, TensorError> reshape(const Tensor& input, Shape shape) {
  return reshape(Tensor(input), std::move(shape));  // one copy of the storage, in order
}

std::expected<Tensor, TensorError> reshape(Tensor&& input, Shape shape) {
  if (auto error = reshape_error(input.shape(), input.size(), shape))
    return std::unexpected(std::move(*error));
  return Tensor::from_storage(std::move(shape), std::move(input).take_values());
}
// endregion: reshape

// region: transposed-view
// Swapping two lengths and the same two strides: element (…i…j…) of the view is the
// input's element (…j…i…). Nothing is read or written.
StridedView transposed_view(const Shape& shape, std::size_t a, std::size_t b) {
  std::vector<std::size_t> dims = shape.as_vector();
  std::vector<std::size_t> strides = row_major_strides(shape);
  std::swap(dims[a], dims[b]);
  std::swap(strides[a], strides[b]);
  return {Shape(std::move(dims)), std::move(strides)};
}

bool is_row_major(const StridedView& view) noexcept {
  if (view.shape.element_count() == 0) return true;  // no element to misplace
  std::size_t expected = 1;                          // Π of the lengths after the axis
  for (std::size_t axis = view.shape.rank(); axis > 0; --axis) {
    const std::size_t length = view.shape[axis - 1];
    if (length > 1 && view.strides[axis - 1] != expected) return false;
    expected *= length;
  }
  return true;
}
// endregion: transposed-view

// region: transpose
// The view's elements, visited in its own row-major order and written down in that
// order: the gather that makes the view a contiguous Tensor again.
std::expected<Tensor, TensorError> transpose(const Tensor& input, std::size_t axis_a,
                                             std::size_t axis_b) {
  if (auto error = transpose_error(input.shape(), axis_a, axis_b))
    return std::unexpected(std::move(*error));
  StridedView view = transposed_view(input.shape(), axis_a, axis_b);
  // The axes after both swapped ones keep their order and strides: each run of that
  // many elements is contiguous in the input too, and is copied as one block.
  const std::size_t last = std::max(axis_a, axis_b);
  std::size_t run = 1;
  for (std::size_t axis = last + 1; axis < view.shape.rank(); ++axis)
    run *= view.shape[axis];
  const std::vector<std::size_t> dims = view.shape.as_vector();
  const Shape leading(std::vector<std::size_t>(dims.begin(), dims.begin() + last + 1));
  Storage values(input.size());  // every element written below, in order
  double* out = values.data();
  const auto in = input.values();
  for_each_strided<1>(leading,
                      {std::span<const std::size_t>(view.strides).first(last + 1)},
                      [&](const std::array<std::size_t, 1>& offset) {
                        if (run == 1)
                          *out++ = in[offset[0]];
                        else  // a contiguous block: one memmove
                          out = std::copy_n(in.data() + offset[0], run, out);
                      });
  return Tensor::from_storage(std::move(view.shape), std::move(values));
}
// endregion: transpose

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
  Storage values(rows * count);  // every element written below
  const auto in = input.values();
  for (std::size_t row = 0; row < rows; ++row)
    std::copy_n(in.data() + row * width + begin, count, values.data() + row * count);
  return Tensor::from_storage(Shape(std::move(out_dims)), std::move(values));
}

}  // namespace llmfs::tensor
