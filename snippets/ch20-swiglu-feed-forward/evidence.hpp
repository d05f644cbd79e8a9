// Chapter 20
#pragma once
// Chapter 20's program: every value its report and trace print, gathered once from the
// SwiGLU layer (src/llmfs/nn/swiglu.hpp) on the Chapter-15 tape and Chapter 13's
// checker, and the functions that render them.

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include <llmfs/autograd/gradcheck.hpp>
#include <llmfs/tensor/tensor.hpp>

#include "../common/chapter.hpp"
#include "fixture.hpp"

namespace ch20 {

using llmfs::autograd::GradientCheckReport;
using llmfs::tensor::Tensor;
using snippets::Step;

/// The fixture's forward and backward pass, L = Σ Y.
struct Pass {
  std::vector<Tensor> operands;  ///< X [2, 2], W₁ [2, 3], W₃ [2, 3], W₂ [3, 2]
  Tensor gate_input;             ///< A = X·W₁
  Tensor gate;                   ///< S = SiLU(A)
  Tensor up;                     ///< U = X·W₃
  Tensor hidden;                 ///< H = S ⊙ U
  Tensor output;                 ///< Y = H·W₂
  double loss = 0.0;             ///< Σ Y
  Tensor gate_input_gradient;    ///< ∂L/∂A
  Tensor up_gradient;            ///< ∂L/∂U
  std::vector<Tensor> gradients;  ///< ∂L/∂X, ∂L/∂W₁, ∂L/∂W₃, ∂L/∂W₂
  std::size_t parameters = 0;     ///< 3·d_model·d_ff
  GradientCheckReport check{};    ///< central differences on (X, W₁, W₃, W₂)
};

/// The hidden-width rule at one model width.
struct Width {
  std::size_t model_width = 0;  ///< d_model
  std::size_t multiple = 0;     ///< the rounding multiple
  std::size_t hidden_width = 0;  ///< d_ff = ⌈8·d_model/3⌉ rounded up to the multiple
  std::size_t parameters = 0;    ///< 3·d_model·d_ff
  std::size_t classic = 0;       ///< 8·d_model²: two matrices at width 4·d_model
};

/// The answers of the chapter's exercises, computed.
struct Exercises {
  std::size_t created_parameters = 0;  ///< 1: parameter_count() of a created d=64 layer
  std::size_t closed_gates = 0;        ///< 2: entries with S = 0
  std::size_t zero_up_gradients = 0;   ///< 2: entries of ∂L/∂W₃ exactly 0
  std::size_t zero_gate_gradients = 0;  ///< 2: entries of ∂L/∂W₁ exactly 0
  std::size_t llama_hidden_width = 0;   ///< 3: d_model 4096, multiple 256
};

/// Everything the report and the trace print.
struct Evidence {
  Pass pass;                           ///< the fixture
  std::vector<Width> widths;           ///< the rule at several widths
  std::size_t ungated_parameters = 0;  ///< SwiGLU at d_ff = 4·64: 3·64·256
  std::vector<std::array<std::string, 2>> errors;  ///< name and the error text
  Exercises exercises;                             ///< the exercise answers
};

/// The fixture's pass: every stage, one backward pass, one gradient check.
[[nodiscard]] Step<Pass> run_fixture();
/// The hidden-width rule at d_model = 2, 4, 64, 128 and 768 (multiple 8).
[[nodiscard]] Step<std::vector<Width>> width_table();
/// The refused calls: name and error text.
[[nodiscard]] std::vector<std::array<std::string, 2>> refusals();
/// The exercise answers.
[[nodiscard]] Step<Exercises> solve_exercises(const Pass& pass);
/// Runs the whole chapter once.
[[nodiscard]] Step<Evidence> gather();

/// The report, one `key=value` line per fact.
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The trace records the diagram is drawn from.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch20
