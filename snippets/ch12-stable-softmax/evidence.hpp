// Chapter 12
#pragma once
// Chapter 12's program: every value its report and trace print, gathered once from the
// library's softmax (src/llmfs/tensor/softmax.hpp) and from the naive formula beside
// it, and the functions that render them.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include <llmfs/tensor/softmax.hpp>

#include "../common/chapter.hpp"
#include "fixture.hpp"

namespace ch12 {

using snippets::Step;

/// One fixture row through both formulas.
struct RowResult {
  std::string name;                 ///< `small`, `large`, `tiny`, `masked`, `underflow`
  std::vector<double> logits;       ///< x
  std::vector<double> shifted;      ///< x − m
  std::vector<double> exps;         ///< exp(x − m)
  std::vector<double> softmax;      ///< the library's softmax
  std::vector<double> naive;        ///< exp(x) / Σ exp(x), no shift
  std::vector<double> log_softmax;  ///< the library's log-softmax
  std::vector<double> log_of_softmax;  ///< log of the library's softmax
  double logsumexp = 0.0;              ///< the library's log-sum-exp
  double naive_logsumexp = 0.0;        ///< log Σ exp(x), no shift
};

/// What the seeded random rows measured against the derived bounds.
struct Properties {
  std::size_t rows = 0;               ///< random rows checked
  std::size_t entries = 0;            ///< logits in them
  double max_sum_error_in_u = 0.0;    ///< max |Σ_j y_j − 1| / u over the rows
  double max_bound_in_u = 0.0;        ///< the bound (2n − 1) of the widest row, in u
  std::size_t sum_within_bound = 0;   ///< rows with |Σ y − 1| ≤ (2n − 1)·u
  std::size_t shift_bitwise = 0;      ///< rows whose softmax(x + c) has the same bits
  std::size_t masked = 0;             ///< −∞ entries among them
  std::size_t masked_exact_zero = 0;  ///< of those, probabilities exactly +0.0
  std::size_t log_checked = 0;  ///< entries where log(softmax) is finite (normal y)
  double max_log_gap = 0.0;     ///< max |log_softmax − log(softmax)| there
};

/// The exercise answers, computed.
struct Exercises {
  std::vector<double> thirds;  ///< 1: softmax([0, ln 2, ln 3])
  int naive_overflow_k = 0;    ///< 2: smallest k > 0 where naive [k, k] is not 0.5
  int naive_underflow_k = 0;   ///< 2: largest k < 0 where naive [k, k] is not 0.5
  double cross_entropy = 0.0;  ///< 3: −log_softmax(kUnderflow)[kTarget]
  double naive_cross_entropy = 0.0;  ///< 3: −log(softmax(kUnderflow)[kTarget])
};

/// Everything the report and the trace print.
struct Evidence {
  std::vector<RowResult> rows;           ///< the prediction's rows, fixture order
  bool large_is_small_bitwise = false;   ///< softmax(kLarge) has softmax(kSmall)'s bits
  std::string fully_masked_softmax;      ///< the typed error, as text
  std::string fully_masked_log_softmax;  ///< the typed error, as text
  double fully_masked_logsumexp = 0.0;   ///< −∞: log 0 is defined
  std::vector<double> fully_masked_naive;          ///< what the naive formula gives
  std::vector<std::array<std::string, 2>> errors;  ///< name and error text
  Properties properties;                           ///< the random rows
  Exercises exercises;                             ///< the exercise answers
};

/// exp(x_j) / Σ_k exp(x_k) exactly as written, no shift: the formula that overflows.
[[nodiscard]] std::vector<double> naive_softmax(std::span<const double> logits);
/// log Σ_k exp(x_k) exactly as written, no shift.
[[nodiscard]] double naive_logsumexp(std::span<const double> logits);
/// One fixture row through the library and the naive formula.
[[nodiscard]] Step<RowResult> run_row(std::string name, std::span<const double> logits);
/// One seeded random row: logits that are multiples of 2⁻²⁰ in [−kSpread, kSpread),
/// about one in eight masked with −∞ (never all), and an integer shift c.
struct RandomRow {
  std::vector<double> logits;  ///< x
  double shift = 0.0;          ///< c, an integer with |c| ≤ 2²⁰
};
/// `count` rows drawn with SplitMix64 from `seed`, 1 to kMaxWidth logits each.
[[nodiscard]] std::vector<RandomRow> random_rows(std::uint64_t seed, std::size_t count);
/// The random rows measured against the bounds.
[[nodiscard]] Step<Properties> measure_properties();
/// The refused inputs: name and error text.
[[nodiscard]] std::vector<std::array<std::string, 2>> refusals();
/// The exercise answers.
[[nodiscard]] Step<Exercises> solve_exercises();
/// Runs the whole chapter once.
[[nodiscard]] Step<Evidence> gather();

/// The report, one `key=value` line per fact.
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The trace records the diagram is drawn from.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch12
