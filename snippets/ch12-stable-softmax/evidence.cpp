// Chapter 12
// The chapter's evidence: the fixture rows through the library's softmax, log-softmax
// and log-sum-exp and through the naive formula; seeded random rows against the bounds
// the chapter derives; the typed errors; the exercises.
#include "evidence.hpp"

#include <cmath>
#include <limits>
#include <utility>

namespace ch12 {

using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;

namespace {

// The unit roundoff u = 2⁻⁵³, half the gap between 1 and the next double.
constexpr double kUnitRoundoff = std::numeric_limits<double>::epsilon() / 2.0;

// SplitMix64 (Steele, Lea and Flood 2014): a fixed sequence per seed, here and in
// tests/reference/text_common.py.
struct Ch12SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
};

using Op = std::expected<Tensor, llmfs::tensor::TensorError> (*)(const Tensor&);

// The values of `op` applied to the logits as one row, shape [n].
[[nodiscard]] Step<std::vector<double>> values_of(std::string_view step,
                                                  std::span<const double> x, Op op) {
  auto tensor = LLMFS_TRY_AT(step, Tensor::from(Shape{x.size()}, {x.begin(), x.end()}));
  auto result = LLMFS_TRY_AT(step, op(tensor));
  return std::vector<double>(result.values().begin(), result.values().end());
}

double sum_of(std::span<const double> v) {
  double total = 0.0;
  for (double x : v)
    total += x;
  return total;
}

}  // namespace

// region: naive-softmax
// The formula as first written: exp(x_j) / Σ_k exp(x_k). exp overflows to +∞ above
// ln(DBL_MAX) ≈ 709.78 and underflows to 0 below about −745.13; then ∞/∞ or 0/0 is NaN.
std::vector<double> naive_softmax(std::span<const double> logits) {
  std::vector<double> y(logits.size());
  double total = 0.0;
  for (std::size_t j = 0; j < logits.size(); ++j) {
    y[j] = std::exp(logits[j]);
    total += y[j];
  }
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
  double m = -kInf;
  for (double x : logits)
    m = std::fmax(m, x);
  for (double x : logits) {
    r.shifted.push_back(x - m);
    r.exps.push_back(std::exp(x - m));
  }
  r.softmax = LLMFS_TRY(values_of("softmax", logits, llmfs::tensor::softmax_last_axis));
  r.log_softmax =
      LLMFS_TRY(values_of("log-softmax", logits, llmfs::tensor::log_softmax_last_axis));
  r.logsumexp =
      LLMFS_TRY(values_of("logsumexp", logits, llmfs::tensor::logsumexp_last_axis))[0];
  for (double p : r.softmax)
    r.log_of_softmax.push_back(std::log(p));
  r.naive = naive_softmax(logits);
  r.naive_logsumexp = naive_logsumexp(logits);
  return r;
}
// endregion: run-row

std::vector<RandomRow> random_rows(std::uint64_t seed, std::size_t count) {
  constexpr double kGrid = 1048576.0;  // 2²⁰: logits are k / 2²⁰, exact in a double
  Ch12SplitMix64 rng{seed};
  std::vector<RandomRow> rows(count);
  for (RandomRow& row : rows) {
    const std::size_t width = 1 + rng.next() % kMaxWidth;
    for (std::size_t j = 0; j < width; ++j) {
      const auto k = static_cast<std::int64_t>(
          rng.next() % static_cast<std::uint64_t>(2 * kSpread * kGrid));
      const bool mask = rng.next() % 8 == 0 && j + 1 < width;
      row.logits.push_back(mask ? -kInf : static_cast<double>(k) / kGrid - kSpread);
    }
    row.shift = static_cast<double>(static_cast<std::int64_t>(rng.next() % (1u << 21)) -
                                    (1 << 20));
  }
  return rows;
}

