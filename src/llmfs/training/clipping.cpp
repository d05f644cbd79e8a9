// Chapter 33
#include <algorithm>

#include <llmfs/nn/gradient_norm.hpp>
#include <llmfs/training/clipping.hpp>

namespace llmfs::training {

// region: clip-body
ClipReport clip_by_global_norm(std::span<tensor::Tensor> gradients,
                               double max_norm) noexcept {
  const double norm = nn::global_norm(gradients);
  // One factor for every gradient: the direction of the whole step is kept
  const double scale = std::min(1.0, max_norm / (norm + kClipGuard));
  for (tensor::Tensor& gradient : gradients)
    for (double& g : gradient.mutable_values())
      g *= scale;
  return {norm, scale};
}
// endregion: clip-body

}  // namespace llmfs::training
