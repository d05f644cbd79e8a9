// Chapter 8
#pragma once
/// \file
/// \brief Tensor: a shape plus contiguous row-major `double` storage (Chapter 8).

#include <cstddef>
#include <expected>
#include <initializer_list>
#include <memory>
#include <new>
#include <span>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <llmfs/tensor/error.hpp>
#include <llmfs/tensor/shape.hpp>

namespace llmfs::tensor {

// region: storage
/// `std::allocator<T>`, except that an element created without a value (`resize(n)`,
/// a count-only constructor) is default-initialised: for `double`, left as the memory
/// was instead of set to 0.0. Every element created from a value (`push_back`, a
/// `(count, value)` constructor, a copy) is the same as with `std::allocator`.
template <class T>
struct DefaultInitAllocator : std::allocator<T> {
  /// The element type.
  using value_type = T;
  /// The same allocator for another element type (not std::allocator<U>'s).
  template <class U>
  struct rebind {
    /// DefaultInitAllocator of `U`.
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() noexcept = default;
  /// From the allocator of another element type: stateless, nothing to copy.
  template <class U>
  DefaultInitAllocator(const DefaultInitAllocator<U>& /*other*/) noexcept {}
  /// No value: default-initialisation (no write for a trivial type).
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  /// A value or constructor arguments: exactly std::allocator's construction.
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

/// A tensor's elements: a `std::vector<double>` that can grow without zeroing what it
/// adds (Tensor::uninitialized()), so that a kernel that writes every element does not
/// pay for a fill first.
using Storage = std::vector<double, DefaultInitAllocator<double>>;
// endregion: storage

// region: tensor-class
/// A dense tensor of `double`: a Shape and its elements in row-major (C) order.
///
/// Element `(i0, i1, ..., ik)` lives at `Σ i_a · stride_a` with
/// row_major_strides(shape()). Every operation returns a new contiguous tensor; there
/// are no aliasing views. A Tensor formats with fmt as `shape:[2,2]
/// values:[1.000000,2.000000,3.000000,4.000000]`.
class Tensor {
 public:
  /// The rank-0 tensor holding 0.0.
  Tensor();

  /// A tensor from its shape and row-major values.
  /// \return TensorErrorCode::size_mismatch if `values.size()` differs from the element
  ///         count, TensorErrorCode::element_count_overflow if that count overflows.
  [[nodiscard]] static std::expected<Tensor, TensorError> from(
      Shape shape, std::vector<double> values);
  /// The same from storage built as a Storage (no copy of the values; same errors).
  [[nodiscard]] static std::expected<Tensor, TensorError> from_storage(Shape shape,
                                                                       Storage values);
  /// A tensor of zeros. Precondition: the element count fits (checked_element_count()
  /// succeeds). Every library caller checks it first, or builds the shape from an
  /// existing tensor's; breaking it is a library bug, so it aborts with a message
  /// instead of throwing.
  [[nodiscard]] static Tensor zeros(Shape shape);
  /// A tensor with every element equal to `value` (same precondition as zeros()).
  [[nodiscard]] static Tensor full(Shape shape, double value);
  /// A tensor whose elements are unspecified until written, for a kernel that writes
  /// every element before anything reads one (chapter 12's softmax rows, chapter 42's
  /// product and fused attention); reading one first is a bug. Builds without NDEBUG
  /// (the sanitizer preset, asan) fill it with quiet NaN, so that a skipped element
  /// shows up in a test's comparison. Same precondition as zeros().
  [[nodiscard]] static Tensor uninitialized(Shape shape);
  /// The rank-0 tensor holding `value`.
  [[nodiscard]] static Tensor scalar(double value);
  // endregion: tensor-class
  // region: tensor-members

  /// The shape.
  [[nodiscard]] const Shape& shape() const noexcept { return shape_; }
  /// Number of axes.
  [[nodiscard]] std::size_t rank() const noexcept { return shape_.rank(); }
  /// Number of elements (1 for rank 0, 0 if any axis is empty).
  [[nodiscard]] std::size_t size() const noexcept { return values_.size(); }
  /// The elements in row-major order.
  [[nodiscard]] std::span<const double> values() const noexcept { return values_; }
  /// The elements in row-major order, writable (the shape cannot change).
  [[nodiscard]] std::span<double> mutable_values() noexcept { return values_; }
  // endregion: tensor-members
  // region: take-values
  /// Moves the storage out (Chapter 9's reshape of a tensor the caller gives up),
  /// leaving this tensor empty, of shape `[0]`, so that its shape and storage agree.
  [[nodiscard]] Storage take_values() && {
    Storage out = std::move(values_);
    values_.clear();
    shape_ = Shape{0};
    return out;
  }
  // endregion: take-values
  // region: tensor-at

  /// Checked element access by multi-index, e.g. `t.at({0, 2, 1})`.
  /// \return TensorErrorCode::index_out_of_range if the index rank differs from rank()
  ///         or an entry is not below its axis length.
  [[nodiscard]] std::expected<double, TensorError> at(
      std::span<const std::size_t> index) const;
  /// Checked element access by a braced multi-index (see the span overload).
  [[nodiscard]] std::expected<double, TensorError> at(
      std::initializer_list<std::size_t> index) const {
    return at(std::span<const std::size_t>(index.begin(), index.size()));
  }

  /// Equal shapes and elementwise `==` values (so NaN never compares equal, and 0.0 ==
  /// -0.0).
  friend bool operator==(const Tensor&, const Tensor&) = default;

 private:
  Tensor(Shape shape, Storage values);
  Shape shape_;     // the axis lengths
  Storage values_;  // element (i0, …, ik) at row_major_offset(shape_, i)
};
// endregion: tensor-at

/// The largest element count a Tensor can store (`Storage::max_size()`).
/// Library code that builds a tensor from a caller's sizes checks against it before
/// allocating, so that an oversized request comes back as a typed error instead of
/// std::length_error.
[[nodiscard]] std::size_t max_element_count() noexcept;

/// The element count of `shape` when a Tensor can hold it: no overflow of
/// `std::size_t` and at most max_element_count(). The check every caller of
/// Tensor::zeros() and Tensor::full() makes on a shape it did not take from an existing
/// tensor.
/// \return TensorErrorCode::element_count_overflow naming `op` and `shape` otherwise.
[[nodiscard]] std::expected<std::size_t, TensorError> checked_element_count(
    const Shape& shape, std::string_view op);

/// True when both tensors have the same shape and every element has the same bit
/// pattern (distinguishes 0.0 from -0.0 and compares NaN payloads): the replay test's
/// notion of equal.
[[nodiscard]] bool bitwise_equal(const Tensor& a, const Tensor& b) noexcept;

/// True when both lists have the same length and every element has the same bit
/// pattern: bitwise_equal on values alone, e.g. one row of two tensors.
[[nodiscard]] bool bitwise_equal(std::span<const double> a,
                                 std::span<const double> b) noexcept;

}  // namespace llmfs::tensor

/// Formats a Tensor as `shape:[a,b] values:[v0,v1,...]`, six decimals, negative zero as
/// 0.000000.
template <>
struct fmt::formatter<llmfs::tensor::Tensor> : fmt::formatter<fmt::string_view> {
  /// Writes the tensor into the context's output.
  auto format(const llmfs::tensor::Tensor& tensor, fmt::format_context& ctx) const
      -> decltype(ctx.out());
};
