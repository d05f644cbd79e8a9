// Chapter 17
#pragma once
// Chapter 17's program: every value its report and trace print, gathered once from
// SplitMix64 (src/llmfs/core/splitmix64.hpp) and the initialization of
// src/llmfs/nn/init.hpp, and the functions that render them.

#include <cstdint>
#include <string>
#include <vector>

#include <llmfs/autograd/gradcheck.hpp>
#include <llmfs/nn/init.hpp>

#include "../common/chapter.hpp"
#include "fixture.hpp"

namespace ch17 {

using llmfs::autograd::GradientCheckReport;
using snippets::Step;

/// The first draws from kSeed, each from a fresh generator.
struct FirstDraws {
  std::vector<std::uint64_t> outputs;  ///< five next_u64() outputs
  std::vector<double> units;           ///< the first two next_unit() draws
  std::vector<double> lecun_uniform;   ///< a [3, 2] weight, LeCun uniform, fan-in 3
  double first_normal = 0.0;           ///< standard_normal() from kSeed
  std::vector<double> lecun_normal;    ///< a [3, 2] weight, LeCun normal, fan-in 3
};

/// Sample statistics of one scheme's draws of a [128, 512] weight.
struct DrawStats {
  std::string name;       ///< e.g. `lecun_uniform`
  double std_dev = 0.0;   ///< the scheme's σ
  double mean = 0.0;      ///< the sample mean
  double variance = 0.0;  ///< the sample variance (divided by n)
};

/// The variance of the activations through the stack for one scale.
struct StackRun {
  std::string scale;              ///< `x1`, `x2`, `x0.5` or `pytorch_default`
  double per_layer = 0.0;         ///< the predicted factor per layer
  std::vector<double> variances;  ///< [kDepth + 1]: the input, then each layer's output
};

/// Named parameters drawn in order.
struct Naming {
  std::vector<std::string> names;   ///< the collection's order
  std::vector<std::string> sorted;  ///< the same names sorted as strings
  std::size_t scalars = 0;          ///< scalar_count()
  bool rebuilt_identical = false;   ///< a second build from the seed is bitwise equal
};

/// A refused call: its name, its error text, and whether the generator kept its state.
struct Refusal {
  std::string name;            ///< what was wrong
  std::string text;            ///< the formatted error
  bool rng_untouched = false;  ///< the generator equals a fresh one from kSeed
};

/// The answers of the chapter's exercises, computed.
struct Exercises {
  double xavier_bound = 0.0;    ///< 1: Xavier uniform bound for fans 300 → 100
  double xavier_std = 0.0;      ///< 1: Xavier normal σ for the same fans
  double default_factor = 0.0;  ///< 2: measured variance factor per default layer
  std::uint64_t state = 0;      ///< 3: the state after a normal [3, 4] from kSeed
  std::uint64_t predicted = 0;  ///< 3: kSeed + 24·γ (mod 2⁶⁴)
};

/// Everything the report and the trace print.
struct Evidence {
  FirstDraws first;               ///< the draws the Predict section asks about
  std::vector<DrawStats> draws;   ///< four schemes' sample statistics
  std::vector<StackRun> stack;    ///< variance per layer, per scale
  Naming naming;                  ///< twelve named layers
  GradientCheckReport check{};    ///< central differences through two named layers
  std::vector<Refusal> refusals;  ///< the typed refusals
  Exercises exercises;            ///< the exercise answers
};

/// The first draws from kSeed.
[[nodiscard]] Step<FirstDraws> first_draws();
/// The variance of the activations through kDepth random layers, for each scale.
[[nodiscard]] Step<std::vector<StackRun>> measure_stack();
/// The refused calls.
[[nodiscard]] std::vector<Refusal> refusals();
/// Runs the whole chapter once.
[[nodiscard]] Step<Evidence> gather();

/// The report, one `key=value` line per fact.
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The trace records the diagram is drawn from.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch17
