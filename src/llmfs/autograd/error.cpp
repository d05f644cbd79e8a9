#include <llmfs/autograd/error.hpp>

namespace llmfs::autograd {

std::string_view describe(AutogradErrorCode code) noexcept {
  switch (code) {
    case AutogradErrorCode::tensor: return "tensor operation failed";
    case AutogradErrorCode::released_input: return "released input";
    case AutogradErrorCode::different_tapes: return "inputs live on different tapes";
    case AutogradErrorCode::seed_shape_mismatch:
      return "upstream seed shape differs from output shape";
    case AutogradErrorCode::gradient_shape_mismatch:
      return "gradient shape differs from parent shape";
    case AutogradErrorCode::no_gradient: return "value does not require a gradient";
    case AutogradErrorCode::invalid_argument: return "invalid argument";
  }
  return "unknown autograd error";
}

AutogradError AutogradError::from_tensor(std::string_view op,
                                         tensor::TensorError cause) {
  return AutogradError{
      AutogradErrorCode::tensor, std::string(op), {}, std::move(cause)};
}

}  // namespace llmfs::autograd

auto fmt::formatter<llmfs::autograd::AutogradError>::format(
    const llmfs::autograd::AutogradError& error, fmt::format_context& ctx) const
    -> decltype(ctx.out()) {
  auto out = ctx.out();
  if (error.code == llmfs::autograd::AutogradErrorCode::tensor && error.cause) {
    out = fmt::format_to(out, "{}: {}", error.op, *error.cause);
  } else {
    out = fmt::format_to(out, "{}: {}", error.op, describe(error.code));
    if (error.cause) out = fmt::format_to(out, ": {}", *error.cause);
  }
  if (!error.detail.empty()) out = fmt::format_to(out, " ({})", error.detail);
  return out;
}

fmt::format_context::iterator llmfs::autograd::format_stage_error(
    fmt::format_context& ctx, std::string_view stage, std::string_view description,
    std::string_view detail, const std::optional<AutogradError>& cause) {
  auto out = fmt::format_to(ctx.out(), "{}: {}", stage, description);
  if (!detail.empty()) out = fmt::format_to(out, " ({})", detail);
  if (cause) out = fmt::format_to(out, ": {}", *cause);
  return out;
}
