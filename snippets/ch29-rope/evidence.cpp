// Chapter 29
// Gathers every value the report and the trace print.

#include "evidence.hpp"

#include <limits>
#include <numbers>
#include <numeric>

#include <llmfs/attention/causal.hpp>
#include <llmfs/autograd/ops.hpp>
#include <llmfs/autograd/tape.hpp>

namespace ch29 {

namespace ag = llmfs::autograd;
using llmfs::attention::RotaryEmbedding;
using llmfs::tensor::Tensor;
using snippets::error_text;

namespace {

// region: relative-scores
// Rotate queries and keys at one offset, then take every dot product:
// S[p][s] = q̃_p · k̃_s, unscaled, so the numbers match the chapter's cosines.
[[nodiscard]] Step<RelativeScores> relative_scores(const RotaryEmbedding& rope,
                                                   const Tensor& query,
                                                   const Tensor& key,
                                                   std::size_t offset) {
  // query, key: [1, T, d] -> scores: [1, T, T]
  ag::Tape tape;
  const auto rotated_query =
      LLMFS_TRY_AT("rotate queries", rope.rotate(tape.constant(query), offset));
  const auto rotated_key =
      LLMFS_TRY_AT("rotate keys", rope.rotate(tape.constant(key), offset));
  const auto key_columns =
      LLMFS_TRY_AT("transpose keys", ag::transpose(rotated_key, 1, 2));
  const auto scores =
      LLMFS_TRY_AT("score table", ag::matmul(rotated_query, key_columns));
  return RelativeScores{*rotated_query.value(), *scores.value()};
}
// endregion: relative-scores

// region: value-policy
// Only queries and keys are rotated: the weights then depend on gaps alone, and the
// values they average keep no trace of absolute position. The contrast rotates the
// values too.
[[nodiscard]] Step<ValuePolicy> value_policy(const RotaryEmbedding& rope,
                                             const Tensor& query, const Tensor& key,
                                             const Tensor& value, std::size_t offset) {
  // query, key, value: [1, T, d] -> weights [1, T, T], outputs [1, T, d]
  ag::Tape tape;
  const auto q =
      LLMFS_TRY_AT("rotate queries", rope.rotate(tape.constant(query), offset));
  const auto k = LLMFS_TRY_AT("rotate keys", rope.rotate(tape.constant(key), offset));
  const ag::TensorValue v = tape.constant(value);  // the values stay as they are
  const auto attention = LLMFS_TRY_AT("causal attention",
                                      llmfs::attention::causal_self_attention(q, k, v));

  // What the layer does NOT do: rotate the values by their own positions as well
  const auto v_rotated =
      LLMFS_TRY_AT("rotate values (contrast)", rope.rotate(v, offset));
  const auto contrast =
      LLMFS_TRY_AT("contrast output", ag::matmul(attention.weights, v_rotated));
  return ValuePolicy{*attention.weights.value(), *attention.output.value(),
                     *contrast.value()};
}
// endregion: value-policy

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

// region: exercise-answers
[[nodiscard]] Step<ExerciseAnswers> answer_exercises(const Evidence& e) {
  ExerciseAnswers answers;

  // 1. The rates of width 8, base 10000
  const auto wide = LLMFS_TRY_AT("exercise 1", RotaryEmbedding::create(8, 1, 10000.0));
  answers.rates_width8_base10000 = to_vector(wide.frequencies());

  // 2. Positions per full turn of the fixture's slow pair
  const RotaryEmbedding& rope = e.rope;  // the fixture's layer
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
  const ValuePolicy& policy = e.runs[1].attention;
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

}  // namespace

Step<Evidence> gather_evidence() {
  Evidence e{.rope = LLMFS_TRY_AT("fixture RoPE", fixture_rope())};
  const Tensor rows = fixture_content_rows();
  for (std::size_t r = 0; r < Fixture::offsets.size(); ++r) {
    const std::size_t offset = Fixture::offsets[r];
    e.runs[r] = {
        offset, LLMFS_TRY(relative_scores(e.rope, rows, rows, offset)),
        LLMFS_TRY(value_policy(e.rope, rows, rows, fixture_value_rows(), offset))};
  }
  constexpr std::size_t width = Fixture::width, capacity = Fixture::capacity;
  constexpr double base = Fixture::base;
  const std::size_t huge = std::numeric_limits<std::size_t>::max() - 1;
  e.errors = {
      {"zero_width", error_text(RotaryEmbedding::create(0, capacity, base))},
      {"odd_width", error_text(RotaryEmbedding::create(3, capacity, base))},
      {"base", error_text(RotaryEmbedding::create(width, capacity, 1.0))},
      {"zero_capacity", error_text(RotaryEmbedding::create(width, 0, base))},
      {"capacity", error_text(e.rope.rotate(rows, Fixture::offsets[1] + 1))},
      {"offset_overflow", error_text(e.rope.rotate(rows, huge))},
  };
  e.exercises = LLMFS_TRY(answer_exercises(e));
  return e;
}

}  // namespace ch29
