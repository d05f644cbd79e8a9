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

/// The fixture stack, plain or residual: its top, ∂(Σ top)/∂x, the checker's verdict.
struct Pass {
  std::vector<double> output;
  std::vector<double> input_gradient;
  GradientCheckReport check{};
};

/// One row of the table, each value [plain, residual]: ‖∂L/∂x‖, the bottom block's
/// gradient norm, the RMS of the top's output.
struct DepthRow {
  std::size_t depth = 0;
  std::array<double, 2> input_norm{}, bottom_norm{}, output_rms{};
};

/// Everything the report and the trace print.
struct Evidence {
  std::array<Pass, 2> fixture;                     ///< plain, residual
  std::vector<DepthRow> table;                     ///< one row per kDepths entry
  std::vector<std::array<std::string, 2>> errors;  ///< name and the error text
  std::vector<double> cancelled_gradient;          ///< exercise 1: W = −I
  std::size_t plain_depth_below = 0;               ///< exercise 2
};

/// The fixture stack with weight `w` and `depth` blocks, plain or residual.
[[nodiscard]] Step<Pass> run_fixture(const std::vector<double>& w, std::size_t depth,
                                     bool identity);
/// Runs the whole chapter once.
[[nodiscard]] Step<Evidence> gather();  /// The report, one `key=value` line per fact.
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The trace records the diagram is drawn from.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch24
