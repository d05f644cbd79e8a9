// Chapter 24
#pragma once
// Chapter 24's program: every value its report and trace print, gathered once from
// nn/residual.hpp, nn/linear.hpp and Chapter 13's checker, and the functions that
// render them.

#include <array>
#include <string>
#include <vector>

#include <llmfs/autograd/gradcheck.hpp>

#include "../common/chapter.hpp"
#include "fixture.hpp"

namespace ch24 {

using llmfs::autograd::GradientCheckReport;
using snippets::Step;

/// The fixture stack, forward and backward, with or without the identity path.
struct Pass {
  std::vector<double> output;          ///< x after kDepth blocks, [1, 2]
  std::vector<double> input_gradient;  ///< ∂(Σ output)/∂x
  GradientCheckReport check{};         ///< central differences on (x, W)
};

/// One row of the measured table: both stacks at one depth.
struct DepthRow {
  std::size_t depth = 0;                ///< blocks in the stack
  std::array<double, 2> input_norm{};   ///< ‖∂L/∂x‖: plain, residual
  std::array<double, 2> weight_norm{};  ///< ‖∂L/∂W₁‖ of the bottom block: plain, residual
  std::array<double, 2> output_rms{};   ///< RMS of the top's output: plain, residual
};

/// Everything the report and the trace print.
struct Evidence {
  std::array<Pass, 2> fixture;                     ///< plain, residual
  std::vector<DepthRow> table;                     ///< one row per kDepths entry
  std::vector<std::array<std::string, 2>> errors;  ///< name and the error text
  std::vector<double> cancelled_gradient;          ///< exercise 1: W = −I
  std::size_t plain_depth_below = 0;  ///< exercise 2: first depth with gradient < 1e-6
};

/// The fixture stack with weight `w` and `depth` blocks, plain or residual.
[[nodiscard]] Step<Pass> run_fixture(const std::vector<double>& w, std::size_t depth,
                                     bool identity);
/// Both stacks at every depth of kDepths.
[[nodiscard]] Step<std::vector<DepthRow>> measure_depths();
/// The refused calls: name and error text.
[[nodiscard]] std::vector<std::array<std::string, 2>> refusals();
/// Runs the whole chapter once.
[[nodiscard]] Step<Evidence> gather();

/// The report, one `key=value` line per fact.
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The trace records the diagram is drawn from.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch24
