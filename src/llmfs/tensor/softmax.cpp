// Chapter 12
#include <cmath>
#include <limits>
#include <span>
#include <string_view>
#include <vector>

#include <llmfs/core/try.hpp>
#include <llmfs/tensor/softmax.hpp>

namespace llmfs::tensor {

namespace {

constexpr double kMinusInfinity = -std::numeric_limits<double>::infinity();

// region: softmax-checks
// Rank >= 1, and every row passing check_logit_row(): no NaN or +∞ anywhere and, unless
// the operation is defined there, an entry above −∞. Checked for every row before any
// is computed.
[[nodiscard]] std::expected<void, TensorError> check_logits(std::string_view op,
                                                            const Tensor& logits,
                                                            bool allow_masked_rows) {
  const Shape& shape = logits.shape();
  if (shape.rank() == 0) {
    return std::unexpected(TensorError{
        TensorErrorCode::rank_too_small, std::string(op), {shape}, "needs rank >= 1"});
  }
  const std::size_t width = shape[shape.rank() - 1];
  if (width == 0) return {};
  const auto in = logits.values();
  for (std::size_t r = 0; r < in.size() / width; ++r)
    LLMFS_TRY(
        check_logit_row(op, shape, r, in.subspan(r * width, width), allow_masked_rows));
  return {};
}
// endregion: softmax-checks

// region: row-max
// m = max_k x_k, the shift: after it the largest exponent is exp(0) = 1. −∞ for a row
// of length 0 or of only −∞ entries. The rows hold no NaN (check_logits refused them),
// so one comparison is a maximum; on a tie (0.0 and −0.0) the earlier entry stays.
double row_max(std::span<const double> row) {
  double m = kMinusInfinity;
  for (double x : row)
    m = x > m ? x : m;
  return m;
}
// endregion: row-max

// region: row-by-row
// A new tensor of the logits' shape, each row of the last axis written by
// `row_op(row, out_row)`; rows of length 0 leave it empty.
template <class RowOp>
Tensor map_rows(const Tensor& logits, RowOp row_op) {
  const std::size_t width = logits.shape()[logits.shape().rank() - 1];
  Tensor out =
      Tensor::uninitialized(logits.shape());  // every row writes all of its own
  if (width == 0) return out;
  const auto in = logits.values();
  auto y = out.mutable_values();
  for (std::size_t r = 0; r < in.size() / width; ++r)
    row_op(in.subspan(r * width, width), y.subspan(r * width, width));
  return out;
}
// endregion: row-by-row

// region: log-sum-exp-row
// log Σ_k exp(x_k − m) for the row's maximum m: every term is at most 1 and the
// largest is exactly 1, so the sum lies in [1, n], its log in [0, log n], and nothing
// overflows or underflows to 0. Adding m back gives log Σ_k exp(x_k).
double log_sum_exp_shifted(std::span<const double> row, double m) {
  double total = 0.0;
  for (double x : row)
    total += std::exp(x - m);  // exp(−∞ − m) is exactly 0.0
  return std::log(total);
}
// endregion: log-sum-exp-row

}  // namespace

// region: softmax-row-check
std::expected<void, TensorError> check_logit_row(std::string_view op,
                                                 const Shape& shape,
                                                 std::size_t row_index,
                                                 std::span<const double> row,
                                                 bool allow_masked_row) {
  bool any_allowed = row.empty();  // an empty row has nothing to normalise
  for (std::size_t j = 0; j < row.size(); ++j) {
    const double x = row[j];
    if (std::isnan(x) || x == std::numeric_limits<double>::infinity()) {
      return std::unexpected(
          TensorError{TensorErrorCode::non_finite_input,
                      std::string(op),
                      {shape},
                      fmt::format("row {} entry {} is {}", row_index, j, x)});
    }
    if (x != kMinusInfinity) any_allowed = true;
  }
  if (!any_allowed && !allow_masked_row) {
    return std::unexpected(
        TensorError{TensorErrorCode::fully_masked_row,
                    std::string(op),
                    {shape},
                    fmt::format("row {} is entirely -inf", row_index)});
  }
  return {};
}
// endregion: softmax-row-check

// region: softmax
std::expected<Tensor, TensorError> softmax_last_axis(const Tensor& logits) {
  // logits: [..., n] -> probabilities [..., n], each row summing to 1
  LLMFS_TRY(check_logits("softmax_last_axis", logits, false));
  return map_rows(logits, [](std::span<const double> row, std::span<double> out) {
    // Subtract the row maximum, exponentiate, normalise
    const double m = row_max(row);
    double total = 0.0;
    for (std::size_t j = 0; j < row.size(); ++j) {
      // exp(−∞) is exactly 0.0, so a masked entry is written without calling exp
      out[j] = row[j] == kMinusInfinity ? 0.0 : std::exp(row[j] - m);
      total += out[j];
    }
    for (double& v : out)
      v /= total;
  });
}
// endregion: softmax

// region: log-softmax
std::expected<Tensor, TensorError> log_softmax_last_axis(const Tensor& logits) {
  // logits: [..., n] -> log-probabilities [..., n]: x_j − logsumexp(x)
  LLMFS_TRY(check_logits("log_softmax_last_axis", logits, false));
  return map_rows(logits, [](std::span<const double> row, std::span<double> out) {
    const double m = row_max(row);
    const double log_total = log_sum_exp_shifted(row, m);  // in [0, log n]
    for (std::size_t j = 0; j < row.size(); ++j)
      out[j] = (row[j] - m) - log_total;  // −∞ stays −∞
  });
}
// endregion: log-softmax

// region: logsumexp
std::expected<Tensor, TensorError> logsumexp_last_axis(const Tensor& logits) {
  // logits: [..., n] -> [...]: the last axis summed away, one log-sum-exp per row
  LLMFS_TRY(check_logits("logsumexp_last_axis", logits, true));
  std::vector<std::size_t> leading = logits.shape().as_vector();
  const std::size_t width = leading.back();
  leading.pop_back();
  LLMFS_TRY(checked_element_count(Shape(leading), "logsumexp_last_axis"));  // [m,n,0]
  Tensor out = Tensor::full(Shape(std::move(leading)), kMinusInfinity);
  if (width == 0) return out;  // every row is empty: log 0 = −∞
  const auto in = logits.values();
  auto y = out.mutable_values();
  for (std::size_t r = 0; r < y.size(); ++r) {
    const auto row = in.subspan(r * width, width);
    const double m = row_max(row);
    if (m == kMinusInfinity) continue;  // only −∞ entries: log 0 = −∞, already there
    y[r] = m + log_sum_exp_shifted(row, m);
  }
  return out;
}
// endregion: logsumexp

}  // namespace llmfs::tensor
