// Chapter 33
#include <cmath>

#include <llmfs/training/selection.hpp>

namespace llmfs::training {

// region: selection-offer
bool BestStep::offer(std::size_t step, double validation_loss,
                     std::span<const tensor::Tensor> values) {
  // Strictly lower wins: a tie keeps the earlier, and a NaN compares false
  const bool better = step_ ? validation_loss < loss_ : !std::isnan(validation_loss);
  if (!better) return false;
  step_ = step;
  loss_ = validation_loss;
  values_.assign(values.begin(), values.end());  // a copy: training goes on
  return true;
}
// endregion: selection-offer

}  // namespace llmfs::training
