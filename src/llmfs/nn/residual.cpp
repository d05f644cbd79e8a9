// Chapter 24
#include <string>

#include <fmt/format.h>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/core/try.hpp>
#include <llmfs/nn/residual.hpp>

namespace llmfs::nn {

// region: residual
std::expected<autograd::TensorValue, NnError> residual(std::string_view name,
                                                       const autograd::TensorValue& x,
                                                       const ResidualBranch& f) {
  // x: [..., d] -> x + f(x): [..., d]
  const std::string stage = fmt::format("residual {}", name);
  auto branch = f(x);
  if (!branch) {
    NnError error = std::move(branch.error());
    error.stage = fmt::format("{}: {}", stage, error.stage);
    return std::unexpected(std::move(error));
  }
  if (branch->shape() != x.shape()) {
    return reject(
        NnErrorCode::branch_shape, stage,
        fmt::format("input {}, branch output {}", x.shape(), branch->shape()));
  }
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
    if (!next) {
      next.error().stage = fmt::format("{}: {}", block, next.error().stage);
      return std::unexpected(std::move(next.error()));
    }
    h = *next;
  }
  return h;
}
// endregion: stack

}  // namespace llmfs::nn
