// Chapter 15
#pragma once
/// \file
/// \brief The autograd module's one typed error (Chapters 15–16).

#include <string_view>

#include <fmt/format.h>

#include <llmfs/core/error.hpp>
#include <llmfs/tensor/error.hpp>

namespace llmfs::autograd {

/// What went wrong on the tape.
enum class AutogradErrorCode {
  tensor,               ///< the tensor operation failed; `cause` holds its TensorError
  released_input,       ///< an input's tape was released (or the handle is empty)
  different_tapes,      ///< inputs of one operation live on different tapes
  seed_shape_mismatch,  ///< backward's upstream seed shape differs from the output
                        ///< shape
  gradient_shape_mismatch,  ///< a backward closure accumulated a gradient of the wrong
                            ///< shape
  no_gradient,       ///< gradient() of a value that does not require one (a constant)
  invalid_argument,  ///< a malformed call (no parents for record_op, bad parent index)
};

/// The fixed description of a code, e.g. `"released input"`.
[[nodiscard]] std::string_view describe(AutogradErrorCode code) noexcept;

/// One typed autograd error: the kind, the operation (stage) that failed, e.g.
/// `"matmul"` or `"matmul backward"`, a detail sentence, and for
/// AutogradErrorCode::tensor the TensorError it wraps. Formats as `matmul: matmul:
/// inner dimension mismatch: [2,3] and [4,5] (3 != 4)` (stage, then cause) or `add:
/// released input`.
using AutogradError =
    StageError<AutogradErrorCode, AutogradErrorCode::tensor, tensor::TensorError>;

}  // namespace llmfs::autograd

/// Formats an AutogradError as `op: description (detail)` or `op: <cause>`.
template <>
struct fmt::formatter<llmfs::autograd::AutogradError>
    : fmt::formatter<fmt::string_view> {
  /// Writes the error into the context's output.
  auto format(const llmfs::autograd::AutogradError& error,
              fmt::format_context& ctx) const -> decltype(ctx.out());
};
