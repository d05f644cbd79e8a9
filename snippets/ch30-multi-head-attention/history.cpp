// Chapter 30
// The history contrast: Bahdanau et al.'s one weighted context per target step, and one
// full-width causal head (Chapter 28) on the fixture, beside the layer's two tables.

#include <llmfs/attention/causal.hpp>

#include "evidence.hpp"

namespace ch30 {

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

}  // namespace

Step<void> historical_contrast(Evidence& out) {
  out.earlier_weighted_context =
      weighted_context({0.25, 0.75}, {{{1.0, 0.0}, {0.0, 1.0}}});

  // One causal head over the full width: Q = K = V = X, scale 1/√d_model.
  llmfs::autograd::Tape tape;
  auto x = tape.constant(out.input);
  auto single = LLMFS_TRY_AT("run one full-width head",
                             llmfs::attention::causal_self_attention(x, x, x));
  out.single_head_weights = LLMFS_TRY(value_of(single.weights));
  return {};
}
// endregion: historical-contrast

}  // namespace ch30
