// Chapter 30
// The history contrast: Bahdanau et al.'s one weighted context per target step, one
// full-width causal head (Chapter 28) on the fixture, and the fixture's two head
// tables.

#include <cmath>

#include <llmfs/attention/causal.hpp>

#include "evidence.hpp"

namespace ch30 {

using llmfs::tensor::Tensor;

// region: historical-contrast
namespace {

// One context vector: the annotations averaged with one distribution (Bahdanau et al.
// 2014).
std::array<double, 2> weighted_context(
    std::array<double, 2> weights, std::array<std::array<double, 2>, 2> annotations) {
  std::array<double, 2> context{};
  for (std::size_t j = 0; j < 2; ++j)
    for (std::size_t f = 0; f < 2; ++f)
      context[f] += weights[j] * annotations[j][f];
  return context;
}

// Every row of a [..., T, T] table sums to 1 within the invariance tolerance.
bool rows_normalized(const Tensor& table) {
  const std::size_t tokens = table.shape()[table.rank() - 1];
  for (std::size_t start = 0; start < table.size(); start += tokens) {
    double sum = 0.0;
    for (std::size_t k = 0; k < tokens; ++k)
      sum += table.values()[start + k];
    if (std::abs(sum - 1.0) > kInvariantTolerance) return false;
  }
  return true;
}

}  // namespace

std::expected<HistoryEvidence, Failure> historical_contrast(
    const PrimaryEvidence& primary) {
  HistoryEvidence out;
  out.earlier_weighted_context =
      weighted_context({0.25, 0.75}, {{{1.0, 0.0}, {0.0, 1.0}}});
  out.earlier_distributions_per_target = 1;

  // One causal head over the full width: Q = K = V = X, scale 1/√d_model.
  llmfs::autograd::Tape tape;
  auto x = tape.constant(primary.input);
  auto single =
      need(llmfs::attention::causal_self_attention(x, x, x), "run one full-width head");
  if (!single) return std::unexpected(single.error());
  auto weights = value_of(single->weights, "the full-width weights");
  if (!weights) return std::unexpected(weights.error());
  out.single_head_weights = std::move(*weights);

  const std::size_t table = kTokens * kTokens;
  out.multi_head_weight_shape = primary.attention_weights.shape();
  out.single_head_tables = out.single_head_weights.size() / table;
  out.multi_head_tables = primary.attention_weights.size() / table;
  out.all_rows_normalized = rows_normalized(out.single_head_weights) &&
                            rows_normalized(primary.attention_weights);
  return out;
}
// endregion: historical-contrast

}  // namespace ch30
