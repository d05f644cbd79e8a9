// Chapter 28
#pragma once
// Every value Chapter 28's report and trace quote, gathered once from causal attention
// on the frozen fixture (fixture.hpp).

#include <cstddef>

#include "../ch27-self-attention/head_helpers.hpp"
#include "fixture.hpp"

namespace ch28 {

using llmfs::tensor::Tensor;
using snippets::Step;

/// One causal forward pass with every stage copied out.
struct CausalPass {
  Tensor mask;  // [T,T]: 0 on and below the diagonal, −∞ above
  Tensor scores, masked_scores, weights, output;
};

/// The exercise answers (exercise_answers()).
struct Exercises {
  std::size_t allowed_4 = 0, allowed_1024 = 0;  // 1. allowed mask entries
  CausalPass blind;                             // 2. W_Q = 0
  Tensor token_1_changed_output;                // 3. token 1 := [-2,5]
  Tensor unmasked_weights;                      // 4. Chapter 27's weights
  Tensor finite_before, finite_after;  // 5. mask −10: outputs, token 2 := [3,-2]
  double future_weight = 0.0;          // 5. row 0's weight on keys 1, 2
};

/// X, W_Q = W_K = W_V = I and ∂loss/∂output (FixtureTensors), then what they give.
struct Evidence : snippets::FixtureTensors {
  CausalPass fixture;
  Tensor row_sums;     // Σ_j weights[b,i,j], [B,T,1]
  CausalPass changed;  // the last token replaced by kReplacement
  std::string error_empty_tokens, error_token_mismatch, error_fully_masked_row;
  Exercises exercises;
};

/// Causal self-attention on Q, K, V, every stage copied out.
[[nodiscard]] Step<CausalPass> run_causal(const Tensor& query, const Tensor& key,
                                          const Tensor& value);
/// True when row `row` of the two tensors has the same bits (tensor::bitwise_equal).
bool same_row(const Tensor& before, const Tensor& after, std::size_t row);

[[nodiscard]] Step<Evidence> gather_evidence();
std::string render_report(const Evidence& evidence);
std::string render_trace(const Evidence& evidence);

}  // namespace ch28
