// Chapter 33
#pragma once
/// \file
/// \brief Global-norm gradient clipping (Pascanu, Mikolov and Bengio, "On the
/// difficulty of training recurrent neural networks", ICML 2013): when the norm of all
/// gradients together exceeds a bound c, every gradient is scaled by the same factor,
/// so the step keeps its direction and only its length is cut (Chapter 33).

#include <span>

#include <llmfs/tensor/tensor.hpp>

namespace llmfs::training {

/// What one clipping did: the norm it measured and the factor it applied.
struct ClipReport {
  double norm = 0.0;  ///< ‖g‖ = √(Σ g²) over every element of every gradient, before
  double scale = 1.0;  ///< the factor every gradient was multiplied by (1: unclipped)
};

/// The guard PyTorch adds to the norm before dividing (`clip_grad_norm_`, 1e-6).
inline constexpr double kClipGuard = 1e-6;

/// Scales every gradient by s = min(1, c / (‖g‖ + 10⁻⁶)), with ‖g‖ Chapter 24's
/// nn::global_norm(); so ‖g‖ ≤ c afterwards and the direction is unchanged. The rule
/// and its order of operations are `torch.nn.utils.clip_grad_norm_`'s (PyTorch 1.13).
/// Precondition: c > 0 (the trainer checks it).
ClipReport clip_by_global_norm(std::span<tensor::Tensor> gradients,
                               double max_norm) noexcept;

}  // namespace llmfs::training
