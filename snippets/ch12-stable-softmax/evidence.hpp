// Chapter 12
#pragma once
// Chapter 12's program: every value its report and trace print, gathered once from the
// library's softmax (src/llmfs/tensor/softmax.hpp) and from the naive formula beside
// it, and the functions that render them.

#include <array>
#include <string>
#include <vector>

#include <llmfs/tensor/softmax.hpp>

#include "../common/chapter.hpp"
#include "fixture.hpp"

namespace ch12 {

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

/// What the seeded random rows measured: the worst cases (the chapter test checks
/// every row against its own bound).
struct Properties {
  double max_sum_error_in_u = 0.0;  ///< max |Σ_j y_j − 1| / u over the rows
  double max_bound_in_u = 0.0;      ///< the bound (2n − 1) of the widest row, in u
  double max_log_gap = 0.0;  ///< max |log_softmax − log(softmax)| where y is normal
};

/// The exercise answers, computed.
struct Exercises {
  std::vector<double> thirds;  ///< 1: softmax([0, ln 2, ln 3])
  int naive_overflow_k = 0;    ///< 2: smallest k > 0 where naive [k, k] is not 0.5
  int naive_underflow_k = 0;   ///< 2: largest k < 0 where naive [k, k] is not 0.5
  double cross_entropy = 0.0;  ///< 3: −log_softmax([0, −800])[1]
  double naive_cross_entropy = 0.0;  ///< 3: −log(softmax([0, −800])[1])
};

/// Everything the report and the trace print.
struct Evidence {
  std::vector<RowResult> rows;             ///< the prediction's rows, fixture order
  std::string fully_masked_softmax;        ///< the typed error, as text
  std::string fully_masked_log_softmax;    ///< the typed error, as text
  double fully_masked_logsumexp = 0.0;     ///< −∞: log 0 is defined
  std::vector<double> fully_masked_naive;  ///< what the naive formula gives
  std::vector<std::array<std::string, 2>> errors;  ///< name and error text
  Properties properties;                           ///< the random rows
  Exercises exercises;                             ///< the exercise answers
};

/// Runs the whole chapter once.
[[nodiscard]] snippets::Step<Evidence> gather();
/// The report, one `key=value` line per fact.
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The trace records the diagram is drawn from.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch12
