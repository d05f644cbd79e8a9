// Chapter 25
#pragma once
// Chapter 25's program: every value its report and trace print, gathered once from
// nn/rms_norm.hpp and Chapter 13's checker, and the functions that render them.

#include <array>
#include <string>
#include <vector>

#include <llmfs/autograd/gradcheck.hpp>

#include "../common/chapter.hpp"
#include "fixture.hpp"

namespace ch25 {

using llmfs::autograd::GradientCheckReport;
using snippets::Step;

/// The fixture's forward and backward pass, loss Σ y.
struct Pass {
  std::vector<double> rms;             ///< r per row
  std::vector<double> output;          ///< y, [2, 4]
  std::vector<double> input_gradient;  ///< ∂L/∂x
  std::vector<double> gain_gradient;   ///< ∂L/∂g
  GradientCheckReport check{};         ///< central differences on (x, g)
};

/// The four normalizations of one row (gain 1).
struct VariantRow {
  std::string input;  ///< kVariantInputs' name
  std::array<std::array<double, 4>, 4>
      values{};  ///< rms_norm, eps_outside, variance, layer_norm
};

/// Everything the report and the trace print.
struct Evidence {
  Pass pass;                                       ///< the fixture
  std::vector<VariantRow> variants;                ///< one per kVariantInputs entry
  std::vector<std::array<std::string, 2>> errors;  ///< name and the error text
  std::array<std::vector<double>, 2> scaled;  ///< exercise 1: row 0 times 10, 10⁻⁴
  double radial_gradient = 0.0;               ///< exercise 2: x·∂L/∂x, row 0
};

/// The variants' names, in VariantRow::values order.
inline constexpr std::array<std::string_view, 4> kVariantNames = {
    "rms_norm", "eps_outside", "variance", "layer_norm"};

/// The fixture's pass on rows `x` [rows, 4].
[[nodiscard]] Step<Pass> run_fixture(const std::vector<double>& x);
/// The four normalizations of every variant input.
[[nodiscard]] Step<std::vector<VariantRow>> compare_variants();
/// The refused calls: name and error text.
[[nodiscard]] std::vector<std::array<std::string, 2>> refusals();
/// Runs the whole chapter once.
[[nodiscard]] Step<Evidence> gather();

/// The report, one `key=value` line per fact.
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The trace records the diagram is drawn from.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch25
