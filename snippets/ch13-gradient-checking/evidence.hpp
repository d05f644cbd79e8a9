// Chapter 13
#pragma once
// Chapter 13's program: every value its report and trace print, gathered once from the
// library's gradient checker (src/llmfs/autograd/gradcheck.hpp), and the functions that
// render them.

#include <array>
#include <cstddef>
#include <expected>
#include <span>
#include <string>
#include <vector>

#include <llmfs/autograd/gradcheck.hpp>
#include <llmfs/tensor/error.hpp>
#include <llmfs/tensor/tensor.hpp>

#include "../common/chapter.hpp"
#include "fixture.hpp"

namespace ch13 {

using llmfs::autograd::GradientCheckReport;
using llmfs::tensor::Tensor;
using snippets::Step;

/// What every checked function returns: a one-element tensor or a tensor error.
using Value = std::expected<Tensor, llmfs::tensor::TensorError>;
/// The inputs a checked function receives.
using Inputs = std::span<const Tensor>;

/// One row of the error table: exp at x = 1 with step δ.
struct StepRow {
  double step = 0.0;        ///< δ (here also h, since |x| ≤ 1)
  double run = 0.0;         ///< (x + h) − (x − h), the step actually taken
  double numeric = 0.0;     ///< the central difference
  double error = 0.0;       ///< |numeric − e|
  double truncation = 0.0;  ///< the model's truncation term h²·e/6
  double rounding = 0.0;    ///< the model's rounding term ε·e/(2h)
};

/// What the scale experiments measured.
struct Scales {
  double large_checker = 0.0;     ///< f(x) = x at 1e8: the checker's numeric derivative
  double large_fixed = 0.0;       ///< the same with h = 1e-6 fixed, divided by 2h
  bool huge_fixed_moves = false;  ///< whether 1e300 ± 1e-6 differs from 1e300
  double huge_h = 0.0;            ///< the scaled h at 1e300
  GradientCheckReport huge;       ///< f(x) = x checked at 1e300
  GradientCheckReport exp_thirty;         ///< exp checked at 30 with the defaults
  bool exp_thirty_absolute_only = false;  ///< whether atol alone would accept it
  double exp_thirty_truncation = 0.0;  ///< h²/6 at 30: the truncation term, relative
  double exp_one_relative = 0.0;       ///< the checker's relative error for exp at 1
};

/// ReLU checked at its kink.
struct Kink {
  double numeric = 0.0;             ///< the central difference at 0
  GradientCheckReport left_slope;   ///< analytic 0 (the slope on the left)
  GradientCheckReport right_slope;  ///< analytic 1 (the slope on the right)
};

/// The answers of the chapter's exercises, computed.
struct Exercises {
  std::array<double, 2>
      forward_error{};             ///< 1: |forward difference − e| at kForwardSteps
  double cubic_numeric = 0.0;      ///< 2: central difference of x³ at 1, δ = 0.1
  double near_kink_numeric = 0.0;  ///< 3: ReLU at 1e-7 with the default step
};

/// Everything the report and the trace print.
struct Evidence {
  std::array<double, 2> numeric{};      ///< the fixture's numeric derivatives
  double shifted_numeric = 0.0;         ///< ∂f/∂a at (kShiftedA, kB), numerically
  double shifted_rounding_bound = 0.0;  ///< ε·|f|/(2h) there: the rounding bound
  std::size_t calls = 0;                ///< how often the check called f
  GradientCheckReport correct;          ///< kGradient checked
  GradientCheckReport wrong;            ///< kWrongGradient checked
  GradientCheckReport nan;              ///< (NaN, 9) checked
  std::vector<StepRow> table;           ///< one row per kSteps
  double optimum_step = 0.0;  ///< (3ε/2)^(1/3), the model's best h for exp at 1
  Scales scales;              ///< the scale experiments
  Kink kink;                  ///< ReLU at 0
  std::vector<std::array<std::string, 2>>
      errors;           ///< name and the checker's error text
  Exercises exercises;  ///< the exercise answers
};

/// f(a, b) = a²·b on two one-element inputs.
[[nodiscard]] Value fixture_function(Inputs x);
/// The fixture's numeric derivatives and its three checks (fills the first five
/// fields).
[[nodiscard]] Step<Evidence> check_fixture();
/// The error table's rows for exp at kTableX.
[[nodiscard]] std::vector<StepRow> error_table();
/// The scale experiments.
[[nodiscard]] Step<Scales> measure_scales();
/// ReLU checked at 0.
[[nodiscard]] Step<Kink> check_kink();
/// The refused checks: name and error text.
[[nodiscard]] std::vector<std::array<std::string, 2>> refusals();
/// The exercise answers.
[[nodiscard]] Exercises solve_exercises();
/// Runs the whole chapter once.
[[nodiscard]] Step<Evidence> gather();

/// The report, one `key=value` line per fact.
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The trace records the diagram is drawn from.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch13
