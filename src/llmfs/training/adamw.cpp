// Chapter 22
#include <cmath>
#include <set>
#include <utility>

#include <fmt/format.h>

#include <llmfs/core/try.hpp>
#include <llmfs/training/adamw.hpp>

namespace llmfs::training {

std::string_view describe(OptimizerErrorCode code) noexcept {
  switch (code) {
    case OptimizerErrorCode::bad_hyperparameter: return "bad hyperparameter";
    case OptimizerErrorCode::empty_name: return "empty name";
    case OptimizerErrorCode::duplicate_name: return "duplicate name";
    case OptimizerErrorCode::count_mismatch: return "wrong number of tensors";
    case OptimizerErrorCode::shape_mismatch: return "shape mismatch";
    case OptimizerErrorCode::non_finite_gradient: return "gradient is not finite";
    case OptimizerErrorCode::tensor: return "tensor operation failed";
  }
  return "unknown optimizer error";
}

namespace {

constexpr std::string_view kConfig = "adamw config";

// Every slot of every group, in the order step() expects its tensors.
std::vector<const ParameterSlot*> slots_of(std::span<const ParameterGroup> groups) {
  std::vector<const ParameterSlot*> slots;
  for (const ParameterGroup& group : groups)
    for (const ParameterSlot& slot : group.parameters)
      slots.push_back(&slot);
  return slots;
}

// region: adamw-config-checks
// η > 0, β₁ and β₂ in [0, 1), ε ≥ 0, every λ ≥ 0, all finite; names non-empty and
// unique (group names among groups, parameter names over all groups).
[[nodiscard]] std::expected<void, OptimizerError> check_config(
    const AdamWHyper& h, std::span<const ParameterGroup> groups) {
  const auto beta_ok = [](double b) { return b >= 0.0 && b < 1.0; };
  if (!(h.learning_rate > 0.0 && std::isfinite(h.learning_rate)) || !beta_ok(h.beta1) ||
      !beta_ok(h.beta2) || !(h.epsilon >= 0.0 && std::isfinite(h.epsilon)))
    return reject(OptimizerErrorCode::bad_hyperparameter, kConfig,
                  fmt::format("lr={} beta1={} beta2={} eps={}", h.learning_rate,
                              h.beta1, h.beta2, h.epsilon));
  std::set<std::string_view> groups_seen, names_seen;
  for (const ParameterGroup& g : groups) {
    if (!(g.weight_decay >= 0.0 && std::isfinite(g.weight_decay)))
      return reject(OptimizerErrorCode::bad_hyperparameter, kConfig,
                    fmt::format("group {}: weight_decay={}", g.name, g.weight_decay));
    if (g.name.empty())
      return reject(OptimizerErrorCode::empty_name, kConfig, "a group");
    if (!groups_seen.insert(g.name).second)
      return reject(OptimizerErrorCode::duplicate_name, kConfig, "group " + g.name);
    for (const ParameterSlot& slot : g.parameters) {
      if (slot.name.empty())
        return reject(OptimizerErrorCode::empty_name, kConfig,
                      "a parameter of " + g.name);
      if (!names_seen.insert(slot.name).second)
        return reject(OptimizerErrorCode::duplicate_name, kConfig,
                      "parameter " + slot.name);
    }
  }
  return {};
}
// endregion: adamw-config-checks

// One tensor per slot, each of the slot's shape.
[[nodiscard]] std::expected<void, OptimizerError> check_tensors(
    std::span<const ParameterSlot* const> slots,
    std::span<const tensor::Tensor> tensors, std::string_view what,
    std::string_view stage) {
  if (tensors.size() != slots.size())
    return reject(
        OptimizerErrorCode::count_mismatch, std::string(stage),
        fmt::format("{} {} for {} parameters", tensors.size(), what, slots.size()));
  for (std::size_t i = 0; i < slots.size(); ++i)
    if (tensors[i].shape() != slots[i]->shape)
      return reject(OptimizerErrorCode::shape_mismatch, std::string(stage),
                    fmt::format("{} of {}: {} instead of {}", what, slots[i]->name,
                                tensors[i].shape(), slots[i]->shape));
  return {};
}

}  // namespace

std::expected<AdamW, OptimizerError> AdamW::create(AdamWHyper hyper,
                                                   std::vector<ParameterGroup> groups) {
  LLMFS_TRY(check_config(hyper, groups));
  AdamWState state;
  for (const ParameterSlot* slot : slots_of(groups)) {
    state.first_moment.push_back(tensor::Tensor::zeros(slot->shape));
    state.second_moment.push_back(tensor::Tensor::zeros(slot->shape));
  }
  return AdamW(hyper, std::move(groups), std::move(state));
}

// region: adamw-step-checks
// Counts and shapes of values and gradients, then every gradient element finite:
// all of it before the first parameter changes.
std::expected<void, OptimizerError> AdamW::check_step(
    std::span<const tensor::Tensor> values,
    std::span<const tensor::Tensor> gradients) const {
  const auto slots = slots_of(groups_);
  LLMFS_TRY(check_tensors(slots, values, "values", "adamw step"));
  LLMFS_TRY(check_tensors(slots, gradients, "gradients", "adamw step"));
  for (std::size_t i = 0; i < slots.size(); ++i)
    for (std::size_t k = 0; k < gradients[i].size(); ++k)
      if (!std::isfinite(gradients[i].values()[k]))
        return reject(OptimizerErrorCode::non_finite_gradient, "adamw step",
                      fmt::format("{} element {} is {}", slots[i]->name, k,
                                  gradients[i].values()[k]));
  return {};
}
// endregion: adamw-step-checks

// region: adamw-step
std::expected<void, OptimizerError> AdamW::step(
    std::span<tensor::Tensor> values, std::span<const tensor::Tensor> gradients) {
  LLMFS_TRY(check_step(values, gradients));
  const auto [lr, beta1, beta2, eps] = hyper_;
  const std::uint64_t t = ++state_.step;
  // Bias corrections: m and v started at 0, so their expectation is (1 − βᵗ)·E[g],
  // E[g²]
  const double step_size = lr / (1.0 - std::pow(beta1, static_cast<double>(t)));
  const double correction2_sqrt =
      std::sqrt(1.0 - std::pow(beta2, static_cast<double>(t)));
  std::size_t i = 0;
  for (const ParameterGroup& group : groups_) {
    const double decay = 1.0 - lr * group.weight_decay;
    for (std::size_t p = 0; p < group.parameters.size(); ++p, ++i) {
      const auto theta = values[i].mutable_values();
      const auto g = gradients[i].values();
      const auto m = state_.first_moment[i].mutable_values();
      const auto v = state_.second_moment[i].mutable_values();
      for (std::size_t k = 0; k < theta.size(); ++k) {
        theta[k] = theta[k] * decay;  // decoupled: decay the weight, not the gradient
        m[k] = m[k] * beta1 + (1.0 - beta1) * g[k];
        v[k] = v[k] * beta2 + (1.0 - beta2) * g[k] * g[k];
        const double denominator = std::sqrt(v[k]) / correction2_sqrt + eps;
        theta[k] = theta[k] + -step_size * (m[k] / denominator);
      }
    }
  }
  return {};
}
// endregion: adamw-step

std::expected<void, OptimizerError> AdamW::restore(AdamWState saved) {
  const auto slots = slots_of(groups_);
  LLMFS_TRY(check_tensors(slots, saved.first_moment, "first moments", "adamw restore"));
  LLMFS_TRY(
      check_tensors(slots, saved.second_moment, "second moments", "adamw restore"));
  state_ = std::move(saved);
  return {};
}

// region: decay-rule-impl
std::vector<ParameterGroup> decay_groups(const nn::NamedParameters& parameters,
                                         double weight_decay) {
  ParameterGroup decay{"decay", weight_decay, {}};
  ParameterGroup no_decay{"no_decay", 0.0, {}};
  for (const nn::NamedParameter& p : parameters) {
    const tensor::Shape& shape = p.value.shape();
    (shape.rank() >= 2 ? decay : no_decay).parameters.push_back({p.name, shape});
  }
  std::vector<ParameterGroup> groups;
  for (ParameterGroup* g : {&decay, &no_decay})
    if (!g->parameters.empty()) groups.push_back(std::move(*g));
  return groups;
}
// endregion: decay-rule-impl

std::expected<void, OptimizerError> AdamW::set_learning_rate(double eta) {
  if (!(eta > 0.0 && std::isfinite(eta)))
    return reject(
        OptimizerErrorCode::bad_hyperparameter, "adamw config",
        fmt::format("lr={}: the learning rate must be finite and above 0", eta));
  hyper_.learning_rate = eta;
  return {};
}

}  // namespace llmfs::training
