// Chapter 15
#include <utility>

#include <llmfs/autograd/tape.hpp>
#include <llmfs/autograd/tape_state.hpp>
#include <llmfs/core/try.hpp>

namespace llmfs::autograd {

namespace {

AutogradError released_error(std::string_view op, std::string detail = {}) {
  return AutogradError{
      AutogradErrorCode::released_input, std::string(op), std::move(detail), {}};
}

void add_into(tensor::Tensor& target, const tensor::Tensor& addend) {
  auto t = target.mutable_values();
  const auto a = addend.values();
  for (std::size_t i = 0; i < t.size(); ++i)
    t[i] += a[i];
}

// A first contribution, summed onto zero: each element 0.0 + a (so −0.0 becomes +0.0
// exactly as adding it into a zero-filled gradient would), in one pass over its own
// storage (a copy of a kept contribution, or one the closure gave up).
tensor::Tensor first_sum(tensor::Tensor addend) {
  for (double& x : addend.mutable_values())
    x = 0.0 + x;
  return addend;
}

// Adds into a gradient that exists; otherwise the first contribution becomes it.
template <class Contribution>
void add_or_set(std::optional<tensor::Tensor>& gradient, Contribution&& contribution) {
  if (gradient) {
    add_into(*gradient, contribution);
  } else {
    gradient = first_sum(std::forward<Contribution>(contribution));
  }
}

}  // namespace

// TensorValue

TensorValue::TensorValue(std::shared_ptr<detail::TapeState> state, std::size_t node,
                         tensor::Shape shape, bool requires_gradient)
    : state_(std::move(state)),
      node_(node),
      shape_(std::move(shape)),
      requires_gradient_(requires_gradient) {}

std::expected<tensor::Tensor, AutogradError> TensorValue::value() const {
  auto node = LLMFS_TRY(detail::TapeState::live_node(*this, "value"));
  return node->value;
}

std::expected<const tensor::Tensor*, AutogradError> TensorValue::value_view() const {
  auto node = LLMFS_TRY(detail::TapeState::live_node(*this, "value"));
  return &node->value;
}

std::expected<tensor::Tensor, AutogradError> TensorValue::gradient() const {
  auto node = LLMFS_TRY(detail::TapeState::live_node(*this, "gradient"));
  if (!node->requires_gradient) {
    return reject(AutogradErrorCode::no_gradient, "gradient",
                  fmt::format("node {} ({})", node_, node->op));
  }
  if (node->gradient) return *node->gradient;
  return tensor::Tensor::zeros(shape_);
}

Tape TensorValue::tape() const {
  return Tape(state_ ? state_ : std::make_shared<detail::TapeState>());
}

// BackwardContext

// region: accumulate-checks
std::expected<std::optional<tensor::Tensor>*, AutogradError>
BackwardContext::gradient_slot(std::size_t parent, const tensor::Shape& shape) const {
  if (parent >= parent_values_.size()) {
    return reject(AutogradErrorCode::invalid_argument, op_,
                  fmt::format("parent {} of {}", parent, parent_values_.size()));
  }
  if (shape != parent_values_[parent]->shape()) {
    return reject(AutogradErrorCode::gradient_shape_mismatch, op_,
                  fmt::format("parent {} has shape {}, gradient has shape {}", parent,
                              parent_values_[parent]->shape(), shape));
  }
  if (!needs_[parent]) return nullptr;
  return parent_gradients_[parent];
}

std::expected<void, AutogradError> BackwardContext::accumulate(
    std::size_t parent, const tensor::Tensor& contribution) {
  auto* gradient = LLMFS_TRY(gradient_slot(parent, contribution.shape()));
  if (gradient != nullptr) add_or_set(*gradient, contribution);  // first one: copied
  return {};
}
// endregion: accumulate-checks

std::expected<void, AutogradError> BackwardContext::accumulate(
    std::size_t parent, tensor::Tensor&& contribution) {
  auto* gradient = LLMFS_TRY(gradient_slot(parent, contribution.shape()));
  if (gradient != nullptr) add_or_set(*gradient, std::move(contribution));  // no copy
  return {};
}

// TapeState

namespace detail {

// region: node-handles
TensorValue TapeState::append(Node node) {
  if (released) {
    // A handle that points past the (empty) node list: every use reports
    // released_input.
    return TensorValue(shared_from_this(), static_cast<std::size_t>(-1),
                       node.value.shape(), node.requires_gradient);
  }
  const std::size_t id = nodes.size();
  tensor::Shape shape = node.value.shape();
  const bool wants_gradient = node.requires_gradient;
  nodes.push_back(std::move(node));
  return TensorValue(shared_from_this(), id, std::move(shape), wants_gradient);
}

std::expected<Node*, AutogradError> TapeState::live_node(const TensorValue& value,
                                                         std::string_view op) {
  if (!value.state_) return std::unexpected(released_error(op, "empty handle"));
  if (value.state_->released || value.node_ >= value.state_->nodes.size()) {
    return std::unexpected(released_error(op, fmt::format("node {}", value.node_)));
  }
  return &value.state_->nodes[value.node_];
}
// endregion: node-handles

std::expected<void, AutogradError> TapeState::check_parents(
    std::string_view op, const std::vector<TensorValue>& parents) {
  if (parents.empty()) {
    return reject(AutogradErrorCode::invalid_argument, op,
                  "an op needs at least one parent");
  }
  for (const TensorValue& parent : parents) {
    LLMFS_TRY(live_node(parent, op));
    if (parent.state_ != parents.front().state_) {
      return reject(
          AutogradErrorCode::different_tapes, op,
          fmt::format("nodes {} and {}", parents.front().node_, parent.node_));
    }
  }
  return {};
}

// region: record
std::expected<TensorValue, AutogradError> TapeState::record(
    std::string_view op, tensor::Tensor value, std::vector<TensorValue> parents,
    BackwardFn backward) {
  LLMFS_TRY(check_parents(op, parents));
  bool wants_gradient = false;
  std::vector<std::size_t> ids;
  for (const TensorValue& parent : parents) {
    wants_gradient = wants_gradient || parent.requires_gradient_;
    ids.push_back(parent.node_);
  }
  // A node no parameter reaches keeps no closure: backward never visits it.
  TapeState& tape = *parents.front().state_;
  return tape.append(Node{std::move(value), std::move(ids),
                          wants_gradient ? std::move(backward) : BackwardFn{},
                          std::nullopt, wants_gradient, std::string(op)});
}
// endregion: record

// region: backward-sweep
std::expected<void, AutogradError> TapeState::run_backward(
    const TensorValue& output, const tensor::Tensor& upstream) {
  LLMFS_TRY(live_node(output, "backward"));
  if (upstream.shape() != output.shape()) {
    return reject(AutogradErrorCode::seed_shape_mismatch, "backward",
                  fmt::format("output {} seed {}", output.shape(), upstream.shape()));
  }
  if (!output.requires_gradient()) return {};

  TapeState& tape = *output.state_;
  // This pass's gradients, kept apart from earlier passes until the pass has succeeded.
  std::vector<std::optional<tensor::Tensor>> pass(output.node_ + 1);
  pass[output.node_] = upstream;
  std::vector<std::size_t> order;
  for (std::size_t id = output.node_ + 1; id-- > 0;) {
    if (!pass[id]) continue;
    Node& node = tape.nodes[id];
    if (!node.backward) continue;  // a leaf
    BackwardContext ctx;
    ctx.upstream_ = &*pass[id];
    ctx.output_ = &node.value;
    ctx.op_ = node.op;
    for (std::size_t parent : node.parents) {
      Node& p = tape.nodes[parent];
      ctx.parent_values_.push_back(&p.value);
      ctx.needs_.push_back(p.requires_gradient);
      ctx.parent_gradients_.push_back(p.requires_gradient ? &pass[parent] : nullptr);
    }
    order.push_back(id);
    LLMFS_TRY(node.backward(ctx));
    // A parent this closure gave nothing still has a (zero) gradient
    for (std::size_t parent : node.parents)
      if (tape.nodes[parent].requires_gradient && !pass[parent])
        pass[parent] = tensor::Tensor::zeros(tape.nodes[parent].value.shape());
  }
  // endregion: backward-sweep
  // region: backward-commit
  // The pass succeeded: add it to what earlier passes accumulated.
  for (std::size_t id = 0; id < pass.size(); ++id) {
    if (!pass[id] || !tape.nodes[id].requires_gradient) continue;
    auto& stored = tape.nodes[id].gradient;
    if (stored) {
      add_into(*stored, *pass[id]);
    } else {
      stored = std::move(*pass[id]);
    }
  }
  tape.last_order = std::move(order);
  return {};
}
// endregion: backward-commit

}  // namespace detail

// Tape

Tape::Tape() : state_(std::make_shared<detail::TapeState>()) {}

TensorValue Tape::constant(tensor::Tensor value) {
  return state_->append(
      detail::Node{std::move(value), {}, {}, std::nullopt, false, "constant"});
}

TensorValue Tape::parameter(tensor::Tensor value) {
  return state_->append(
      detail::Node{std::move(value), {}, {}, std::nullopt, true, "parameter"});
}

void Tape::release() noexcept {
  state_->released = true;
  state_->nodes.clear();
  state_->nodes.shrink_to_fit();
  state_->last_order.clear();
}

bool Tape::released() const noexcept {
  return state_->released;
}

std::size_t Tape::node_count() const noexcept {
  return state_->nodes.size();
}

void Tape::zero_gradients() noexcept {
  for (auto& node : state_->nodes)
    node.gradient.reset();
}

std::vector<NodeInfo> Tape::nodes() const {
  std::vector<NodeInfo> out;
  for (std::size_t id = 0; id < state_->nodes.size(); ++id) {
    const detail::Node& node = state_->nodes[id];
    out.push_back(NodeInfo{id, node.op, node.parents, node.value.shape(),
                           node.requires_gradient});
  }
  return out;
}

const std::vector<std::size_t>& Tape::last_backward_order() const noexcept {
  return state_->last_order;
}

// recording and backward

std::expected<TensorValue, AutogradError> record_op(std::string_view op,
                                                    tensor::Tensor value,
                                                    std::vector<TensorValue> parents,
                                                    BackwardFn backward) {
  return detail::TapeState::record(op, std::move(value), std::move(parents),
                                   std::move(backward));
}

std::expected<void, AutogradError> backward(const TensorValue& output,
                                            const tensor::Tensor& upstream) {
  return detail::TapeState::run_backward(output, upstream);
}

}  // namespace llmfs::autograd
