// Chapter 29
// The exercise answers, each computed with the library rather than typed
// in.

#include <cmath>
#include <numbers>
#include <utility>

#include <fmt/format.h>

#include "evidence.hpp"

namespace ch29 {

using llmfs::attention::RotaryEmbedding;
using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

namespace {

std::vector<double> to_vector(std::span<const double> values) {
  return {values.begin(), values.end()};
}

// q̃·k̃ for the fixture's content rotated to query position p and key position s.
std::expected<double, std::string> content_score(const RotaryEmbedding& rope,
                                                 std::size_t p, std::size_t s) {
  const Tensor row = *Tensor::from(Shape{1, Fixture::width},
                                   to_vector(Fixture::content));  // one token: [T=1, d]
  auto query = rope.rotate(row, p);
  auto key = rope.rotate(row, s);
  if (!query || !key)
    return std::unexpected(std::string("exercise 3: position out of range"));
  double score = 0.0;
  for (std::size_t j = 0; j < Fixture::width; ++j)
    score += query->values()[j] * key->values()[j];
  return score;
}

}  // namespace

// region: exercise-answers
std::expected<ExerciseAnswers, std::string> answer_exercises() {
  ExerciseAnswers answers;

  // 1. The rates of width 8, base 10000
  auto wide = RotaryEmbedding::create(8, 1, 10000.0);
  if (!wide) return std::unexpected(fmt::format("exercise 1: {}", wide.error()));
  answers.rates_width8_base10000 = to_vector(wide->frequencies());

  // 2. Positions per full turn of the fixture's slow pair
  auto rope = fixture_rope();
  if (!rope) return std::unexpected(rope.error());
  answers.slow_pair_period = 2.0 * std::numbers::pi / rope->frequencies()[1];

  // 3. Query at 5, key at 2, against the same gap starting at 0
  auto late = content_score(*rope, 5, 2);
  auto early = content_score(*rope, 3, 0);
  if (!late || !early) return std::unexpected(late ? early.error() : late.error());
  answers.score_5_2 = *late;
  answers.score_3_0 = *early;

  // 4. The largest offset that fits T = 3 tokens, and the error one step beyond it
  const Tensor rows = fixture_content_rows();
  std::size_t fitting = 0;  // offsets 0, 1, ... that the capacity accepts
  while (rope->rotate(rows, fitting))
    ++fitting;
  if (fitting == 0) return std::unexpected(std::string("exercise 4: no offset fits"));
  answers.largest_offset = fitting - 1;
  auto beyond = rope->rotate(rows, fitting);
  answers.first_invalid = beyond ? "accepted" : fmt::format("{}", beyond.error());

  // 5. Position 0's output at offset 3: the real layer, and with rotated values
  auto policy =
      value_policy(*rope, rows, rows, fixture_value_rows(), Fixture::offsets[1]);
  if (!policy) return std::unexpected(policy.error());
  answers.position0_real = to_vector(policy->output.values().first(Fixture::width));
  answers.position0_values_rotated =
      to_vector(policy->output_if_values_rotated.values().first(Fixture::width));

  // 6. Width 2, base 100: the row R(-2)[1,0] at position 2, and what RoPE makes of it
  auto pair = RotaryEmbedding::create(2, 3, 100.0);
  if (!pair) return std::unexpected(fmt::format("exercise 6: {}", pair.error()));
  const double c = pair->cos_table().values()[2];  // cos(2·θ_0), θ_0 = 1
  const double s = pair->sin_table().values()[2];
  answers.counter_rotated_row = {c, -s};
  auto turned =
      pair->rotate(*Tensor::from(Shape{1, 2}, answers.counter_rotated_row), 2);
  if (!turned) return std::unexpected(fmt::format("exercise 6: {}", turned.error()));
  answers.counter_rotated_result = to_vector(turned->values());
  return answers;
}
// endregion: exercise-answers

}  // namespace ch29
