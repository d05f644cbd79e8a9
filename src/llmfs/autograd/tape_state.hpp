// Chapter 15
#pragma once
// Internal to the autograd module: the shared state behind Tape and TensorValue
// handles (Chapter 15).

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <llmfs/autograd/tape.hpp>

namespace llmfs::autograd::detail {

// region: tape-node
// One recorded value: its forward result, where it came from, and how to push gradients
// back.
struct Node {
  tensor::Tensor value;
  std::vector<std::size_t> parents;
  BackwardFn backward;  // empty for leaves and for nodes needing no gradient
  std::optional<tensor::Tensor> gradient;  // accumulated over backward passes
  bool requires_gradient = false;
  std::string op;
};

struct TapeState : std::enable_shared_from_this<TapeState> {
  std::deque<Node>
      nodes;  // a deque keeps references to earlier values valid while appending
  bool released = false;
  std::vector<std::size_t> last_order;  // closures the last successful pass ran

  TensorValue append(Node node);
  // The live node behind a handle, or released_input naming `op`.
  [[nodiscard]] static std::expected<Node*, AutogradError> live_node(
      const TensorValue& value, std::string_view op);
  // invalid_argument without parents; released_input or different_tapes naming `op`.
  [[nodiscard]] static std::expected<void, AutogradError> check_parents(
      std::string_view op, const std::vector<TensorValue>& parents);
  [[nodiscard]] static std::expected<TensorValue, AutogradError> record(
      std::string_view op, tensor::Tensor value, std::vector<TensorValue> parents,
      BackwardFn backward);
  [[nodiscard]] static std::expected<void, AutogradError> run_backward(
      const TensorValue& output, const tensor::Tensor& upstream);
};
// endregion: tape-node

}  // namespace llmfs::autograd::detail
