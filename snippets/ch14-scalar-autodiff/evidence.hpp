// Chapter 14
#pragma once
// Chapter 14's program: every value its report and trace print, gathered once from the
// scalar tape (src/llmfs/autograd/scalar.hpp) and Chapter 13's checker, and the
// functions that render them.

#include <array>
#include <string>
#include <vector>

#include <llmfs/autograd/gradcheck.hpp>
#include <llmfs/autograd/scalar.hpp>

#include "../common/chapter.hpp"
#include "fixture.hpp"

namespace ch14 {

using llmfs::autograd::GradientCheckReport;
using llmfs::autograd::ScalarNode;
using snippets::Step;

/// One expression, differentiated by the tape and checked by central differences.
struct Differentiated {
  std::string name;                 ///< the case's name
  std::vector<double> point;        ///< the inputs' values
  double value = 0.0;               ///< f at the point
  std::vector<double> gradient;     ///< ∂f/∂input, from one backward sweep
  std::vector<ScalarNode> nodes{};  ///< the tape, in recording order
  std::vector<double> adjoints{};   ///< ∂f/∂node for every node
  GradientCheckReport check{};      ///< Chapter 13's verdict on `gradient`
};

/// The answers of the chapter's exercises, computed.
struct Exercises {
  Differentiated cube;                    ///< 1: x·x·x at 2
  std::size_t neuron_nodes = 0;           ///< 2: nodes on the neuron's tape
  std::size_t neuron_multiply_adds = 0;   ///< 2: adjoint updates of one backward sweep
  std::size_t neuron_evaluations = 0;     ///< 2: evaluations a gradient check needs
  std::vector<double> overwritten;        ///< 3: fixture's gradient with = for +=
  GradientCheckReport overwritten_check;  ///< 3: the checker's verdict on it
};

/// Everything the report and the trace print.
struct Evidence {
  std::vector<Differentiated> cases;               ///< kCases, in order
  std::vector<std::array<std::string, 2>> errors;  ///< name and the tape's error text
  Exercises exercises;                             ///< the exercise answers
};

/// Runs the whole chapter once.
[[nodiscard]] Step<Evidence> gather();

/// The report, one `key=value` line per fact.
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The trace records the diagram is drawn from.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch14
