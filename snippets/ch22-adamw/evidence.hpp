// Chapter 22
#pragma once
// Chapter 22's program: every value its report and trace print, gathered once from
// training/adamw and the reference data of torch.optim.AdamW, and the functions that
// render them.

#include <array>
#include <string>
#include <vector>

#include <llmfs/training/adamw.hpp>

#include "../common/chapter.hpp"
#include "fixture.hpp"

namespace ch22 {

using snippets::Step;

/// The update rules compared on one parameter.
enum class Variant {
  adamw,               ///< decoupled decay θ(1 − ηλ), bias-corrected moments
  decay_unscaled,      ///< decay θ(1 − λ), not multiplied by η
  adam_l2,             ///< Adam with λθ added to the gradient
  no_bias_correction,  ///< AdamW with m and v used as they are
  adam,                ///< no decay at all
};
/// The variants, in report order.
inline constexpr std::array kVariants = {Variant::adamw, Variant::decay_unscaled,
                                         Variant::adam_l2, Variant::no_bias_correction,
                                         Variant::adam};
/// The variant's name, e.g. `adam_l2`.
[[nodiscard]] std::string_view name(Variant variant);

/// The fixture's weight and gain after steps 1, 2, 3.
struct Trajectory {
  std::vector<std::vector<double>> weight, gain;  ///< one entry per step
};

/// The random problem replayed against torch.optim.AdamW.
struct Replay {
  std::size_t parameters = 0, elements = 0, steps = 0;  ///< its size
  double step1_max_relative = 0.0;  ///< max |θ − θ_torch|/|θ_torch| after step 1
  double step100_max_abs = 0.0;     ///< max |θ − θ_torch| after step 100
  double step100_bound = 0.0;       ///< the derived bound at that element
  double smallest_margin = 0.0;   ///< min over elements and kept steps of bound/|Δθ|
  std::size_t bitwise_equal = 0;  ///< elements identical to torch's after step 100
  double moments_max_relative = 0.0;  ///< m and v after step 100
};

/// The exercise answers, computed.
struct Exercises {
  double adam_vs_lambda_zero = 0.0;    ///< 1: max |AdamW(λ=0) − Adam| over 3 steps
  std::size_t halving_steps = 0;       ///< 2: zero-gradient steps to halve θ
  std::array<double, 4> first_step{};  ///< 3: |Δθ| at step 1 for g = 1e-9 … 1e3
};

/// Everything the report and the trace print.
struct Evidence {
  Trajectory fixture;
  std::vector<std::vector<double>> variants;  ///< θ₁, θ₂, θ₃ per variant
  Replay replay;
  bool refused_changed_nothing = false;  ///< values and state equal after a refusal
  bool restore_bit_for_bit = false;      ///< restored optimizer continues identically
  std::vector<std::array<std::string, 2>> errors;  ///< name and error text
  Exercises exercises;
};

/// The fixture's three steps through the library's AdamW.
[[nodiscard]] Step<Trajectory> run_fixture();
/// One step of `variant` on a scalar (θ, m, v) at step t with gradient g; η = 0.1,
/// β₁ = 0.9, β₂ = 0.999, ε = 0, λ = kLambda.
void variant_step(Variant variant, double& theta, double& m, double& v, double g,
                  int t);
/// The random problem of the reference file.
[[nodiscard]] Step<Replay> replay_reference();
/// Runs the whole chapter once.
[[nodiscard]] Step<Evidence> gather();

/// The report, one `key=value` line per fact.
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The trace records the diagram is drawn from.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch22
