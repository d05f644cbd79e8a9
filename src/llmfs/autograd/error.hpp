#pragma once
/// \file
/// \brief The autograd module's one typed error (Chapters 15–16).

#include <optional>
#include <string>
#include <string_view>

#include <fmt/format.h>

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

/// One typed autograd error: the kind, the operation (stage) that failed, a detail
/// sentence, and for AutogradErrorCode::tensor the TensorError it wraps. Formats as
/// `matmul: matmul: inner dimension mismatch: [2,3] and [4,5] (3 != 4)` (stage, then
/// cause) or `add: released input`.
struct AutogradError {
  AutogradErrorCode code;  ///< what went wrong
  std::string op;          ///< the stage, e.g. `"matmul"` or `"matmul backward"`
  std::string detail;      ///< extra facts; may be empty
  std::optional<tensor::TensorError> cause;  ///< the lower error, for code == tensor

  /// Wraps a tensor error with the autograd op that failed.
  [[nodiscard]] static AutogradError from_tensor(std::string_view op,
                                                 tensor::TensorError cause);
  /// Equal when every field is equal (useful in tests).
  friend bool operator==(const AutogradError&, const AutogradError&) = default;
};

/// Writes `stage: description (detail): cause` into `ctx`, the one text shape shared by
/// the stage errors of the modules above the tape (nn::NnError,
/// attention::AttentionError, attention::RopeError, attention::HeadLayoutError); the
/// detail and the cause are omitted when empty. \param ctx the fmt context to write
/// into. \param stage the stage that failed, e.g. "RoPE rotate". \param description the
/// error code's description. \param detail extra facts (shapes, sizes), or empty.
/// \param cause the lower tape error, if any.
/// \return the output iterator after the text.
fmt::format_context::iterator format_stage_error(
    fmt::format_context& ctx, std::string_view stage, std::string_view description,
    std::string_view detail, const std::optional<AutogradError>& cause);

}  // namespace llmfs::autograd

/// Formats an AutogradError as `op: description (detail)` or `op: <cause>`.
template <>
struct fmt::formatter<llmfs::autograd::AutogradError>
    : fmt::formatter<fmt::string_view> {
  /// Writes the error into the context's output.
  auto format(const llmfs::autograd::AutogradError& error,
              fmt::format_context& ctx) const -> decltype(ctx.out());
};
