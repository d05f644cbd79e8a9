// Chapter 24
#pragma once
/// \file
/// \brief The Euclidean norm of gradients: how much signal reaches a layer (Chapter
/// 24's depth table), and the quantity gradient clipping bounds in training.

#include <expected>
#include <span>

#include <llmfs/nn/error.hpp>
#include <llmfs/nn/parameters.hpp>
#include <llmfs/tensor/tensor.hpp>

namespace llmfs::nn {

// region: gradient-norm-api
/// `√(Σ t²)` over every element of every tensor in `tensors` (0 for none): the global
/// norm, as one vector of all the elements. Summed in order, so the result is exact to
/// the bit on every run.
[[nodiscard]] double global_norm(std::span<const tensor::Tensor> tensors) noexcept;

/// The global norm of the gradients of `parameters` (a parameter without a gradient
/// counts as zeros), e.g. the gradient norm of one layer.
/// \return NnErrorCode::autograd wrapping the tape error (a released tape), stage
///         `gradient norm <parameter name>`.
[[nodiscard]] std::expected<double, NnError> gradient_norm(
    std::span<const NamedParameter> parameters);
// endregion: gradient-norm-api

}  // namespace llmfs::nn
