// Chapter 12
// The chapter's evidence: the fixture rows through the library's softmax, log-softmax
// and log-sum-exp and through the naive formula; seeded random rows measured against
// the bounds the chapter derives; the typed errors; the exercises.
#include "evidence.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

namespace ch12 {

using llmfs::tensor::log_softmax_last_axis;
using llmfs::tensor::logsumexp_last_axis;
using llmfs::tensor::Shape;
using llmfs::tensor::softmax_last_axis;
using llmfs::tensor::Tensor;
using snippets::Step;

namespace {

std::vector<double> values_of(const Tensor& t) {
  return {t.values().begin(), t.values().end()};
}

}  // namespace

// region: naive-softmax
// The formula as first written: exp(x_j) / Σ_k exp(x_k). exp overflows to +∞ above
// ln(DBL_MAX) ≈ 709.78 and underflows to 0 below about −745.13; then ∞/∞ or 0/0 is NaN.
std::vector<double> naive_softmax(std::span<const double> logits) {
  std::vector<double> y;
  for (double x : logits)
    y.push_back(std::exp(x));
  const double total = std::accumulate(y.begin(), y.end(), 0.0);
  for (double& v : y)
    v /= total;
  return y;
}

double naive_logsumexp(std::span<const double> logits) {
  double total = 0.0;
  for (double x : logits)
    total += std::exp(x);
  return std::log(total);
}
// endregion: naive-softmax

// region: run-row
// One row through the stable and the naive formulas, with the intermediates x − m and
// exp(x − m) that the derivation and the diagram show.
Step<RowResult> run_row(std::string name, std::span<const double> logits) {
  RowResult r;
  r.name = std::move(name);
  r.logits.assign(logits.begin(), logits.end());
  const Tensor x = LLMFS_TRY_AT(r.name, Tensor::from(Shape{logits.size()}, r.logits));
  const double m = std::ranges::max(logits);  // every fixture row has an entry
  for (double v : logits) {
    r.shifted.push_back(v - m);
    r.exps.push_back(std::exp(v - m));
  }
  r.softmax = values_of(LLMFS_TRY_AT("softmax", softmax_last_axis(x)));
  r.log_softmax = values_of(LLMFS_TRY_AT("log-softmax", log_softmax_last_axis(x)));
  r.logsumexp = LLMFS_TRY_AT("logsumexp", logsumexp_last_axis(x)).values()[0];
  for (double p : r.softmax)
    r.log_of_softmax.push_back(std::log(p));
  r.naive = naive_softmax(logits);
  r.naive_logsumexp = naive_logsumexp(logits);
  return r;
}
// endregion: run-row

// region: measure-properties
// The worst cases over the random rows: how far a row's sum lands from 1, in units of
// u = 2⁻⁵³, beside the bound (2n − 1)·u; and the largest gap between log-softmax and
// log(softmax) where the probability is a normal double.
Step<Properties> measure_properties() {
  constexpr double u = std::numeric_limits<double>::epsilon() / 2.0;
  Properties p;
  for (const RandomRow& row : random_rows(kSeed, kRandomRows)) {
    const auto y = LLMFS_TRY(run_row("random", row.logits));
    const double sum = std::accumulate(y.softmax.begin(), y.softmax.end(), 0.0);
    const double bound = 2.0 * static_cast<double>(row.logits.size()) - 1.0;
    p.max_sum_error_in_u = std::fmax(p.max_sum_error_in_u, std::fabs(sum - 1.0) / u);
    p.max_bound_in_u = std::fmax(p.max_bound_in_u, bound);
    for (std::size_t j = 0; j < y.softmax.size(); ++j)
      if (y.softmax[j] >= std::numeric_limits<double>::min())
        p.max_log_gap =
            std::fmax(p.max_log_gap, std::fabs(y.log_softmax[j] - y.log_of_softmax[j]));
  }
  return p;
}
// endregion: measure-properties

// region: exercises
Step<Exercises> solve_exercises() {
  Exercises x;
  // 1: exps 1, 2, 3 (up to rounding of ln 2 and ln 3), so [1/6, 1/3, 1/2]
  const std::array<double, 3> logs{0.0, std::log(2.0), std::log(3.0)};
  x.thirds = LLMFS_TRY(run_row("exercise 1", logs)).softmax;
  // 2: scan k for the first integers where the naive [k, k] is not exactly [0.5, 0.5]
  auto breaks = [](int k) {
    const double v = static_cast<double>(k);
    return naive_softmax(std::array<double, 2>{v, v})[0] != 0.5;
  };
  for (int k = 0; k <= 800 && x.naive_overflow_k == 0; ++k)
    if (breaks(k)) x.naive_overflow_k = k;
  for (int k = 0; k >= -800 && x.naive_underflow_k == 0; --k)
    if (breaks(k)) x.naive_underflow_k = k;
  // 3: the cross-entropy of class 1, from log-softmax and from log(softmax)
  const auto row = LLMFS_TRY(run_row("exercise 3", kUnderflow));
  x.cross_entropy = -row.log_softmax[1];
  x.naive_cross_entropy = -row.log_of_softmax[1];
  return x;
}
// endregion: exercises

// region: refusals
// Logits the softmax refuses, each error kept as its text.
std::vector<std::array<std::string, 2>> refusals() {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  return {
      {"nan_logit", snippets::error_text(softmax_last_axis(
                        Tensor::from(Shape{2, 2}, {0.0, 1.0, 2.0, nan}).value()))},
      {"positive_infinity", snippets::error_text(softmax_last_axis(
                                Tensor::from(Shape{2}, {kInf, 0.0}).value()))},
      {"rank_zero", snippets::error_text(softmax_last_axis(Tensor::scalar(1.0)))},
  };
}
// endregion: refusals

Step<Evidence> gather() {
  Evidence e;
  e.rows.push_back(LLMFS_TRY(run_row("small", kSmall)));
  e.rows.push_back(LLMFS_TRY(run_row("large", kLarge)));
  e.rows.push_back(LLMFS_TRY(run_row("tiny", kTiny)));
  e.rows.push_back(LLMFS_TRY(run_row("masked", kMasked)));
  e.rows.push_back(LLMFS_TRY(run_row("underflow", kUnderflow)));
  // The fully masked row: refused by softmax and log-softmax, −∞ from log-sum-exp
  const Tensor masked =
      LLMFS_TRY_AT("fully masked", Tensor::from(Shape{1, 2}, {-kInf, -kInf}));
  e.fully_masked_softmax = snippets::error_text(softmax_last_axis(masked));
  e.fully_masked_log_softmax = snippets::error_text(log_softmax_last_axis(masked));
  e.fully_masked_logsumexp =
      LLMFS_TRY_AT("fully masked", logsumexp_last_axis(masked)).values()[0];
  e.fully_masked_naive = naive_softmax(kFullyMasked);
  e.errors = refusals();
  e.properties = LLMFS_TRY(measure_properties());
  e.exercises = LLMFS_TRY(solve_exercises());
  return e;
}

}  // namespace ch12
