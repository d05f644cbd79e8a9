// Chapter 0
#include "evidence.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <llmfs/core/error.hpp>
#include <llmfs/core/try.hpp>

namespace ch00 {

std::string_view describe(ToyErrorCode code) noexcept {
  switch (code) {
    case ToyErrorCode::empty_prompt: return "the prompt is empty";
    case ToyErrorCode::unknown_character: return "character outside the vocabulary";
    case ToyErrorCode::stage_failed: return "stage failed";
  }
  return "unknown toy error";
}

// region: prompt-check
// What the tokenizer needs of a prompt: at least one character, each in the vocabulary.
std::expected<void, ToyError> check_prompt(const ToyModel& model,
                                           std::string_view text) {
  if (text.empty()) return llmfs::reject(ToyErrorCode::empty_prompt, "tokenizer");
  for (std::size_t t = 0; t < text.size(); ++t) {
    if (std::ranges::find(model.vocabulary, text[t]) == model.vocabulary.end()) {
      return llmfs::reject(ToyErrorCode::unknown_character, "tokenizer",
                           fmt::format("'{}' at position {}; the vocabulary is {}",
                                       text[t], t, fmt::join(model.vocabulary, ",")));
    }
  }
  return {};
}
// endregion: prompt-check

// region: tokenize
// text -> [T] token ids: each character's index in the vocabulary.
std::expected<std::vector<std::size_t>, ToyError> tokenize(const ToyModel& model,
                                                           std::string_view text) {
  LLMFS_TRY(check_prompt(model, text));
  std::vector<std::size_t> ids;
  for (char c : text) {
    const auto it = std::ranges::find(model.vocabulary, c);
    ids.push_back(static_cast<std::size_t>(it - model.vocabulary.begin()));
  }
  return ids;
}
// endregion: tokenize

// region: embed
// [T] ids -> [T, d]: look up one row of the embedding table per token.
std::vector<std::vector<double>> embed(const ToyModel& model,
                                       const std::vector<std::size_t>& ids) {
  std::vector<std::vector<double>> rows;
  for (std::size_t id : ids) {
    rows.push_back(model.embedding[id]);
  }
  return rows;
}
// endregion: embed

// region: mix-context
// [T, d] -> [T, d]: position t becomes the mean of positions 0..t (it never sees the
// future).
std::vector<std::vector<double>> mix_context(
    const std::vector<std::vector<double>>& x) {
  std::vector<std::vector<double>> out;
  std::vector<double> sum(x.empty() ? 0 : x[0].size(), 0.0);
  for (std::size_t t = 0; t < x.size(); ++t) {
    std::vector<double> mean(sum.size());
    for (std::size_t j = 0; j < sum.size(); ++j) {
      sum[j] += x[t][j];
      mean[j] = sum[j] / static_cast<double>(t + 1);
    }
    out.push_back(mean);
  }
  return out;
}
// endregion: mix-context

// region: output-head
// [d] -> [V]: one score per vocabulary token, the dot product with its embedding row.
std::vector<double> output_head(const ToyModel& model, const std::vector<double>& h) {
  std::vector<double> logits;
  for (const auto& row : model.embedding) {
    double score = 0.0;
    for (std::size_t j = 0; j < h.size(); ++j) {
      score += h[j] * row[j];
    }
    logits.push_back(score);
  }
  return logits;
}
// endregion: output-head

// region: softmax-and-pick
// [V] logits -> [V] probabilities (shifted by the maximum so exp never overflows).
std::vector<double> softmax(const std::vector<double>& logits) {
  const double top = *std::max_element(logits.begin(), logits.end());
  std::vector<double> p;
  double total = 0.0;
  for (double z : logits) {
    p.push_back(std::exp(z - top));
    total += p.back();
  }
  for (double& value : p) {
    value /= total;
  }
  return p;
}

// Greedy decoding: the most probable token (the first one on a tie).
std::size_t pick_greedy(const std::vector<double>& probabilities) {
  return static_cast<std::size_t>(
      std::max_element(probabilities.begin(), probabilities.end()) -
      probabilities.begin());
}
// endregion: softmax-and-pick

// region: forward
std::expected<ForwardPass, ToyError> forward(const ToyModel& model,
                                             std::string_view prompt) {
  ForwardPass pass;
  pass.prompt = std::string(prompt);
  pass.token_ids = LLMFS_TRY_AT("toy forward", tokenize(model, prompt));
  pass.embeddings = embed(model, pass.token_ids);
  pass.context = mix_context(pass.embeddings);
  pass.logits = output_head(model, pass.context.back());
  pass.probabilities = softmax(pass.logits);
  pass.next_id = pick_greedy(pass.probabilities);
  return pass;
}
// endregion: forward

// region: exercises
// Exercise 1: append the predicted token and predict again.
std::expected<ForwardPass, ToyError> exercise_longer_prompt(const ToyModel& model) {
  return forward(model, "abc");
}

// Exercise 2: every prompt "ab" + s, s any string of 0 to 4 tokens; how many predict a?
std::expected<NeverA, ToyError> exercise_never_a(const ToyModel& model) {
  NeverA count;
  std::vector<std::string> prompts{"ab"};
  for (std::size_t extra = 0; extra <= 4; ++extra) {
    std::vector<std::string> longer;
    for (const std::string& prompt : prompts) {
      const auto pass = LLMFS_TRY(forward(model, prompt));
      count.prompts += 1;
      count.predicted_a += pass.next_id == 0 ? 1 : 0;
      for (char token : model.vocabulary)
        longer.push_back(prompt + token);
    }
    prompts = std::move(longer);
  }
  return count;
}
// endregion: exercises

// region: gather
// The chapter program's evidence: the demo prompt's forward pass, the error text the
// toy returns for a prompt it cannot read, and the two exercises' answers.
snippets::Step<Evidence> gather() {
  Evidence e;
  e.pass = LLMFS_TRY_AT("demo prompt", forward(e.model, kPrompt));
  e.rejection = snippets::error_text(forward(e.model, kUnreadablePrompt));
  e.longer = LLMFS_TRY_AT("exercise 1", exercise_longer_prompt(e.model));
  e.never_a = LLMFS_TRY_AT("exercise 2", exercise_never_a(e.model));
  return e;
}
// endregion: gather

}  // namespace ch00
