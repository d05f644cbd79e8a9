// Chapter 33
#pragma once
/// \file
/// \brief Model selection by validation loss (early stopping's rule, Prechelt, "Early
/// stopping — but when?", 1998): keep a copy of the parameters at the evaluated step
/// with the lowest validation loss, which may be earlier than the last (Chapter 33).

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include <llmfs/tensor/tensor.hpp>

namespace llmfs::training {

// region: selection-class
/// The best evaluated step so far and a copy of its parameters.
class BestStep {
 public:
  /// Offers the validation loss of `step` and the parameters it was measured with.
  /// Keeps them, copied, when the loss is strictly below every earlier one (the first
  /// finite loss always is); a tie keeps the earlier step, and a NaN is never best.
  /// \return whether this step is now the best.
  bool offer(std::size_t step, double validation_loss,
             std::span<const tensor::Tensor> values);

  /// Whether any step has been kept.
  [[nodiscard]] bool has_value() const noexcept { return step_.has_value(); }
  /// The kept step (0 when none is kept).
  [[nodiscard]] std::size_t step() const noexcept { return step_.value_or(0); }
  /// Its validation loss in nats per token (0 when none is kept).
  [[nodiscard]] double loss() const noexcept { return loss_; }
  /// The parameters at that step, in the order they were offered.
  [[nodiscard]] std::span<const tensor::Tensor> values() const noexcept {
    return values_;
  }

 private:
  std::optional<std::size_t> step_;
  double loss_ = 0.0;
  std::vector<tensor::Tensor> values_;
};
// endregion: selection-class

}  // namespace llmfs::training
