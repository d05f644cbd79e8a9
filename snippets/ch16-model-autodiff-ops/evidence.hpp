// Chapter 16
#pragma once
// Chapter 16's program: every value its report and trace print, gathered once from the
// model ops (src/llmfs/autograd/model_ops.hpp) on the Chapter-15 tape and Chapter 13's
// checker, and the functions that render them.

#include <array>
#include <string>
#include <vector>

#include <llmfs/autograd/gradcheck.hpp>
#include <llmfs/autograd/model_ops.hpp>

#include "../common/chapter.hpp"
#include "fixture.hpp"

namespace ch16 {

using llmfs::autograd::GradientCheckReport;
using llmfs::autograd::TokenGrid;
using snippets::Step;

/// The fixture's forward and backward pass: E → embedding → h·W → cross-entropy.
struct Pass {
  std::vector<double> hidden;           ///< h = E[ids], [1, 2, 2]
  std::vector<double> logits;           ///< z = h·W, [1, 2, 3]
  double loss = 0.0;                    ///< mean cross-entropy over the 2 positions
  std::vector<double> logit_gradient;   ///< ∂L/∂z = (softmax − one-hot)/N
  std::vector<double> table_gradient;   ///< ∂L/∂E, scatter-added rows
  std::vector<double> output_gradient;  ///< ∂L/∂W
  GradientCheckReport check{};          ///< central differences on (E, W)
};

/// One op's gradient check on the fixture's numbers.
struct OpCheck {
  std::string op;               ///< the op's name
  GradientCheckReport check{};  ///< Chapter 13's verdict
};

/// The answers of the chapter's exercises, computed.
struct Exercises {
  std::vector<double> repeated_table_gradient;  ///< 1: ∂L/∂E when the ids are [1, 1]
  double silu_at_zero = 0.0;                    ///< 2: SiLU(0)
  double silu_slope_at_zero = 0.0;              ///< 2: SiLU'(0)
  double uniform_loss = 0.0;  ///< 3: cross-entropy of zero logits, V = 3
};

/// Everything the report and the trace print.
struct Evidence {
  Pass pass;                             ///< the fixture, forward and backward
  std::vector<OpCheck> checks;           ///< each op checked alone
  double extreme_loss = 0.0;             ///< fused loss at logits ±1e4
  std::vector<double> extreme_gradient;  ///< its gradient
  double naive_extreme_loss = 0.0;       ///< −log(exp(z_t)/Σ exp z), unshifted
  std::vector<std::array<std::string, 2>> errors;  ///< name and the error text
  Exercises exercises;                             ///< the exercise answers
};

/// The fixture's pass with inputs `ids`: forward, one backward pass, one check.
[[nodiscard]] Step<Pass> run_fixture(const TokenGrid& ids);
/// Each model op alone, checked against central differences on fixture-sized inputs.
[[nodiscard]] Step<std::vector<OpCheck>> check_ops();
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

}  // namespace ch16
