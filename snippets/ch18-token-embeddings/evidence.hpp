// Chapter 18
#pragma once

#include <array>
#include <string>
#include <vector>

#include <llmfs/autograd/gradcheck.hpp>
#include <llmfs/nn/embedding.hpp>

#include "../common/chapter.hpp"
#include "fixture.hpp"

namespace ch18 {

using llmfs::autograd::GradientCheckReport;
using llmfs::text::TokenId;
using snippets::Step;

/// One table row the fixture's backward pass reached (or BOS, EOS).
struct RowGradient {
  TokenId row = 0;                   ///< the token id
  std::size_t reads = 0;             ///< how many positions read it
  std::array<double, 2> gradient{};  ///< ∂L/∂E[row]
};

/// The fixture's forward and backward pass.
struct Pass {
  TokenId bos = 0, eos = 0;       ///< the tokenizer's specials
  std::size_t vocab = 0;          ///< V = 258
  std::vector<TokenId> sequence;  ///< BOS, the five bytes, EOS
  std::vector<TokenId> context;   ///< the window's T = 6 inputs
  std::vector<double> hidden;     ///< [1, 6, 2]
  std::vector<RowGradient> rows;  ///< the rows read, then EOS
  std::size_t zero_rows = 0;      ///< rows whose gradient is exactly 0
  GradientCheckReport check{};    ///< central differences on the whole table
};

/// One scale for a table [4096, 128].
struct ScaleRun {
  std::string rule;      ///< `fan_in_1/sqrt(V)`, `course_1/sqrt(d)`, `pytorch_1`
  double std_dev = 0.0;  ///< σ
  double hidden_variance = 0.0;      ///< variance of the looked-up entries
  double tied_logit_variance = 0.0;  ///< variance of h·Eᵀ for unit-variance h
};

/// The answers of the chapter's exercises, computed.
struct Exercises {
  std::size_t large_parameters = 0;  ///< 1: V = 32,000, d = 4,096
  std::array<double, 2> triple{};    ///< 2: ∂L/∂E['h'] for "hi hi hi"
  std::size_t rows_reached = 0;      ///< 3: rows with a nonzero gradient, same text
};

/// Everything the report and the trace print.
struct Evidence {
  Pass pass;                          ///< the fixture
  std::vector<ScaleRun> scales;       ///< three scales compared
  std::vector<double> special_norms;  ///< ‖E[BOS]‖², ‖E[EOS]‖² in that table
  std::size_t parameters = 0;         ///< V·d for 4,096 × 128
  std::vector<std::array<std::string, 2>> errors;  ///< name and error text
  bool rng_untouched = false;                      ///< after every refused create()
  Exercises exercises;                             ///< the exercise answers
};

/// Runs the whole chapter once; the report (`key=value` lines); the trace records.
[[nodiscard]] Step<Evidence> gather();
[[nodiscard]] std::string render_report(const Evidence& evidence);
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch18
