// Chapter 36
#pragma once
// Chapter 36's program: every value its report and trace print, gathered once from
// generation/sampling (and Chapter 32's decoder for real logits), and the functions
// that render them.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <llmfs/generation/sampling.hpp>

#include "../common/chapter.hpp"
#include "fixture.hpp"

namespace ch36 {

using llmfs::generation::SamplingConfig;
using llmfs::generation::SamplingStages;
using llmfs::generation::TokenId;
using snippets::Step;

/// The fixture's four stages and its one draw.
struct Draw {
  SamplingStages stages;    ///< tempered, kept, renormalised
  std::vector<double> cdf;  ///< Σ_{i ≤ j} p_i in id order
  double u = 0.0;           ///< the generator's first uniform
  TokenId token = 0;        ///< the inverse CDF at u
  TokenId uncut_token = 0;  ///< the same u at τ = 1 without a cut
};

/// One setting's final distribution on the fixture.
struct Row {
  std::string setting;                ///< τ or k, e.g. `0.5` or `2`
  std::vector<double> probabilities;  ///< [V]
};

/// kDraws draws at τ = 1, no cut: counts and how far each is from its expectation.
struct Frequencies {
  std::vector<std::size_t> counts;  ///< per token
  std::vector<double> expected;     ///< N·p
  std::vector<double> z;  ///< (count − N·p)/√(N·p·(1 − p)); 0 where p = 0
};

/// Ten tokens generated after the prompt by the untrained decoder under one setting.
struct Continuation {
  std::string setting;          ///< e.g. `greedy`
  std::vector<TokenId> tokens;  ///< the generated ids
};

/// The answers of the chapter's exercises, computed.
struct Exercises {
  std::vector<double> tau_one_top3;  ///< 1: τ = 1, k = 3
  double half_temperature = 0.0;     ///< 2: the τ at which p(token 1) = 1/2, no cut
  std::size_t nucleus_size = 0;      ///< 3: tokens of the 0.9 nucleus at τ = 1
};

/// The misconception: a tie at the top under a tiny τ, greedy, and τ = 0.
struct TieAtTop {
  std::vector<double> tiny;        ///< τ = 1e−3 on logits (1, 1, 0)
  std::vector<double> greedy;      ///< greedy mode on the same row
  std::vector<double> naive_zero;  ///< exp(z/0 − max z/0) / Σ, computed naively
  std::string zero_error;          ///< what τ = 0 gets from the library
};

/// Everything the report and the trace print.
struct Evidence {
  Draw draw;                                       ///< the Predict
  std::vector<Row> temperatures;                   ///< τ sweep, no cut
  std::vector<Row> cuts;                           ///< k = 1…6 at τ = 1
  bool k_six_equals_no_cut = false;                ///< k ≥ V is bitwise no cut
  TokenId greedy = 0;                              ///< greedy on the fixture
  bool greedy_left_rng = false;                    ///< greedy did not draw
  Frequencies frequencies;                         ///< the empirical check
  std::array<std::vector<TokenId>, 3> runs;        ///< seeds 36, 36, 37: 12 draws each
  std::vector<Continuation> continuations;         ///< from the decoder
  std::vector<std::array<std::string, 2>> errors;  ///< name and error text
  TieAtTop tie;                                    ///< the misconception
  Exercises exercises;                             ///< the exercise answers
};

/// Runs the whole chapter once.
[[nodiscard]] Step<Evidence> gather();

/// The report, one `key=value` line per fact.
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The trace records the diagram is drawn from.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch36
