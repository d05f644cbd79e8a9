// Chapter 8
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include <llmfs/tensor/number_format.hpp>
#include <llmfs/tensor/tensor.hpp>

namespace llmfs::tensor {

namespace {

// zeros(), full() and uninitialized() are only called on shapes whose count fits (see
// their precondition): reaching the abort is a library bug, not bad input.
std::size_t count_or_abort(const Shape& shape) {
  const auto count = checked_element_count(shape, "tensor");
  if (!count) {
    fmt::print(stderr, "llmfs bug: Tensor::zeros/full/uninitialized on shape {}: {}\n",
               shape, describe(count.error().code));
    std::abort();
  }
  return *count;
}

}  // namespace

Tensor::Tensor() : values_(1, 0.0) {}

Tensor::Tensor(Shape shape, Storage values)
    : shape_(std::move(shape)), values_(std::move(values)) {}

std::expected<Tensor, TensorError> Tensor::from(Shape shape,
                                                std::vector<double> values) {
  return from_storage(std::move(shape), Storage(values.begin(), values.end()));
}

// region: tensor-from-checks
std::expected<Tensor, TensorError> Tensor::from_storage(Shape shape, Storage values) {
  const auto count = shape.element_count();
  if (!count) {
    return std::unexpected(
        TensorError{TensorErrorCode::element_count_overflow, "tensor", {shape}, {}});
  }
  if (*count != values.size()) {
    return std::unexpected(TensorError{
        TensorErrorCode::size_mismatch,
        "tensor",
        {shape},
        fmt::format("shape holds {} elements, got {} values", *count, values.size())});
  }
  return Tensor(std::move(shape), std::move(values));
}
// endregion: tensor-from-checks

Tensor Tensor::zeros(Shape shape) {
  return full(std::move(shape), 0.0);
}

Tensor Tensor::full(Shape shape, double value) {
  const std::size_t count = count_or_abort(shape);
  return Tensor(std::move(shape), Storage(count, value));
}

Tensor Tensor::uninitialized(Shape shape) {
  const std::size_t count = count_or_abort(shape);
  Storage values(count);  // default-initialised: no write
#ifndef NDEBUG
  std::fill(values.begin(), values.end(), std::numeric_limits<double>::quiet_NaN());
#endif
  return Tensor(std::move(shape), std::move(values));
}

Tensor Tensor::scalar(double value) {
  return Tensor(Shape{}, Storage{value});
}

// region: at-checks
// Every entry is checked before the offset is formed, so an index past an axis can
// never land on some other element's cell.
std::expected<double, TensorError> Tensor::at(
    std::span<const std::size_t> index) const {
  const auto error = [&](std::string detail) {
    return std::unexpected(TensorError{
        TensorErrorCode::index_out_of_range, "at", {shape_}, std::move(detail)});
  };
  if (index.size() != rank()) {
    return error(fmt::format("index [{}] has rank {}, tensor has rank {}",
                             fmt::join(index, ","), index.size(), rank()));
  }
  for (std::size_t axis = 0; axis < rank(); ++axis) {
    if (index[axis] >= shape_[axis]) {
      return error(fmt::format("index [{}]: entry {} on axis {} of length {}",
                               fmt::join(index, ","), index[axis], axis, shape_[axis]));
    }
  }
  return values_[row_major_offset(shape_, index)];
}
// endregion: at-checks

std::size_t max_element_count() noexcept {
  return Storage().max_size();
}

std::expected<std::size_t, TensorError> checked_element_count(const Shape& shape,
                                                              std::string_view op) {
  const auto count = shape.element_count();
  if (!count || *count > max_element_count()) {
    return std::unexpected(
        TensorError{TensorErrorCode::element_count_overflow,
                    std::string(op),
                    {shape},
                    count ? fmt::format("{} elements exceed the largest tensor, {}",
                                        *count, max_element_count())
                          : std::string("the element count overflows std::size_t")});
  }
  return *count;
}

bool bitwise_equal(const Tensor& a, const Tensor& b) noexcept {
  return a.shape() == b.shape() && bitwise_equal(a.values(), b.values());
}

bool bitwise_equal(std::span<const double> a, std::span<const double> b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::bit_cast<std::uint64_t>(a[i]) != std::bit_cast<std::uint64_t>(b[i]))
      return false;
  }
  return true;
}

}  // namespace llmfs::tensor

auto fmt::formatter<llmfs::tensor::Tensor>::format(const llmfs::tensor::Tensor& tensor,
                                                   fmt::format_context& ctx) const
    -> decltype(ctx.out()) {
  return fmt::format_to(ctx.out(), "shape:{} values:{}", tensor.shape(),
                        llmfs::tensor::format_values(tensor.values()));
}
