// Chapter 26
#pragma once
/// \file
/// \brief Query, key and value projections: three bias-free linear maps of one input
/// (Chapter 26), stored separately or as one combined in-projection (the PyTorch
/// appendix).

#include <cstddef>
#include <expected>
#include <optional>
#include <string_view>

#include <llmfs/autograd/tape.hpp>
#include <llmfs/core/splitmix64.hpp>
#include <llmfs/nn/error.hpp>
#include <llmfs/nn/linear.hpp>
#include <llmfs/nn/parameters.hpp>

namespace llmfs::nn {

// region: qkv-types
/// The three projections of one input `[..., in]`, each `[..., out]`.
struct QkvForward {
  autograd::TensorValue query;  ///< `Q = X·W_Q`, `[..., out]`
  autograd::TensorValue key;    ///< `K = X·W_K`, `[..., out]`
  autograd::TensorValue value;  ///< `V = X·W_V`, `[..., out]`
};

/// How the three projection matrices are stored.
enum class QkvLayout {
  separate,  ///< three matrices `W_Q, W_K, W_V`, each `[in, out]`
  combined,  ///< one matrix `W_in = [W_Q | W_K | W_V]`, `[in, 3·out]` (PyTorch's
             ///< layout)
};
// endregion: qkv-types

/// `Q = X·W_Q`, `K = X·W_K`, `V = X·W_V`, no biases (Vaswani et al. 2017 §3.2.2;
/// Chapter 26).
///
/// Both layouts give bitwise the same Q, K and V: every output element is the same dot
/// product of an input row with the same column, summed in the same order.
class QkvProjections {
 public:
  // region: qkv-create-api
  /// Creates `<prefix>.query.weight`, `<prefix>.key.weight`, `<prefix>.value.weight`,
  /// each
  /// `[in, out]`, drawn in that order (see Linear::create). A rejected call leaves
  /// `rng` unchanged. \return the errors of Linear::create.
  [[nodiscard]] static std::expected<QkvProjections, NnError> create(
      autograd::Tape& tape, std::string_view prefix, std::size_t in, std::size_t out,
      SplitMix64& rng);

  /// Projections from three exact weights, each `[in, out]` with the same shape.
  /// \return the errors of Linear::from_parameters and NamedParameters::create, or
  ///         NnErrorCode::width_mismatch (stage `"qkv projections"`).
  [[nodiscard]] static std::expected<QkvProjections, NnError> from_weights(
      NamedParameter query, NamedParameter key, NamedParameter value);

  /// Projections from one combined in-projection `W_in` `[in, 3·out]` whose column
  /// blocks
  /// `[0,out)`, `[out,2·out)`, `[2·out,3·out)` are W_Q, W_K and W_V, in that order
  /// (PyTorch's `in_proj_weight` is `W_inᵀ`). \return the errors of
  /// Linear::from_parameters, or NnErrorCode::width_mismatch when the
  ///         column count is not a multiple of 3 (stage `"qkv projections"`).
  [[nodiscard]] static std::expected<QkvProjections, NnError> from_combined(
      NamedParameter in_projection);
  // endregion: qkv-create-api

  // region: qkv-forward-api
  /// `x [..., in] -> Q, K, V [..., out]`. In the combined layout one product `x·W_in`
  /// `[..., 3·out]` is cut into three column blocks on the tape.
  /// \return the errors of Linear::forward, or NnErrorCode::autograd for the column
  /// cut.
  [[nodiscard]] std::expected<QkvForward, NnError> forward(
      const autograd::TensorValue& x) const;

  /// The layout chosen at construction.
  [[nodiscard]] QkvLayout layout() const noexcept { return layout_; }
  /// Query, key, value weights (separate), or the one in-projection (combined).
  [[nodiscard]] const NamedParameters& parameters() const noexcept {
    return parameters_;
  }
  /// `in`: the input width.
  [[nodiscard]] std::size_t input_width() const noexcept { return input_width_; }
  /// `out`: the width of each of Q, K and V.
  [[nodiscard]] std::size_t output_width() const noexcept { return output_width_; }
  // endregion: qkv-forward-api

 private:
  QkvProjections() = default;
  QkvLayout layout_ = QkvLayout::separate;
  std::optional<Linear> query_, key_, value_;  // separate layout
  std::optional<Linear> combined_;             // combined layout
  NamedParameters parameters_;
  std::size_t input_width_ = 0;
  std::size_t output_width_ = 0;
};

}  // namespace llmfs::nn
