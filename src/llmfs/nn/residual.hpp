// Chapter 24
#pragma once
/// \file
/// \brief The residual connection `y = x + f(x)` (He et al. 2016; Chapter 24).

#include <expected>
#include <functional>
#include <span>
#include <string_view>

#include <llmfs/autograd/tape.hpp>
#include <llmfs/nn/error.hpp>

namespace llmfs::nn {

// region: residual-api
/// A residual branch f: any computation `[..., d] -> [..., d]` recorded on the tape
/// (a Linear then SiLU here; attention or a feed-forward block in Chapter 31).
using ResidualBranch = std::function<std::expected<autograd::TensorValue, NnError>(
    const autograd::TensorValue& x)>;

/// `y = x + f(x)`, `[..., d] -> [..., d]`: the branch's output added to its own input
/// (He et al. 2016). The sum is recorded as one tape add, so backward gives x the
/// upstream gradient twice: once unchanged along the identity path and once through f.
/// \param name the block's name, the stage of every error (`residual <name>`).
/// \param x the input `[..., d]`, used twice: by f and by the sum.
/// \param f the branch.
/// \return the branch's own error with its stage prefixed by `residual <name>: `;
///         NnErrorCode::branch_shape when f's output shape is not x's (no broadcasting:
///         a sum that grew the shape would not be a residual); NnErrorCode::autograd
///         wrapping the tape error (a released tape, or f on another tape).
[[nodiscard]] std::expected<autograd::TensorValue, NnError> residual(
    std::string_view name, const autograd::TensorValue& x, const ResidualBranch& f);

/// The branches `f_1 … f_L` applied in order to `x [..., d]`: with `identity`,
/// `x ← x + f_i(x)` (a residual stack); without, `x ← f_i(x)` (a plain stack). Block i
/// (from 0) is named after `name` and i, e.g. `stack.0`.
/// \param name the stack's name. \param x the input `[..., d]`. \param branches the
/// blocks' branches, bottom first. \param identity whether to keep the identity path.
/// \return residual()'s errors, or a branch's own error with its stage prefixed by the
/// block's name, e.g. `stack.0: `.
[[nodiscard]] std::expected<autograd::TensorValue, NnError> stack(
    std::string_view name, const autograd::TensorValue& x,
    std::span<const ResidualBranch> branches, bool identity);
// endregion: residual-api

}  // namespace llmfs::nn
