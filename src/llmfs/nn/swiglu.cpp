// Chapter 20
#include <limits>
#include <string>

#include <fmt/format.h>

#include <llmfs/autograd/model_ops.hpp>
#include <llmfs/autograd/ops.hpp>
#include <llmfs/core/try.hpp>
#include <llmfs/nn/swiglu.hpp>

namespace llmfs::nn {

namespace {

constexpr std::string_view kSwiGluStage = "swiglu";

// region: swiglu-checks
// W₁ and W₃ [d_model, d_ff] alike, W₂ [d_ff, d_model], all on one tape, names distinct.
[[nodiscard]] std::expected<void, NnError> check_chain(const NamedParameter& gate,
                                                       const NamedParameter& up,
                                                       const NamedParameter& down) {
  const auto& w1 = gate.value.shape();
  const auto& w3 = up.value.shape();
  const auto& w2 = down.value.shape();
  if (w3 != w1 || w2 != tensor::Shape{w1[1], w1[0]}) {
    return reject(NnErrorCode::width_mismatch, kSwiGluStage,
                  fmt::format("gate {}, up {}, down {}: expected [d_model, d_ff] twice "
                              "and [d_ff, d_model]",
                              w1, w3, w2));
  }
  if (up.value.tape() != gate.value.tape() || down.value.tape() != gate.value.tape())
    return reject(NnErrorCode::different_tapes, kSwiGluStage);
  LLMFS_TRY(NamedParameters::create({gate, up, down}));
  return {};
}

// d_model and the multiple are positive, and ⌈8·d_model/3⌉ rounded up fits std::size_t.
[[nodiscard]] std::expected<void, NnError> check_hidden_width(std::size_t model_width,
                                                              std::size_t multiple) {
  constexpr std::string_view stage = "swiglu hidden width";
  if (model_width == 0 || multiple == 0) {
    return reject(NnErrorCode::zero_width, stage,
                  fmt::format("d_model {}, multiple {}", model_width, multiple));
  }
  constexpr std::size_t most = std::numeric_limits<std::size_t>::max();
  if (model_width > (most - 2) / 8 ||
      (8 * model_width + 2) / 3 > most - (multiple - 1)) {
    return reject(NnErrorCode::size_overflow, stage,
                  fmt::format("d_model {}, multiple {}", model_width, multiple));
  }
  return {};
}
// endregion: swiglu-checks

}  // namespace

// region: hidden-width
std::expected<std::size_t, NnError> swiglu_hidden_width(std::size_t model_width,
                                                        std::size_t multiple) {
  LLMFS_TRY(check_hidden_width(model_width, multiple));
  // ⌈8·d_model/3⌉ in whole numbers, then up to the next multiple: no rounding error.
  const std::size_t at_least = (8 * model_width + 2) / 3;
  return (at_least + multiple - 1) / multiple * multiple;
}
// endregion: hidden-width

// region: swiglu-create
std::expected<SwiGluFeedForward, NnError> SwiGluFeedForward::create(
    autograd::Tape& tape, std::string_view name, std::size_t model_width,
    std::size_t hidden_width, SplitMix64& rng) {
  if (name.empty()) return reject(NnErrorCode::empty_name, kSwiGluStage, "layer name");
  // Draw on a copy of the generator; keep its state only when all three exist.
  SplitMix64 trial = rng;
  const std::string base(name);
  auto gate = LLMFS_TRY(
      Linear::create(tape, base + ".gate", model_width, hidden_width, false, trial));
  auto up = LLMFS_TRY(
      Linear::create(tape, base + ".up", model_width, hidden_width, false, trial));
  auto down = LLMFS_TRY(
      Linear::create(tape, base + ".down", hidden_width, model_width, false, trial));
  rng = trial;
  return SwiGluFeedForward(std::move(gate), std::move(up), std::move(down));
}

std::expected<SwiGluFeedForward, NnError> SwiGluFeedForward::from_parameters(
    NamedParameter gate, NamedParameter up, NamedParameter down) {
  auto w1 = LLMFS_TRY(Linear::from_parameters(gate));
  auto w3 = LLMFS_TRY(Linear::from_parameters(up));
  auto w2 = LLMFS_TRY(Linear::from_parameters(down));
  LLMFS_TRY(check_chain(gate, up, down));
  return SwiGluFeedForward(std::move(w1), std::move(w3), std::move(w2));
}
// endregion: swiglu-create

// region: swiglu-forward
std::expected<SwiGluForward, NnError> SwiGluFeedForward::forward_stages(
    const autograd::TensorValue& x) const {
  // x: [..., d_model] -> A, U: [..., d_ff] -> H: [..., d_ff] -> Y: [..., d_model]
  auto gate_input = LLMFS_TRY(gate_.forward(x));
  auto gate = LLMFS_TRY_AT(kSwiGluStage, autograd::silu(gate_input));
  auto up = LLMFS_TRY(up_.forward(x));
  // The gate scales each hidden unit of the up projection, element by element.
  auto hidden = LLMFS_TRY_AT(kSwiGluStage, autograd::multiply(gate, up));
  auto output = LLMFS_TRY(down_.forward(hidden));
  return SwiGluForward{.gate_input = std::move(gate_input),
                       .gate = std::move(gate),
                       .up = std::move(up),
                       .hidden = std::move(hidden),
                       .output = std::move(output)};
}

std::expected<autograd::TensorValue, NnError> SwiGluFeedForward::forward(
    const autograd::TensorValue& x) const {
  return LLMFS_TRY(forward_stages(x)).output;
}
// endregion: swiglu-forward

// region: swiglu-count
std::size_t SwiGluFeedForward::parameter_count() const noexcept {
  // W₁ and W₃: d_model·d_ff each; W₂: d_ff·d_model. No biases.
  return gate_.parameter_count() + up_.parameter_count() + down_.parameter_count();
}
// endregion: swiglu-count

std::vector<NamedParameter> SwiGluFeedForward::parameters() const {
  return {gate_.weight(), up_.weight(), down_.weight()};
}

}  // namespace llmfs::nn
