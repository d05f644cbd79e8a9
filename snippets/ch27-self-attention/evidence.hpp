// Chapter 27
#pragma once
// Every value Chapter 27's report and trace quote, gathered once from one head on the
// frozen fixture (fixture.hpp; head_helpers.hpp makes it tensors).

#include <cstddef>

#include "head_helpers.hpp"

namespace ch27 {

using llmfs::tensor::Tensor;
using snippets::Step;

/// One head's stages on Q, K, V.
struct HeadPass {
  Tensor query, key, value;        // [B,T,d_k], [B,T,d_k], [B,T,d_v]
  Tensor dots;                     // Q·Kᵀ before the scale, [B,T,T]
  Tensor scores, weights, output;  // the head's three results
  Tensor row_sums;                 // Σ_j weights[b,i,j], [B,T,1]
};

/// The same three keys scored without and with the 1/√d_k scale.
struct Saturation {
  HeadPass unscaled, scaled;
};

/// The exercise answers (exercise_answers()).
struct Exercises {
  HeadPass wide;               // 1. B=2, T=5, d_model=8, d_k=d_v=4
  std::size_t parameters = 0;  // 1. scalars in W_Q, W_K, W_V
  HeadPass blind;              // 2. W_Q = 0
  HeadPass shifted;            // 3. every key row plus c = [5,-3]
  HeadPass swapped;            // 4. tokens 0 and 2 swapped
  Saturation wide_keys;        // 5. the saturation fixture at d_k = 64
};

/// X, W_Q = W_K = W_V = I and ∂loss/∂output (FixtureTensors), then what they give.
struct Evidence : snippets::FixtureTensors {
  HeadPass fixture;
  double loss = 0.0;              // Σ output ⊙ upstream
  std::vector<Tensor> gradients;  // ∂loss/∂X, ∂W_Q, ∂W_K, ∂W_V
  Saturation saturation;
  std::vector<double> additive;  // Bahdanau scores for query 0
  std::string error_key_width, error_token_count, error_rank;
  Exercises exercises;
};

/// X·W_Q, X·W_K, X·W_V, then run_head_on().
[[nodiscard]] Step<HeadPass> run_head(const Tensor& input, const Tensor& query_weight,
                                      const Tensor& key_weight,
                                      const Tensor& value_weight);
/// The head on given Q, K, V, every stage copied out.
[[nodiscard]] Step<HeadPass> run_head_on(const Tensor& query, const Tensor& key,
                                         const Tensor& value);
/// The largest |p_i (δ_ij − p_j)| of the softmax Jacobian of one probability row.
[[nodiscard]] double max_softmax_derivative(std::span<const double> probabilities);

[[nodiscard]] Step<Evidence> gather_evidence();
[[nodiscard]] std::string render_report(const Evidence& evidence);
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch27
