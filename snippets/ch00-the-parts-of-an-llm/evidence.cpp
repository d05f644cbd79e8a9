// Chapter 0
#include "evidence.hpp"

#include <algorithm>
#include <cmath>

namespace ch00 {

// region: tokenize
// text -> [T] token ids: each character's index in the vocabulary.
std::vector<std::size_t> tokenize(const ToyModel& model, std::string_view text) {
  std::vector<std::size_t> ids;
  for (char c : text) {
    auto it = std::find(model.vocabulary.begin(), model.vocabulary.end(), c);
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

// region: gather
Evidence gather(const ToyModel& model, std::string_view prompt) {
  Evidence e;
  e.prompt = std::string(prompt);
  e.token_ids = tokenize(model, prompt);
  e.embeddings = embed(model, e.token_ids);
  e.context = mix_context(e.embeddings);
  e.logits = output_head(model, e.context.back());
  e.probabilities = softmax(e.logits);
  e.next_id = pick_greedy(e.probabilities);
  return e;
}
// endregion: gather

}  // namespace ch00
