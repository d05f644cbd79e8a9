// Chapter 16
#pragma once
/// \file
/// \brief The differentiable operations a language model needs beyond Chapter 15's
/// core: embedding lookup, SiLU, log-softmax, a fused cross-entropy over integer
/// targets, and the mean (Chapter 16). Every op records one node on the Chapter-15
/// tape with its backward closure written beside its forward pass.
///
/// Bad input is refused before anything is recorded, as AutogradErrorCode::tensor
/// wrapping a TensorError whose op names the model op:
/// TensorErrorCode::index_out_of_range for an id or target outside the vocabulary,
/// TensorErrorCode::size_mismatch for shapes that do not fit together,
/// TensorErrorCode::non_finite_input for a NaN or infinite logit.

#include <cstddef>
#include <expected>
#include <vector>

#include <llmfs/autograd/tape.hpp>
#include <llmfs/text/merges.hpp>

namespace llmfs::autograd {

// region: token-grid
/// Integer token ids laid out `[batch, time]`, row-major: id `(b, t)` is
/// `ids[b·time + t]`. Inputs to embedding() and targets of cross_entropy(). Ids are
/// data, not values on the tape: nothing differentiates with respect to them.
struct TokenGrid {
  std::size_t batch = 0;             ///< B, the number of sequences
  std::size_t time = 0;              ///< T, the positions per sequence
  std::vector<text::TokenId> ids{};  ///< B·T ids, each in [0, V)
};
// endregion: token-grid

// region: model-ops-api
/// Embedding lookup: row `ids(b, t)` of `table [V, D]` for every position, giving
/// `[B, T, D]`. Backward scatter-adds: `gtable[ids(b,t), :] += g[b, t, :]`, so a row
/// used at two positions receives the sum of both (Chapter 16; Bengio et al., 2003).
/// \return AutogradErrorCode::released_input, or AutogradErrorCode::tensor wrapping
///         TensorErrorCode::size_mismatch (table not rank 2, ids.size() ≠ B·T) or
///         TensorErrorCode::index_out_of_range (an id outside [0, V)).
[[nodiscard]] std::expected<TensorValue, AutogradError> embedding(
    const TensorValue& table, const TokenGrid& ids);

/// SiLU, `y = x·σ(x)` elementwise with σ the logistic sigmoid (Elfwing et al., 2018;
/// Hendrycks and Gimpel, 2016). Backward: `gx += g · σ(x)·(1 + x·(1 − σ(x)))`.
/// \return AutogradErrorCode::released_input (no shape can be wrong).
[[nodiscard]] std::expected<TensorValue, AutogradError> silu(const TensorValue& x);
/// The same SiLU on a plain tensor, no tape: the forward the taped op records, for
/// callers that need no gradient; same shape.
[[nodiscard]] tensor::Tensor silu(const tensor::Tensor& x);

/// Log-softmax over the last axis, `y_j = x_j − m − log Σ_k exp(x_k − m)` with m the
/// row maximum (finite for any finite logits). Backward per row: `gx_j += g_j −
/// softmax_j · Σ_k g_k`. \return AutogradErrorCode::released_input, or
/// AutogradErrorCode::tensor wrapping TensorErrorCode::rank_too_small (rank 0) or
/// TensorErrorCode::non_finite_input (a NaN or infinite logit).
[[nodiscard]] std::expected<TensorValue, AutogradError> log_softmax_last_axis(
    const TensorValue& x);
// endregion: model-ops-api

// region: loss-api
/// Cross-entropy of `logits [B, T, V]` against integer `targets [B, T]`, averaged over
/// the B·T positions, as one fused, numerically stable op: `L = (1/N) Σ_p
/// (logsumexp(z_p) − z_p[t_p])`, rank 0. Backward: `gz_p += (g/N)·(softmax(z_p) −
/// onehot(t_p))`. Every position counts: there is no ignored target (the course has no
/// padding; Chapter 5 cuts whole windows), so a negative target is out of range like
/// any other. \return AutogradErrorCode::released_input, or AutogradErrorCode::tensor
/// wrapping
///         TensorErrorCode::size_mismatch (logits not rank 3, targets not [B, T],
///         or no positions), TensorErrorCode::index_out_of_range (a target outside
///         [0, V)) or TensorErrorCode::non_finite_input (a NaN or infinite logit).
[[nodiscard]] std::expected<TensorValue, AutogradError> cross_entropy(
    const TensorValue& logits, const TokenGrid& targets);

/// The mean of all elements, rank 0. Backward: `gx += g / N` everywhere.
/// \return AutogradErrorCode::released_input, or AutogradErrorCode::tensor wrapping
///         TensorErrorCode::size_mismatch for an empty tensor (no mean).
[[nodiscard]] std::expected<TensorValue, AutogradError> mean(const TensorValue& x);
// endregion: loss-api

}  // namespace llmfs::autograd
