// Chapter 8
#pragma once
/// \file
/// \brief The shape of a row-major tensor: a list of axis lengths (Chapter 8).

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <span>
#include <vector>

#include <fmt/format.h>

namespace llmfs::tensor {

// region: shape-class
/// The axis lengths of a tensor, outermost axis first; rank 0 is a scalar.
///
/// A Shape is a value type. It formats with fmt as `[1,3,4]` (no spaces; `[]` for rank
/// 0). Axis lengths of zero are allowed (an empty batch `[0,3,4]` holds no elements).
class Shape {
 public:
  /// The rank-0 shape `[]` of a scalar (one element).
  Shape() = default;
  /// A shape from its axis lengths, e.g. `Shape{1, 3, 4}`.
  Shape(std::initializer_list<std::size_t> dims) : dims_(dims) {}
  /// A shape from a vector of axis lengths.
  explicit Shape(std::vector<std::size_t> dims) : dims_(std::move(dims)) {}

  /// Number of axes.
  [[nodiscard]] std::size_t rank() const noexcept { return dims_.size(); }
  /// Length of one axis. Precondition: `axis < rank()` (library code checks before
  /// indexing).
  [[nodiscard]] std::size_t operator[](std::size_t axis) const noexcept {
    return dims_[axis];
  }
  /// All axis lengths, outermost first.
  [[nodiscard]] std::span<const std::size_t> dims() const noexcept { return dims_; }
  /// The axis lengths as a vector (a reference; copy it to build a derived shape).
  [[nodiscard]] const std::vector<std::size_t>& as_vector() const noexcept {
    return dims_;
  }
  // endregion: shape-class
  // region: element-count-declaration
  /// Product of the axis lengths (1 for rank 0), or nothing if it overflows
  /// `std::size_t`.
  [[nodiscard]] std::optional<std::size_t> element_count() const noexcept;
  // endregion: element-count-declaration

  /// Iterator to the outermost axis length.
  [[nodiscard]] auto begin() const noexcept { return dims_.begin(); }
  /// Iterator past the innermost axis length.
  [[nodiscard]] auto end() const noexcept { return dims_.end(); }

  /// Two shapes are equal when they have the same rank and axis lengths.
  friend bool operator==(const Shape&, const Shape&) = default;

 private:
  std::vector<std::size_t> dims_;
};

// region: index-map
/// Row-major strides of a contiguous tensor of this shape: the last axis has stride 1
/// and `stride[i] = stride[i+1] * shape[i+1]`, so `stride[i]` is the product of the
/// lengths of the axes after `i` (Chapter 8). Precondition: each such product fits in
/// `std::size_t`, which holds whenever the element count of a shape with no zero length
/// fits; a shape with a zero length has no element to address, and its strides may wrap
/// (`[0, 2^40, 2^40]`).
[[nodiscard]] std::vector<std::size_t> row_major_strides(const Shape& shape);

/// The position of element `index` in row-major storage: `Σ_a index[a] · stride[a]`,
/// computed as Horner's rule `(((i0)·n1 + i1)·n2 + i2)…` without forming the strides.
/// Preconditions: `index.size() == shape.rank()` and `index[a] < shape[a]` for every
/// axis (Tensor::at checks both and returns a typed error).
[[nodiscard]] std::size_t row_major_offset(const Shape& shape,
                                           std::span<const std::size_t> index) noexcept;
// endregion: index-map

}  // namespace llmfs::tensor

/// Formats a Shape as `[a,b,c]`.
template <>
struct fmt::formatter<llmfs::tensor::Shape> : fmt::formatter<fmt::string_view> {
  /// Writes `[a,b,c]` into the context's output.
  auto format(const llmfs::tensor::Shape& shape, fmt::format_context& ctx) const
      -> decltype(ctx.out());
};
