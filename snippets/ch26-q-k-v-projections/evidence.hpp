// Chapter 26
#pragma once
// Chapter 26's program: every value its report and trace print, gathered once from the
// Q/K/V projections (src/llmfs/nn/qkv.hpp) in both layouts, on the Chapter-15 tape and
// Chapter 13's checker, and the functions that render them.

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include <llmfs/autograd/gradcheck.hpp>
#include <llmfs/tensor/tensor.hpp>

#include "../common/chapter.hpp"
#include "fixture.hpp"

namespace ch26 {

using llmfs::autograd::GradientCheckReport;
using llmfs::tensor::Tensor;
using snippets::Step;

/// One layout's forward and backward pass on the fixture.
struct Pass {
  std::vector<Tensor> point;      ///< X, then W_Q, W_K, W_V or W_in
  std::array<Tensor, 3> outputs;  ///< Q, K, V [2, 2]
  double loss = 0.0;              ///< Σ Q⊙G_Q + K⊙G_K + V⊙G_V
  std::vector<Tensor> weight_gradients;  ///< ∂L/∂W_Q, ∂L/∂W_K, ∂L/∂W_V; or ∂L/∂W_in
  Tensor input_gradient;                 ///< ∂L/∂X [2, 2]
  std::size_t parameters = 0;   ///< scalars held: 3·d²
  GradientCheckReport check{};  ///< central differences on (X, weights)
};

/// The fused matrix and what it shows.
struct Fusion {
  Tensor torch_in_proj;               ///< PyTorch's in_proj_weight = W_inᵀ [6, 2]
  bool torch_round_trip = false;      ///< in_proj_weightᵀ is W_in again, exactly
  std::size_t fixture_differing = 0;  ///< entries of Q, K, V where the layouts differ
  std::size_t gradient_differing = 0;  ///< entries where ∂W_in ≠ [∂W_Q | ∂W_K | ∂W_V]
};

/// The answers of the chapter's exercises, computed.
struct Exercises {
  std::size_t small = 0, gpt2 = 0;  ///< 1: parameters at d = 64 and d = 768, no biases
  std::size_t gpt2_biases = 0;      ///< 1: d = 768 with PyTorch's in_proj_bias
  double asymmetry = 0.0;           ///< 3: max |S − Sᵀ| for S = Q·Kᵀ
  double asymmetry_shared = 0.0;    ///< 3: the same with W_K = W_Q
};

/// Everything the report and the trace print.
struct Evidence {
  Pass separate;                                   ///< three matrices
  Pass fused;                                      ///< one matrix [d, 3·d]
  Fusion fusion;                                   ///< the two layouts compared
  std::vector<std::array<std::string, 2>> errors;  ///< name and the error text
  Exercises exercises;                             ///< the exercise answers
};

/// W_in = [W_Q | W_K | W_V]: three [in, out] matrices side by side, [in, 3·out].
[[nodiscard]] std::vector<double> fuse(const std::vector<double>& query,
                                       const std::vector<double>& key,
                                       const std::vector<double>& value, std::size_t in,
                                       std::size_t out);
/// Runs the whole chapter once: both layouts' passes, their comparison, the refusals
/// and the exercises.
[[nodiscard]] Step<Evidence> gather();

/// The report, one `key=value` line per fact.
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The trace records the diagram is drawn from.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch26
