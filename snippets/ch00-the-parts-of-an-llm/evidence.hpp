// Chapter 0
// A toy language model with every part of a real one, small enough to check
// by hand.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ch00 {

// region: toy-model
/// The frozen toy: three tokens, two-dimensional embeddings, no learned weights.
struct ToyModel {
  std::vector<char> vocabulary{'a', 'b', 'c'};
  // One row per token id: a=[1,0], b=[0,1], c=[1,1].
  std::vector<std::vector<double>> embedding{{1.0, 0.0}, {0.0, 1.0}, {1.0, 1.0}};
};
// endregion: toy-model

/// Every intermediate value of one forward pass, in the order the data flows.
struct Evidence {
  std::string prompt;
  std::vector<std::size_t> token_ids;           // [T]
  std::vector<std::vector<double>> embeddings;  // [T, d]
  std::vector<std::vector<double>> context;     // [T, d]
  std::vector<double> logits;                   // [V], for the last position
  std::vector<double> probabilities;            // [V]
  std::size_t next_id = 0;
};

/// Runs the toy on a prompt made of vocabulary characters only (the demo's prompt is
/// frozen; chapter 4's tokenizer is the one that validates arbitrary text).
Evidence gather(const ToyModel& model, std::string_view prompt);

std::vector<std::size_t> tokenize(const ToyModel& model, std::string_view text);
std::vector<std::vector<double>> embed(const ToyModel& model,
                                       const std::vector<std::size_t>& ids);
std::vector<std::vector<double>> mix_context(const std::vector<std::vector<double>>& x);
std::vector<double> output_head(const ToyModel& model, const std::vector<double>& h);
std::vector<double> softmax(const std::vector<double>& logits);
std::size_t pick_greedy(const std::vector<double>& probabilities);

std::string render_report(const ToyModel& model, const Evidence& evidence);
std::string render_trace(const ToyModel& model, const Evidence& evidence);

/// Exercise 1: the next token after the longer prompt "abc".
Evidence exercise_longer_prompt(const ToyModel& model);

}  // namespace ch00
