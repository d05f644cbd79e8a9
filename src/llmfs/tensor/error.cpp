// Chapter 8
#include <llmfs/tensor/error.hpp>

namespace llmfs::tensor {

std::string_view describe(TensorErrorCode code) noexcept {
  switch (code) {
    case TensorErrorCode::size_mismatch: return "size mismatch";
    case TensorErrorCode::element_count_overflow: return "element count overflow";
    case TensorErrorCode::index_out_of_range: return "index out of range";
    case TensorErrorCode::axis_out_of_range: return "axis out of range";
    case TensorErrorCode::rank_too_small: return "rank too small";
    case TensorErrorCode::broadcast_mismatch: return "shapes do not broadcast";
    case TensorErrorCode::inner_dimension_mismatch: return "inner dimension mismatch";
    case TensorErrorCode::reduce_mismatch:
      return "target shape does not broadcast to input";
    case TensorErrorCode::non_finite_input: return "non-finite input";
    case TensorErrorCode::fully_masked_row: return "fully masked row";
    case TensorErrorCode::empty_reduction: return "reduction over an empty axis";
  }
  return "unknown tensor error";
}

}  // namespace llmfs::tensor

auto fmt::formatter<llmfs::tensor::TensorError>::format(
    const llmfs::tensor::TensorError& error, fmt::format_context& ctx) const
    -> decltype(ctx.out()) {
  auto out = fmt::format_to(ctx.out(), "{}: {}", error.op, describe(error.code));
  if (!error.shapes.empty()) {
    out = fmt::format_to(out, ": {}", fmt::join(error.shapes, " and "));
  }
  if (!error.detail.empty()) out = fmt::format_to(out, " ({})", error.detail);
  return out;
}

auto fmt::formatter<llmfs::tensor::TensorErrorCode>::format(
    llmfs::tensor::TensorErrorCode code, fmt::format_context& ctx) const
    -> decltype(ctx.out()) {
  return fmt::format_to(ctx.out(), "{}", describe(code));
}
