// Chapter 29
// Gathers every value the report and the trace print.

#include "evidence.hpp"

#include <limits>

#include <llmfs/attention/causal.hpp>
#include <llmfs/autograd/ops.hpp>
#include <llmfs/autograd/tape.hpp>

namespace ch29 {

namespace ag = llmfs::autograd;
using llmfs::attention::RotaryEmbedding;
using llmfs::tensor::Tensor;

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
  e.exercises = LLMFS_TRY(answer_exercises(e.runs[1]));
  return e;
}

}  // namespace ch29