// region: measure-properties
// Every random row: the sum against the bound (2n − 1)·u, softmax(x + c) against
// softmax(x) bit for bit, −∞ against exact zeros, log-softmax against log(softmax).
Step<Properties> measure_properties() {
  Properties p;
  for (const RandomRow& row : random_rows(kSeed, kRandomRows)) {
    const std::size_t n = row.logits.size();
    const auto y = LLMFS_TRY(run_row("random", row.logits));
    std::vector<double> moved = row.logits;
    for (double& x : moved)
      x += row.shift;  // exact: |x + c| < 2²¹ and x is a multiple of 2⁻²⁰
    const auto shifted = LLMFS_TRY(run_row("shifted", moved));
    const double error = std::fabs(sum_of(y.softmax) - 1.0) / kUnitRoundoff;
    const double bound = 2.0 * static_cast<double>(n) - 1.0;
    p.rows += 1;
    p.entries += n;
    p.max_sum_error_in_u = std::fmax(p.max_sum_error_in_u, error);
    p.max_bound_in_u = std::fmax(p.max_bound_in_u, bound);
    p.sum_within_bound += error <= bound ? 1 : 0;
    p.shift_bitwise += shifted.softmax == y.softmax ? 1 : 0;
    for (std::size_t j = 0; j < n; ++j) {
      if (row.logits[j] == -kInf) {
        p.masked += 1;
        p.masked_exact_zero += y.softmax[j] == 0.0 && !std::signbit(y.softmax[j]);
      } else if (y.softmax[j] >= std::numeric_limits<double>::min()) {
        p.log_checked += 1;
        p.max_log_gap =
            std::fmax(p.max_log_gap, std::fabs(y.log_softmax[j] - y.log_of_softmax[j]));
      }
    }
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
  for (int k = 0; k <= kScanHigh && x.naive_overflow_k == 0; ++k)
    if (breaks(k)) x.naive_overflow_k = k;
  for (int k = 0; k >= kScanLow && x.naive_underflow_k == 0; --k)
    if (breaks(k)) x.naive_underflow_k = k;
  // 3: the cross-entropy of class kTarget, from log-softmax and from log(softmax)
  const auto row = LLMFS_TRY(run_row("exercise 3", kUnderflow));
  x.cross_entropy = -row.log_softmax[kTarget];
  x.naive_cross_entropy = -row.log_of_softmax[kTarget];
  return x;
}
// endregion: exercises

// region: refusals
// Logits the softmax refuses, each error kept as its text.
std::vector<std::array<std::string, 2>> refusals() {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  using llmfs::tensor::softmax_last_axis;
  return {
      {"nan_logit", snippets::error_text(softmax_last_axis(
                        Tensor::from(Shape{2, 2}, {0.0, 1.0, 2.0, nan}).value()))},
      {"positive_infinity", snippets::error_text(softmax_last_axis(
                                Tensor::from(Shape{2}, {kInf, 0.0}).value()))},
      {"rank_zero", snippets::error_text(softmax_last_axis(Tensor::scalar(1.0)))},
  };
}
// endregion: refusals

// region: gather
Step<Evidence> gather() {
  Evidence e;
  e.rows.push_back(LLMFS_TRY(run_row("small", kSmall)));
  e.rows.push_back(LLMFS_TRY(run_row("large", kLarge)));
  e.rows.push_back(LLMFS_TRY(run_row("tiny", kTiny)));
  e.rows.push_back(LLMFS_TRY(run_row("masked", kMasked)));
  e.rows.push_back(LLMFS_TRY(run_row("underflow", kUnderflow)));
  e.large_is_small_bitwise = e.rows[1].softmax == e.rows[0].softmax;
  // The fully masked row: refused by softmax and log-softmax, −∞ from log-sum-exp
  const Tensor masked =
      LLMFS_TRY_AT("fully masked", Tensor::from(Shape{1, 2}, {-kInf, -kInf}));
  e.fully_masked_softmax =
      snippets::error_text(llmfs::tensor::softmax_last_axis(masked));
  e.fully_masked_log_softmax =
      snippets::error_text(llmfs::tensor::log_softmax_last_axis(masked));
  e.fully_masked_logsumexp =
      LLMFS_TRY_AT("fully masked", llmfs::tensor::logsumexp_last_axis(masked))
          .values()[0];
  e.fully_masked_naive = naive_softmax(kFullyMasked);
  e.errors = refusals();
  e.properties = LLMFS_TRY(measure_properties());
  e.exercises = LLMFS_TRY(solve_exercises());
  return e;
}
// endregion: gather

}  // namespace ch12
