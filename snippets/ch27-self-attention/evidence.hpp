// Chapter 27
#pragma once
// Chapter 27: every value the chapter quotes, gathered from one head on frozen
// fixtures.

#include <array>
#include <cstddef>
#include <expected>
#include <string>
#include <vector>

#include <llmfs/autograd/tape_gradcheck.hpp>
#include <llmfs/tensor/tensor.hpp>

namespace ch27 {

using llmfs::tensor::Tensor;

// The hand-checkable fixture: B=1, T=3, d_model=d_k=d_v=2, identity projections.
inline constexpr std::size_t kBatch = 1;
inline constexpr std::size_t kTokens = 3;
inline constexpr std::size_t kWidth = 2;
inline constexpr std::array<double, kTokens* kWidth> kInput = {1.0, 0.0, 0.0,
                                                               1.0, 1.0, 1.0};
inline constexpr std::array<double, kWidth* kWidth> kIdentity = {1.0, 0.0, 0.0, 1.0};
// The seed of the backward pass, ∂loss/∂output, shape [1,3,2].
inline constexpr std::array<double, kTokens* kWidth> kUpstream = {1.0,  -0.5, 0.25,
                                                                  0.75, -0.3, 0.8};
// Central differences: step and accepted absolute error per coordinate.
inline constexpr double kGradStep = 1e-6;
inline constexpr double kGradTolerance = 1e-8;

/// One forward pass of the head on explicit Q/K/V projections, with the raw dot
/// products.
struct HeadPass {
  Tensor input, query_weight, key_weight,
      value_weight;                // X and W_Q, W_K, W_V ([in,out])
  Tensor query, key, value;        // [B,T,d_k], [B,T,d_k], [B,T,d_v]
  Tensor dots;                     // Q·Kᵀ before the scale, [B,T,T]
  Tensor scores, weights, output;  // the head's three results
  std::vector<double> row_sums;    // Σ_j weights[b,i,j], one per row
};

/// Backward pass with the fixed upstream, and the central-difference check of it.
struct GradientEvidence {
  Tensor upstream;
  double loss = 0.0;  // Σ output ⊙ upstream
  Tensor input_gradient, query_weight_gradient, key_weight_gradient,
      value_weight_gradient;
  llmfs::autograd::GradientCheckReport check;
};

/// The same three keys scored with and without the 1/√d_k scale.
struct SaturationRow {
  double scale = 1.0;           // factor the softmax input carries relative to Q·Kᵀ
  std::vector<double> scores;   // the row the softmax sees
  std::vector<double> weights;  // its softmax
  double max_derivative = 0.0;  // max_{i,j} |p_i (δ_ij − p_j)|
};
struct SaturationEvidence {
  std::size_t d_k = 0;
  std::vector<double> dots;  // raw q·k_j
  SaturationRow unscaled, scaled;
};

/// Bahdanau-style additive scores for query 0 (W = U = I, v = [1,1]) beside the
/// dot-product row.
struct HistoryEvidence {
  std::vector<double> additive;
  std::vector<double> dot;
};

/// Shapes of the fixture's stages and the typed errors the head raises.
struct ShapeEvidence {
  std::vector<llmfs::tensor::Shape>
      stages;  // input, query, key, value, scores, weights, output
  llmfs::tensor::Shape empty_batch_output;  // the head on a batch of zero sequences
};
struct ErrorEvidence {
  std::string key_width;    // Q and K of different widths
  std::string token_count;  // K and V with different token counts
  std::string rank;         // a rank-2 query
};

/// The five exercise answers (see exercises.cpp).
struct ExerciseAnswers {
  std::vector<llmfs::tensor::Shape>
      e1_shapes;  // Q, K, V, S, A, Y for B=2,T=5,d_model=8,d_k=4
  std::size_t e1_parameters = 0;
  Tensor e2_weights, e2_output;       // W_Q = 0
  double e3_max_weight_change = 0.0;  // keys shifted by [5,-3]
  Tensor e4_output;                   // tokens 0 and 2 swapped
  double e4_max_mismatch = 0.0;       // against the permuted original rows
  std::vector<double> e5_unscaled_weights, e5_scaled_weights;  // d_k = 64
};

struct Evidence {
  HeadPass fixture;
  GradientEvidence gradients;
  SaturationEvidence saturation;
  HistoryEvidence history;
  ShapeEvidence shapes;
  ErrorEvidence errors;
  ExerciseAnswers exercises;
};

/// Runs X·W_Q, X·W_K, X·W_V and the head on one tape and copies every stage out.
std::expected<HeadPass, std::string> run_head(const Tensor& input,
                                              const Tensor& query_weight,
                                              const Tensor& key_weight,
                                              const Tensor& value_weight);
/// Runs the head directly on given Q, K, V tensors.
std::expected<HeadPass, std::string> run_head_on(const Tensor& query, const Tensor& key,
                                                 const Tensor& value);
/// The largest |p_i (δ_ij − p_j)| of the softmax Jacobian of one probability row.
double max_softmax_derivative(const std::vector<double>& probabilities);

std::expected<SaturationEvidence, std::string> saturation_evidence(std::size_t d_k);
std::expected<ExerciseAnswers, std::string> exercise_answers();
std::expected<Evidence, std::string> gather_evidence();

std::string render_report(const Evidence& evidence);
std::string render_trace(const Evidence& evidence);

}  // namespace ch27
