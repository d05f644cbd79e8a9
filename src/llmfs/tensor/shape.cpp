// Chapter 8
#include <limits>

#include <llmfs/tensor/shape.hpp>

namespace llmfs::tensor {

// region: element-count
// The product of the lengths, refused (nothing) as soon as one more multiplication
// would pass the largest std::size_t: count · length > max exactly when
// count > max / length (integer division).
std::optional<std::size_t> Shape::element_count() const noexcept {
  std::size_t count = 1;
  for (std::size_t length : dims_) {
    if (length == 0)
      return 0;  // an empty axis empties the tensor whatever the others are
  }
  for (std::size_t length : dims_) {
    if (count > std::numeric_limits<std::size_t>::max() / length) return std::nullopt;
    count *= length;
  }
  return count;
}
// endregion: element-count

// region: row-major-strides
// From the innermost axis outward: stride 1, then each stride is the one inside it
// times the length of the axis inside it.
std::vector<std::size_t> row_major_strides(const Shape& shape) {
  std::vector<std::size_t> strides(shape.rank(), 1);
  for (std::size_t axis = shape.rank(); axis > 1; --axis) {
    strides[axis - 2] = strides[axis - 1] * shape[axis - 1];
  }
  return strides;
}

// Horner's rule: after axis a the partial offset counts whole blocks of the axes up to
// a; multiplying by the next length and adding the next entry refines it by one axis.
std::size_t row_major_offset(const Shape& shape,
                             std::span<const std::size_t> index) noexcept {
  std::size_t offset = 0;
  for (std::size_t axis = 0; axis < shape.rank(); ++axis)
    offset = offset * shape[axis] + index[axis];
  return offset;
}
// endregion: row-major-strides

}  // namespace llmfs::tensor

auto fmt::formatter<llmfs::tensor::Shape>::format(const llmfs::tensor::Shape& shape,
                                                  fmt::format_context& ctx) const
    -> decltype(ctx.out()) {
  return fmt::format_to(ctx.out(), "[{}]", fmt::join(shape.dims(), ","));
}
