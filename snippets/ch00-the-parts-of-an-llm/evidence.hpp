// Chapter 0
// A toy language model with every part of a real one, small enough to check by hand,
// and the chapter program's evidence gathered from it.
#pragma once

#include <cstddef>
#include <expected>
#include <string>
#include <string_view>
#include <vector>

#include "../common/chapter.hpp"

namespace ch00 {

// region: toy-model
/// The frozen toy: three tokens, two-dimensional embeddings, no learned weights.
struct ToyModel {
  std::vector<char> vocabulary{'a', 'b', 'c'};
  // One row per token id: a=[1,0], b=[0,1], c=[1,1].
  std::vector<std::vector<double>> embedding{{1.0, 0.0}, {0.0, 1.0}, {1.0, 1.0}};
};
// endregion: toy-model

// region: toy-errors
/// What the toy rejects, or that one of its stages failed.
enum class ToyErrorCode {
  empty_prompt,       ///< no token to predict from
  unknown_character,  ///< a prompt character is not in the vocabulary
  stage_failed,       ///< a lower stage failed: `stage` says which, `cause` says why
};

/// The fixed description of a code, e.g. `"character outside the vocabulary"`.
[[nodiscard]] std::string_view describe(ToyErrorCode code) noexcept;

/// The toy's typed error; a wrapped lower error is kept as its formatted text.
using ToyError =
    llmfs::StageError<ToyErrorCode, ToyErrorCode::stage_failed, snippets::ErrorText>;
// endregion: toy-errors

/// Every intermediate value of one forward pass, in the order the data flows.
struct ForwardPass {
  std::string prompt;
  std::vector<std::size_t> token_ids;           // [T]
  std::vector<std::vector<double>> embeddings;  // [T, d]
  std::vector<std::vector<double>> context;     // [T, d]
  std::vector<double> logits;                   // [V], for the last position
  std::vector<double> probabilities;            // [V]
  std::size_t next_id = 0;
};

/// Runs the toy on a prompt; a prompt that is empty or holds a character outside the
/// vocabulary is rejected by the tokenizer.
[[nodiscard]] std::expected<ForwardPass, ToyError> forward(const ToyModel& model,
                                                           std::string_view prompt);

[[nodiscard]] std::expected<void, ToyError> check_prompt(const ToyModel& model,
                                                         std::string_view text);
[[nodiscard]] std::expected<std::vector<std::size_t>, ToyError> tokenize(
    const ToyModel& model, std::string_view text);
std::vector<std::vector<double>> embed(const ToyModel& model,
                                       const std::vector<std::size_t>& ids);
std::vector<std::vector<double>> mix_context(const std::vector<std::vector<double>>& x);
std::vector<double> output_head(const ToyModel& model, const std::vector<double>& h);
std::vector<double> softmax(const std::vector<double>& logits);
std::size_t pick_greedy(const std::vector<double>& probabilities);

/// The demo's prompt, and one the toy cannot read (`z` is not in its vocabulary).
inline constexpr std::string_view kPrompt = "ab";
inline constexpr std::string_view kUnreadablePrompt = "abz";

/// Exercise 2's count: prompts that start with "ab", and how many of them predict `a`.
struct NeverA {
  std::size_t prompts = 0, predicted_a = 0;
};

/// What the chapter's program reports: the forward pass on kPrompt, and the error the
/// toy returns for kUnreadablePrompt, formatted.
struct Evidence {
  ToyModel model;
  ForwardPass pass;
  std::string rejection;
  ForwardPass longer;  ///< exercise 1: the prompt "abc"
  NeverA never_a;      ///< exercise 2
};

/// Runs the toy on both prompts.
[[nodiscard]] snippets::Step<Evidence> gather();

[[nodiscard]] std::string render_report(const Evidence& evidence);
[[nodiscard]] std::string render_trace(const Evidence& evidence);

/// Exercise 1: the next token after the longer prompt "abc".
[[nodiscard]] std::expected<ForwardPass, ToyError> exercise_longer_prompt(
    const ToyModel& model);
/// Exercise 2: runs every prompt "ab" + s, s of 0 to 4 tokens, and counts the `a`s.
[[nodiscard]] std::expected<NeverA, ToyError> exercise_never_a(const ToyModel& model);

}  // namespace ch00
