// Chapter 24
#include <string>

#include <fmt/format.h>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/core/try.hpp>
#include <llmfs/nn/residual.hpp>

namespace llmfs::nn {

namespace {

// region: residual-checks
// A branch's own error, its stage prefixed with the block's, so a failure deep in a
// stack names the block it happened in.
[[nodiscard]] NnError error_in_block(NnError error, std::string_view block) {
  error.stage = fmt::format("{}: {}", block, error.stage);
  return error;
}

// The branch kept its input's shape exactly: no broadcasting.
[[nodiscard]] std::expected<void, NnError> check_branch_shape(
    const tensor::Shape& input, const tensor::Shape& output, std::string_view stage) {
  if (output == input) return {};
  return reject(NnErrorCode::branch_shape, std::string(stage),
                fmt::format("input {}, branch output {}", input, output));
}
// endregion: residual-checks

}  // namespace

// region: residual
std::expected<autograd::TensorValue, NnError> residual(std::string_view name,
                                                       const autograd::TensorValue& x,
                                                       const ResidualBranch& f) {
  // x: [..., d] -> x + f(x): [..., d]
  const std::string stage = fmt::format("residual {}", name);
  auto branch = f(x);
  if (!branch) return std::unexpected(error_in_block(std::move(branch.error()), stage));
  LLMFS_TRY(check_branch_shape(x.shape(), branch->shape(), stage));
  // The identity path: x itself, added to what the branch made of it.
  return LLMFS_TRY_AT(stage, autograd::add(x, *branch));
}
// endregion: residual

// region: stack
std::expected<autograd::TensorValue, NnError> stack(
    std::string_view name, const autograd::TensorValue& x,
    std::span<const ResidualBranch> branches, bool identity) {
  // x: [..., d] -> [..., d], one branch after another
  autograd::TensorValue h = x;
  for (std::size_t i = 0; i < branches.size(); ++i) {
    const std::string block = fmt::format("{}.{}", name, i);
    if (identity) {
      h = LLMFS_TRY(residual(block, h, branches[i]));
      continue;
    }
    auto next = branches[i](h);
    if (!next) return std::unexpected(error_in_block(std::move(next.error()), block));
    h = *next;
  }
  return h;
}
// endregion: stack

}  // namespace llmfs::nn
