// Chapter 15
#pragma once
// Chapter 15's program: every value its report and trace print, gathered once from the
// tensor tape (src/llmfs/autograd/tape.hpp, ops.hpp) and the tape's gradient check
// (tape_gradcheck.hpp), and the functions that render them.

#include <array>
#include <optional>
#include <string>
#include <vector>

#include <llmfs/autograd/tape_gradcheck.hpp>

#include "../common/chapter.hpp"
#include "fixture.hpp"

namespace ch15 {

using llmfs::autograd::GradientCheckReport;
using llmfs::autograd::NodeInfo;
using snippets::Step;

/// What one backward closure added into one parent slot: node `node` (run at backward
/// step `step`) sent `value` through its parent slot `slot` into node `to`.
struct EdgeShare {
  std::size_t step = 0;  ///< position in the backward order
  std::size_t node = 0;  ///< the node whose closure ran
  std::size_t slot = 0;  ///< the parent slot, in the op's order
  std::size_t to = 0;    ///< the parent node that received the share
  Tensor value;          ///< the contribution, with the parent's shape
};

/// The prediction's tape after one backward pass seeded with 1.
struct FixtureRun {
  double loss = 0.0;                             ///< Σ (X·W + b)²
  std::vector<NodeInfo> nodes;                   ///< the tape, in creation order
  std::vector<Tensor> values;                    ///< each node's forward value
  std::vector<std::optional<Tensor>> gradients;  ///< ∂loss/∂node (none: a constant)
  std::vector<std::size_t> order;                ///< closures run, in backward order
  std::vector<EdgeShare> shares;  ///< each closure's share per parent slot
  GradientCheckReport check{};    ///< Chapter 13's verdict
};

/// One op's gradient checked by central differences.
struct OpCheck {
  std::string op;              ///< the op's name
  std::vector<Shape> shapes;   ///< its inputs' shapes
  GradientCheckReport report;  ///< check_tape_gradients() on Σ op(inputs) ⊙ C
};

/// The answers of the chapter's exercises, computed.
struct Exercises {
  std::string constant_x_error;       ///< 1: X.gradient() when X is a constant
  std::vector<Tensor> constant_x_wb;  ///< 1: ∂W, ∂b with X a constant
  std::vector<Tensor> linear;         ///< 2: ∂X, ∂W, ∂b of Σ (X·W + b)
  std::vector<Tensor> twice;  ///< 3: ∂X, ∂W, ∂b after two passes, no reset
  GradientCheckReport twice_check{};  ///< 3: the checker's verdict on them
};

/// Everything the report and the trace print.
struct Evidence {
  FixtureRun fixture;                  ///< the prediction
  std::vector<Tensor> seed_two;        ///< ∂X, ∂W, ∂b with seed 2
  std::vector<Tensor> seeded_at_y;     ///< backward(Y, 2Y) instead
  bool seeded_at_y_identical = false;  ///< …bitwise equal to seed 1 at loss
  std::size_t replay_elements = 0;     ///< gradient elements compared
  bool replay_identical = false;       ///< two fresh tapes, same bits
  std::vector<OpCheck> checks;         ///< op_cases(), in order
  std::vector<std::array<std::string, 2>> errors;  ///< name and the tape's error text
  Exercises exercises;                             ///< the exercise answers
};

/// Records the fixture, runs backward(loss, 1) and reads every node.
[[nodiscard]] Step<FixtureRun> run_fixture();
/// Each visited node's share per parent slot: its op recorded again on a fresh tape,
/// one leaf per slot holding that parent's value, and backward seeded with the node's
/// gradient, so each leaf's gradient is exactly what the op's closure sent into that
/// slot.
[[nodiscard]] Step<std::vector<EdgeShare>> edge_shares(const FixtureRun& run);
/// ∂X, ∂W, ∂b of the fixture on a fresh tape after `passes` calls of backward(loss,
/// seed) with no zero_gradients() between them.
[[nodiscard]] Step<std::vector<Tensor>> fixture_gradients(double seed, int passes);
/// ∂X, ∂W, ∂b after one backward(Y, 2Y): the seed placed at Y = node 4.
[[nodiscard]] Step<std::vector<Tensor>> seeded_at_y();
/// Every op of op_cases() through check_tape_gradients().
[[nodiscard]] Step<std::vector<OpCheck>> check_every_op();
/// Whether two recordings of the same random case give bitwise identical gradients;
/// `elements` counts the values compared.
[[nodiscard]] Step<bool> replay_is_bitwise(std::size_t& elements);
/// The refused calls: name and error text.
[[nodiscard]] std::vector<std::array<std::string, 2>> refusals();
/// The exercise answers.
[[nodiscard]] Step<Exercises> solve_exercises();
/// Runs the whole chapter once.
[[nodiscard]] Step<Evidence> gather();

/// `[[a,b],[c,d]]`: a tensor nested by its shape, shortest round-trip numbers.
[[nodiscard]] std::string tensor_text(const Tensor& t);
/// The report, one `key=value` line per fact.
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The trace records the diagram is drawn from.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch15
