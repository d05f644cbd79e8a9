// Chapter 18
#pragma once
// Chapter 18's program: every value its report and trace print, gathered once from the
// embedding layer (src/llmfs/nn/embedding.hpp) on the course's byte-level tokenizer,
// and the functions that render them.

#include <array>
#include <string>
#include <vector>

#include <llmfs/autograd/gradcheck.hpp>
#include <llmfs/nn/embedding.hpp>
#include <llmfs/text/merges.hpp>

#include "../common/chapter.hpp"
#include "fixture.hpp"

namespace ch18 {

using llmfs::autograd::GradientCheckReport;
using llmfs::text::TokenId;
using snippets::Step;

/// One table row the fixture's backward pass reached (or BOS, EOS).
struct RowGradient {
  TokenId row = 0;                 ///< the token id
  std::vector<std::size_t> uses;   ///< the positions that read it
  std::array<double, 2> gradient{};   ///< ∂L/∂E[row]
  std::array<double, 2> overwritten{};  ///< what "assign, don't add" would leave
};

/// The fixture's forward and backward pass.
struct Pass {
  TokenId bos = 0, eos = 0;        ///< the tokenizer's specials
  std::size_t vocab = 0;           ///< V = 258
  std::vector<TokenId> sequence;   ///< BOS, the five bytes, EOS
  std::vector<TokenId> context;    ///< the window's T = 6 inputs
  std::vector<double> hidden;      ///< [1, 6, 2]
  std::vector<RowGradient> rows;   ///< the rows read, then EOS
  std::size_t zero_rows = 0;       ///< rows whose gradient is exactly 0
  GradientCheckReport check{};     ///< central differences on the whole table
};

/// One scale for a table [4096, 128].
struct ScaleRun {
  std::string rule;           ///< `fan_in_1/sqrt(V)`, `course_1/sqrt(d)`, `pytorch_1`
  double std_dev = 0.0;       ///< σ
  double hidden_variance = 0.0;   ///< variance of the looked-up entries
  double row_norm_squared = 0.0;  ///< mean ‖E[r]‖² over the rows
  double tied_logit_variance = 0.0;  ///< variance of h·Eᵀ for unit-variance h
};

/// The answers of the chapter's exercises, computed.
struct Exercises {
  std::size_t large_parameters = 0;  ///< 1: V = 32,000, d = 4,096
  std::array<double, 2> triple{};    ///< 2: ∂L/∂E['h'] for "hi hi hi"
  std::array<std::size_t, 4> specials{};  ///< 3: BOS, EOS as input, as target (T = 3)
};

/// Everything the report and the trace print.
struct Evidence {
  Pass pass;                          ///< the fixture
  std::vector<ScaleRun> scales;       ///< three scales compared
  std::size_t parameters = 0;         ///< V·d for 4,096 × 128
  std::vector<std::array<std::string, 2>> errors;  ///< name and error text
  bool rng_untouched = false;         ///< after every refused create()
  Exercises exercises;                ///< the exercise answers
};

/// The fixture's pass over `text` with `context` positions (forward, backward,
/// gradient check).
[[nodiscard]] Step<Pass> run_fixture(std::string_view text, std::size_t context);
/// The three scales on a [4096, 128] table.
[[nodiscard]] Step<std::vector<ScaleRun>> compare_scales();
/// Runs the whole chapter once.
[[nodiscard]] Step<Evidence> gather();

/// The report, one `key=value` line per fact.
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The trace records the diagram is drawn from.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch18
