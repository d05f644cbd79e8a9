// Chapter 28
// The evidence, the report, and the trace that docs/_ext/diagrams/ch28.py draws.
#include "evidence.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include <llmfs/attention/causal.hpp>
#include <llmfs/report/record.hpp>
#include <llmfs/tensor/broadcast.hpp>
#include <llmfs/tensor/matmul.hpp>
#include <llmfs/tensor/softmax.hpp>

namespace ch28 {

namespace at = llmfs::attention;
namespace tensor = llmfs::tensor;
using namespace llmfs::report;  // format_*, record, row
using tensor::Shape;

Step<CausalPass> run_causal(const Tensor& query, const Tensor& key,
                            const Tensor& value) {
  llmfs::autograd::Tape tape;
  const auto head = LLMFS_TRY_AT(
      "causal head", at::causal_self_attention(tape.constant(query), tape.constant(key),
                                               tape.constant(value)));
  return CausalPass{LLMFS_TRY_AT("mask", at::causal_mask(query.shape()[1])),
                    LLMFS_TRY_AT("read scores", head.scores.value()),
                    LLMFS_TRY_AT("read masked scores", head.masked_scores.value()),
                    LLMFS_TRY_AT("read weights", head.weights.value()),
                    LLMFS_TRY_AT("read output", head.output.value())};
}

// region: prefix-invariance
Tensor with_last_token_replaced(const Tensor& input) {
  // Replace only the last token; every earlier row is then compared bit for bit
  Tensor changed = input;
  std::ranges::copy(kReplacement, changed.mutable_values().end() - kWidth);
  return changed;
}

bool same_row(const Tensor& before, const Tensor& after, std::size_t row) {
  const std::size_t width = before.shape()[before.rank() - 1];
  return tensor::bitwise_equal(llmfs::report::row(before, row, width),
                               llmfs::report::row(after, row, width));
}
// endregion: prefix-invariance

namespace {

// The number of allowed (0) entries of the [T,T] mask.
[[nodiscard]] Step<std::size_t> allowed_entries(std::size_t tokens) {
  const auto mask = LLMFS_TRY_AT("mask", at::causal_mask(tokens));
  return static_cast<std::size_t>(std::ranges::count(mask.values(), 0.0));
}

// Exercise 5: `pass` again with the mask's −∞ entries replaced by `blocked`: the
// weights and the output weights·V.
[[nodiscard]] Step<std::pair<Tensor, Tensor>> finite_mask_head(const CausalPass& pass,
                                                               const Tensor& value,
                                                               double blocked) {
  Tensor mask = pass.mask;
  std::ranges::replace_if(
      mask.mutable_values(), [](double m) { return std::isinf(m); }, blocked);
  const auto masked = LLMFS_TRY_AT("finite mask", tensor::add(pass.scores, mask));
  auto weights = LLMFS_TRY_AT("softmax", tensor::softmax_last_axis(masked));
  auto output = LLMFS_TRY_AT("mix", tensor::matmul(weights, value));
  return std::pair{std::move(weights), std::move(output)};
}

}  // namespace

// region: exercise-answers
Step<Exercises> exercise_answers(const Evidence& e) {
  Exercises answers;
  const Tensor& x = e.input;  // identity projections: Q = K = V = X
  // 1. Count the mask's allowed (0) entries; the rest of the T² are blocked (−∞)
  answers.allowed_4 = LLMFS_TRY(allowed_entries(4));
  answers.allowed_1024 = LLMFS_TRY(allowed_entries(1024));

  // 2. W_Q = 0: equal scores, so each row is uniform over the keys it may see
  answers.blind = LLMFS_TRY(run_causal(Tensor::zeros(x.shape()), x, x));

  // 3. Change token 1 only
  const auto changed =
      LLMFS_TRY_AT("token 1 changed", Tensor::from(x.shape(), kToken1Changed));
  answers.token_1_changed_output =
      LLMFS_TRY(run_causal(changed, changed, changed)).output;

  // 4. Chapter 27's weights: the row softmax of the same scores, without the mask
  answers.unmasked_weights =
      LLMFS_TRY_AT("unmasked", tensor::softmax_last_axis(e.fixture.scores));

  // 5. A finite mask of −10 instead of −∞, before and after token 2 := [3,-2]
  const auto [weights, before] = LLMFS_TRY(finite_mask_head(e.fixture, x, kFiniteMask));
  answers.future_weight = weights.values()[1] + weights.values()[2];
  answers.finite_before = before;
  answers.finite_after =
      LLMFS_TRY(finite_mask_head(e.changed, with_last_token_replaced(x), kFiniteMask))
          .second;
  return answers;
}
// endregion: exercise-answers

Step<Evidence> gather_evidence() {
  Evidence e{};
  static_cast<snippets::FixtureTensors&>(e) = LLMFS_TRY(snippets::fixture_tensors());
  const Tensor& x = e.input;  // identity projections: Q = K = V = X
  e.fixture = LLMFS_TRY(run_causal(x, x, x));
  e.row_sums = LLMFS_TRY_AT("row sums", tensor::reduce_sum(e.fixture.weights, 2));
  const Tensor changed = with_last_token_replaced(x);
  e.changed = LLMFS_TRY(run_causal(changed, changed, changed));

  // Typed errors, each call wrong in one way
  const auto head = &at::causal_self_attention;
  const Tensor empty = Tensor::zeros(Shape{1, 0, 2}),
               two = Tensor::zeros(Shape{1, 2, 2});
  e.error_empty_tokens = snippets::refusal(head, empty, empty, empty);
  e.error_token_mismatch = snippets::refusal(head, x, two, two);
  const double blocked = -std::numeric_limits<double>::infinity();
  e.error_fully_masked_row = snippets::error_text(
      tensor::softmax_last_axis(Tensor::full(Shape{1, 2}, blocked)));
  e.exercises = LLMFS_TRY(exercise_answers(e));
  return e;
}

std::string render_report(const Evidence& e) {
  const CausalPass& f = e.fixture;
  const Exercises& x = e.exercises;
  return snippets::join_lines({
      "chapter=28-causal-masking",
      snippets::config_line() + " mask:additive",
      "mask=" + format_tensor(f.mask),
      "scores=" + format_tensor(f.scores),
      "masked_scores=" + format_tensor(f.masked_scores),
      "weights=" + format_tensor(f.weights),
      "output=" + format_tensor(f.output),
      fmt::format("prefix=replaced_token:{} replacement:{} changed_output:{}",
                  kTokens - 1, format_values(kReplacement),
                  format_values(e.changed.output.values())),
      "error_empty_tokens=" + e.error_empty_tokens,
      "error_token_mismatch=" + e.error_token_mismatch,
      "error_fully_masked_row=" + e.error_fully_masked_row,
      fmt::format(
          "exercise_1=t4_allowed:{} t4_blocked:{} t1024_allowed:{} t1024_total:{}",
          x.allowed_4, 4 * 4 - x.allowed_4, x.allowed_1024, 1024 * 1024),
      fmt::format("exercise_2=weights:{} output:{}",
                  format_values(x.blind.weights.values()),
                  format_values(x.blind.output.values())),
      "exercise_3=token_1_changed_output:" +
          format_values(x.token_1_changed_output.values()),
      "exercise_4=unmasked_row_2_weights:" +
          format_values(row(x.unmasked_weights, kTokens - 1, kTokens)),
      fmt::format("exercise_5=finite_mask:{} row_0_future_weight:{} row_0_before:{} "
                  "row_0_after_token_2_change:{} prefix_invariance:{}",
                  format_number(kFiniteMask), format_number(x.future_weight),
                  format_values(x.finite_before.values().first(kWidth)),
                  format_values(x.finite_after.values().first(kWidth)),
                  same_row(x.finite_before, x.finite_after, 0) ? "holds" : "broken"),
      "next=rotate queries and keys by position so scores see distance: 29-rope",
  });
}

// region: trace-records
std::string render_trace(const Evidence& e) {
  const CausalPass& f = e.fixture;
  std::vector<std::string> out{record("CONFIG", "batch", kBatch, "tokens", kTokens,
                                      "d_k", kWidth, "scale", 1.0 / std::sqrt(2.0),
                                      "mask", "additive causal")};
  // Every query/key pair: visibility, score, mask entry, masked score, weight
  for (std::size_t i = 0; i < kTokens; ++i)
    for (std::size_t j = 0, at = i * kTokens; j < kTokens; ++j, ++at)
      out.push_back(record("CELL", "query", i, "key", j, "visibility",
                           j <= i ? "allowed" : "blocked", "diagonal", i == j, "score",
                           f.scores.values()[at], "mask", f.mask.values()[at],
                           "masked_score", f.masked_scores.values()[at], "weight",
                           f.weights.values()[at]));
  // Each row's sum and value mixture
  for (std::size_t i = 0; i < kTokens; ++i)
    out.push_back(record("MIX", "query", i, "allowed_keys", i + 1, "row_sum",
                         e.row_sums.values()[i], "output", row(f.output, i, kWidth)));
  // The prefix check: the last token replaced, every output row compared bit for bit
  for (std::size_t i = 0; i < kTokens; ++i) {
    const bool same = same_row(f.output, e.changed.output, i);
    out.push_back(record("PREFIX", "token", i, "before", row(f.output, i, kWidth),
                         "after", row(e.changed.output, i, kWidth), "status",
                         same ? "bitwise-unchanged" : "changed", "replaced",
                         kTokens - 1, "replacement", kReplacement));
  }
  // A finite mask leaks: exercise 5
  const Exercises& x = e.exercises;
  const bool holds = same_row(x.finite_before, x.finite_after, 0);
  out.push_back(record("LEAK", "mask", kFiniteMask, "future_weight", x.future_weight,
                       "row0_before", row(x.finite_before, 0, kWidth), "row0_after",
                       row(x.finite_after, 0, kWidth), "prefix",
                       holds ? "holds" : "broken"));
  return snippets::join_lines(out);
}
// endregion: trace-records

}  // namespace ch28
