// Chapter 29
// The exercise answers, each computed with the library rather than typed in.

#include <numbers>
#include <numeric>

#include "evidence.hpp"

namespace ch29 {

using llmfs::attention::RotaryEmbedding;
using llmfs::tensor::Tensor;

namespace {

std::vector<double> to_vector(std::span<const double> values) {
  return {values.begin(), values.end()};
}

// q̃·k̃ for the fixture's content rotated to query position p and key position s.
[[nodiscard]] Step<double> content_score(const RotaryEmbedding& rope, std::size_t p,
                                         std::size_t s) {
  const Tensor row = *Tensor::from({1, Fixture::width}, to_vector(Fixture::content));
  const Tensor query = LLMFS_TRY_AT("exercise 3 query", rope.rotate(row, p));
  const Tensor key = LLMFS_TRY_AT("exercise 3 key", rope.rotate(row, s));
  return std::inner_product(query.values().begin(), query.values().end(),
                            key.values().begin(), 0.0);
}

}  // namespace

// region: exercise-answers
Step<ExerciseAnswers> answer_exercises(const OffsetRun& shifted) {
  ExerciseAnswers answers;

  // 1. The rates of width 8, base 10000
  const auto wide = LLMFS_TRY_AT("exercise 1", RotaryEmbedding::create(8, 1, 10000.0));
  answers.rates_width8_base10000 = to_vector(wide.frequencies());

  // 2. Positions per full turn of the fixture's slow pair
  const auto rope = LLMFS_TRY_AT("fixture RoPE", fixture_rope());
  answers.slow_pair_period = 2.0 * std::numbers::pi / rope.frequencies()[1];

  // 3. Query at 5, key at 2, against the same gap starting at 0
  answers.score_5_2 = LLMFS_TRY(content_score(rope, 5, 2));
  answers.score_3_0 = LLMFS_TRY(content_score(rope, 3, 0));

  // 4. The largest offset that fits T = 3 tokens, and the error one step beyond it
  const Tensor rows = fixture_content_rows();
  std::size_t fitting = 0;  // offsets 0, 1, ... that the capacity accepts
  while (rope.rotate(rows, fitting))
    ++fitting;
  answers.largest_offset = fitting - 1;
  answers.first_invalid = error_text(rope.rotate(rows, fitting));

  // 5. Position 0's output at offset 3: the real layer, and with rotated values
  const ValuePolicy& policy = shifted.attention;
  answers.position0_real = to_vector(policy.output.values().first(Fixture::width));
  answers.position0_values_rotated =
      to_vector(policy.output_if_values_rotated.values().first(Fixture::width));

  // 6. Width 2, base 100: the row R(-2)[1,0] at position 2, and what RoPE makes of it
  const auto pair = LLMFS_TRY_AT("exercise 6", RotaryEmbedding::create(2, 3, 100.0));
  const double c = pair.cos_table().values()[2];  // cos(2·θ_0), θ_0 = 1
  const double s = pair.sin_table().values()[2];
  answers.counter_rotated_row = {c, -s};
  const Tensor row = *Tensor::from({1, 2}, answers.counter_rotated_row);
  const Tensor turned = LLMFS_TRY_AT("exercise 6", pair.rotate(row, 2));
  answers.counter_rotated_result = to_vector(turned.values());
  return answers;
}
// endregion: exercise-answers

}  // namespace ch29
