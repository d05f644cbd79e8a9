// Chapter 8
#include <limits>

#include <llmfs/tensor/shape.hpp>

namespace llmfs::tensor {

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

std::vector<std::size_t> row_major_strides(const Shape& shape) {
  std::vector<std::size_t> strides(shape.rank(), 1);
  for (std::size_t axis = shape.rank(); axis > 1; --axis) {
    strides[axis - 2] = strides[axis - 1] * shape[axis - 1];
  }
  return strides;
}

}  // namespace llmfs::tensor

auto fmt::formatter<llmfs::tensor::Shape>::format(const llmfs::tensor::Shape& shape,
                                                  fmt::format_context& ctx) const
    -> decltype(ctx.out()) {
  return fmt::format_to(ctx.out(), "[{}]", fmt::join(shape.dims(), ","));
}
