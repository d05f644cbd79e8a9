// Chapter 19
#pragma once
// Chapter 19's program: every value its report and trace print, gathered once from the
// linear layer (src/llmfs/nn/linear.hpp) on the Chapter-15 tape and Chapter 13's
// checker, and the functions that render them.

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include <llmfs/autograd/gradcheck.hpp>
#include <llmfs/tensor/tensor.hpp>

#include "../common/chapter.hpp"
#include "fixture.hpp"

namespace ch19 {

using llmfs::autograd::GradientCheckReport;
using llmfs::tensor::Tensor;
using snippets::Step;

/// The fixture's forward and backward pass: Y = X·W + b, L = Σ Y ⊙ G.
struct Pass {
  std::vector<Tensor> operands;  ///< X [2, 3], W [3, 2], b [2] and G [2, 2]
  Tensor output;                 ///< Y [2, 2]
  double loss = 0.0;             ///< Σ Y ⊙ G
  Tensor weight_gradient;        ///< ∂L/∂W = Xᵀ·G [3, 2]
  Tensor bias_gradient;          ///< ∂L/∂b = Σ_t G [2]
  Tensor input_gradient;         ///< ∂L/∂X = G·Wᵀ [2, 3]
  std::size_t parameters = 0;    ///< in·out + out
  GradientCheckReport check{};   ///< central differences on (X, W, b)
};

/// The square-matrix trap: the same input through the right and the wrong layout.
struct Trap {
  Tensor right;            ///< X·W with W stored [in, out]
  Tensor wrong;            ///< X·Wᵀ: PyTorch's [out, in] weight taken as [in, out]
  std::string non_square;  ///< the same mistake on the fixture's [3, 2] weight: refused
};

/// The answers of the chapter's exercises, computed.
struct Exercises {
  std::size_t wide_with_bias = 0;     ///< 1: parameters of a 64 → 256 layer with bias
  std::size_t wide_without_bias = 0;  ///< 1: the same layer without bias
  Tensor probe;                       ///< 2: the fixture's layer on e₂ = (0, 0, 1)
  double symmetric_difference = 0.0;  ///< 3: max |X·S − X·Sᵀ| for a symmetric S
};

/// Everything the report and the trace print.
struct Evidence {
  Pass pass;                                       ///< the fixture
  Trap trap;                                       ///< the square-matrix trap
  std::vector<std::array<std::string, 2>> errors;  ///< name and the error text
  Exercises exercises;                             ///< the exercise answers
};

/// The fixture's pass: forward, one backward pass seeded with G, one gradient check.
[[nodiscard]] Step<Pass> run_fixture();
/// The square weight in both layouts, and the non-square one refused.
[[nodiscard]] Step<Trap> run_trap();
/// The refused calls: name and error text.
[[nodiscard]] std::vector<std::array<std::string, 2>> refusals();
/// The exercise answers.
[[nodiscard]] Step<Exercises> solve_exercises();
/// Runs the whole chapter once.
[[nodiscard]] Step<Evidence> gather();

/// The report, one `key=value` line per fact.
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The trace records the diagram is drawn from.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch19
