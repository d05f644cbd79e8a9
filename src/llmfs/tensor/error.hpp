// Chapter 8
#pragma once
/// \file
/// \brief The tensor module's one typed error (Chapters 8–12).

#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include <llmfs/tensor/shape.hpp>

namespace llmfs::tensor {

/// What went wrong in a tensor operation.
enum class TensorErrorCode {
  size_mismatch,           ///< value count differs from the shape's element count
  element_count_overflow,  ///< the shape's element count overflows `std::size_t`
  index_out_of_range,  ///< a checked index has the wrong rank or an entry past its axis
  axis_out_of_range,   ///< an axis argument is not below the rank
  rank_too_small,      ///< the operation needs more axes (matmul: 2, softmax: 1)
  broadcast_mismatch,  ///< shapes cannot be broadcast together (numpy rules)
  inner_dimension_mismatch,  ///< matmul: columns of the left differ from rows of the
                             ///< right
  reduce_mismatch,   ///< sum_to: the target shape does not broadcast to the input shape
  non_finite_input,  ///< softmax: a NaN or +∞ logit
  fully_masked_row,  ///< softmax: every logit of a row is −∞ (no key is allowed)
  empty_reduction,   ///< reduce_mean, reduce_max: the reduced axis has length 0
};

/// The fixed description of a code, e.g. `"fully masked row"`.
[[nodiscard]] std::string_view describe(TensorErrorCode code) noexcept;

/// One typed tensor error: the code, the operation that failed, the shapes involved and
/// a detail sentence. Formats as `matmul: inner dimension mismatch: [2,3] and [4,5] (3
/// != 4)`.
struct TensorError {
  TensorErrorCode code;  ///< what went wrong
  std::string op;        ///< the operation name, e.g. `"matmul"`
  std::vector<Shape>
      shapes;          ///< the operand shapes (and target shape, where there is one)
  std::string detail;  ///< extra facts (axis, index, row); may be empty

  /// Equal when every field is equal (useful in tests).
  friend bool operator==(const TensorError&, const TensorError&) = default;
};

}  // namespace llmfs::tensor

/// Formats a TensorError as `op: description: shapes (detail)`.
template <>
struct fmt::formatter<llmfs::tensor::TensorError> : fmt::formatter<fmt::string_view> {
  /// Writes the error into the context's output.
  auto format(const llmfs::tensor::TensorError& error, fmt::format_context& ctx) const
      -> decltype(ctx.out());
};

/// Formats a TensorErrorCode as its description.
template <>
struct fmt::formatter<llmfs::tensor::TensorErrorCode>
    : fmt::formatter<fmt::string_view> {
  /// Writes the description into the context's output.
  auto format(llmfs::tensor::TensorErrorCode code, fmt::format_context& ctx) const
      -> decltype(ctx.out());
};
