// Chapter 28
#pragma once
// Chapter 28: every value the chapter quotes, gathered from causal attention on frozen
// fixtures.

#include <array>
#include <cstddef>
#include <expected>
#include <string>
#include <vector>

#include <llmfs/autograd/tape_gradcheck.hpp>
#include <llmfs/tensor/tensor.hpp>

namespace ch28 {

using llmfs::tensor::Tensor;

// Chapter 27's fixture: B=1, T=3, d_model=d_k=d_v=2, identity projections.
inline constexpr std::size_t kBatch = 1;
inline constexpr std::size_t kTokens = 3;
inline constexpr std::size_t kWidth = 2;
inline constexpr std::array<double, kTokens* kWidth> kInput = {1.0, 0.0, 0.0,
                                                               1.0, 1.0, 1.0};
inline constexpr std::array<double, kWidth* kWidth> kIdentity = {1.0, 0.0, 0.0, 1.0};
// The prefix check replaces the last token by this row.
inline constexpr std::array<double, kWidth> kReplacement = {3.0, -2.0};
// The seed of the backward pass, ∂loss/∂output, shape [1,3,2].
inline constexpr std::array<double, kTokens* kWidth> kUpstream = {1.0,  -0.5, 0.25,
                                                                  0.75, -0.3, 0.8};
inline constexpr double kGradStep = 1e-6;
inline constexpr double kGradTolerance = 1e-8;
// Exercise 5's finite stand-in for −∞.
inline constexpr double kFiniteMask = -10.0;

/// One causal forward pass with every stage copied out.
struct CausalPass {
  Tensor input, query, key, value;
  Tensor mask;  // [T,T]: 0 on and below the diagonal, −∞ above
  Tensor scores, masked_scores, weights, output;
  std::vector<double> row_sums;
};

/// Rows 0..T−2 before and after replacing the last token, compared bit for bit.
struct PrefixEvidence {
  CausalPass changed;
  std::vector<bool> weights_row_unchanged;  // per query row, bitwise
  std::vector<bool> output_row_unchanged;   // per query row, bitwise
};

struct GradientEvidence {
  Tensor upstream;
  double loss = 0.0;
  Tensor input_gradient, query_weight_gradient, key_weight_gradient,
      value_weight_gradient;
  llmfs::autograd::GradientCheckReport check;
  // Loss on rows 0 and 1 only: the gradient reaching token 2's input row.
  std::vector<double> barrier_gradient_row_2;
};

struct ErrorEvidence {
  std::string empty_tokens;      // T = 0
  std::string token_mismatch;    // Q with 3 tokens, K with 2
  std::string fully_masked_row;  // a softmax row of −∞ only
};

struct ExerciseAnswers {
  std::size_t e1_allowed_4 = 0, e1_blocked_4 = 0, e1_allowed_1024 = 0,
              e1_total_1024 = 0;
  Tensor e2_weights, e2_output;               // W_Q = 0
  std::vector<bool> e3_output_row_unchanged;  // token 1 changed
  bool e4_weights_row_equal = false,
       e4_output_row_equal = false;  // last row vs Chapter 27
  double e5_future_weight = 0.0;     // row 0's weight on keys 1 and 2
  std::vector<double> e5_row0_before, e5_row0_after;
};

struct Evidence {
  CausalPass fixture;
  PrefixEvidence prefix;
  GradientEvidence gradients;
  ErrorEvidence errors;
  llmfs::tensor::Shape empty_batch_output;
  ExerciseAnswers exercises;
};

/// X·W_Q, X·W_K, X·W_V, then causal self-attention, on one tape.
std::expected<CausalPass, std::string> run_causal(const Tensor& input,
                                                  const Tensor& query_weight,
                                                  const Tensor& key_weight,
                                                  const Tensor& value_weight);
/// The same projections with Chapter 27's unmasked head (weights and output only).
std::expected<std::array<Tensor, 2>, std::string> run_unmasked(const Tensor& input);
/// True when row `row` of two `[1,T,W]` tensors has the same bits.
bool row_bitwise_equal(const Tensor& a, const Tensor& b, std::size_t row,
                       std::size_t width);

/// Replaces the last token by kReplacement and compares every row with `original`
/// bitwise.
std::expected<PrefixEvidence, std::string> prefix_evidence(const CausalPass& original,
                                                           const Tensor& identity);
std::expected<ExerciseAnswers, std::string> exercise_answers();
std::expected<Evidence, std::string> gather_evidence();

std::string render_report(const Evidence& evidence);
std::string render_trace(const Evidence& evidence);

}  // namespace ch28
