// Chapter 15
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

}  // namespace llmfs::autograd

auto fmt::formatter<llmfs::autograd::AutogradError>::format(
    const llmfs::autograd::AutogradError& error, fmt::format_context& ctx) const
    -> decltype(ctx.out()) {
  auto out = ctx.out();
  if (error.code == llmfs::autograd::AutogradErrorCode::tensor && error.cause) {
    out = fmt::format_to(out, "{}: {}", error.stage, *error.cause);
  } else {
    out = fmt::format_to(out, "{}: {}", error.stage, describe(error.code));
    if (error.cause) out = fmt::format_to(out, ": {}", *error.cause);
  }
  if (!error.detail.empty()) out = fmt::format_to(out, " ({})", error.detail);
  return out;
}
