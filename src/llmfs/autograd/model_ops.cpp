// Chapter 16
#include <algorithm>
#include <cmath>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <llmfs/autograd/model_ops.hpp>
#include <llmfs/core/try.hpp>
#include <llmfs/tensor/matmul.hpp>
#include <llmfs/tensor/softmax.hpp>

namespace llmfs::autograd {

namespace {

using tensor::Shape;
using tensor::Tensor;
using tensor::TensorError;
using tensor::TensorErrorCode;

// region: model-ops-checks
// A refusal of a model op: AutogradErrorCode::tensor wrapping the TensorError.
AutogradError refused(std::string_view op, TensorErrorCode code,
                      std::vector<Shape> shapes, std::string detail) {
  return AutogradError{
      AutogradErrorCode::tensor,
      std::string(op),
      {},
      TensorError{code, std::string(op), std::move(shapes), std::move(detail)}};
}

// The live forward value behind a handle, or released_input naming the op.
[[nodiscard]] std::expected<const Tensor*, AutogradError> view_of(
    std::string_view op, const TensorValue& value) {
  auto view = value.value_view();
  if (!view) {
    AutogradError error = view.error();
    error.stage = std::string(op);
    return std::unexpected(std::move(error));
  }
  return *view;
}

// The grid holds B·T ids, each in [0, vocab).
[[nodiscard]] std::expected<void, AutogradError> check_grid(std::string_view op,
                                                            const TokenGrid& grid,
                                                            std::size_t vocab,
                                                            const Shape& shape) {
  if (Shape{grid.batch, grid.time}.element_count() != grid.ids.size())  // no wrap
    return std::unexpected(
        refused(op, TensorErrorCode::size_mismatch, {shape},
                fmt::format("{} ids for [B={}, T={}]", grid.ids.size(), grid.batch,
                            grid.time)));
  for (std::size_t p = 0; p < grid.ids.size(); ++p) {
    const text::TokenId id = grid.ids[p];
    if (id < 0 || static_cast<std::size_t>(id) >= vocab)
      return std::unexpected(refused(op, TensorErrorCode::index_out_of_range, {shape},
                                     fmt::format("id {} at [{},{}] not in [0, {})", id,
                                                 p / grid.time, p % grid.time, vocab)));
  }
  return {};
}

// endregion: model-ops-checks

// region: logit-checks
// Every logit is finite: log-softmax and cross-entropy refuse NaN and ±∞.
[[nodiscard]] std::expected<void, AutogradError> check_finite(std::string_view op,
                                                              const Tensor& x) {
  const auto v = x.values();
  const auto bad = std::ranges::find_if(v, [](double z) { return !std::isfinite(z); });
  if (bad != v.end())
    return std::unexpected(
        refused(op, TensorErrorCode::non_finite_input, {x.shape()},
                fmt::format("element {} is {}", bad - v.begin(), *bad)));
  return {};
}

// cross_entropy's logits are [B, T, V] with B and T those of the targets, B·T > 0.
[[nodiscard]] std::expected<void, AutogradError> check_logits(const Tensor& z,
                                                              const TokenGrid& t) {
  const Shape& s = z.shape();
  if (s.rank() != 3 || s[0] != t.batch || s[1] != t.time || t.batch * t.time == 0)
    return std::unexpected(refused(
        "cross_entropy", TensorErrorCode::size_mismatch, {s},
        fmt::format("logits must be [B={}, T={}, V] with B·T > 0", t.batch, t.time)));
  return {};
}
// endregion: logit-checks

// region: stable-pieces
// A row shifted by its maximum m: Σ_k exp(x_k − m), each term also kept in `terms`.
// Every exponent is ≤ 0 and the largest term is exactly 1, so the total lies in
// [1, n]: no overflow, no log 0.
struct ShiftedRow {
  double max = 0.0;    // m
  double total = 0.0;  // Σ_k exp(x_k − m)
};

ShiftedRow shifted(std::span<const double> row, std::span<double> terms) {
  ShiftedRow r{*std::ranges::max_element(row), 0.0};
  for (std::size_t k = 0; k < row.size(); ++k) {
    terms[k] = std::exp(row[k] - r.max);
    r.total += terms[k];
  }
  return r;
}

// The logistic sigmoid, evaluated so that exp never sees a positive argument.
double sigmoid(double x) {
  if (x >= 0.0) return 1.0 / (1.0 + std::exp(-x));
  const double e = std::exp(x);
  return e / (1.0 + e);
}
// endregion: stable-pieces

// Every row of a cross-entropy at once: exp(z_pk − m_p), Σ_k of them, and the row's
// term log Σ − (z_p[t_p] − m_p). Rows are independent, so two threads split them at a
// fixed row (each row computed whole by one thread by shifted()): the same
// bits as one thread. The caller adds the terms in row order.
struct ShiftedRows {
  std::vector<double> exps;    // [N·V]: exp(z_pk − m_p)
  std::vector<double> totals;  // [N]: Σ_k exp(z_pk − m_p), k increasing
  std::vector<double> terms;   // [N]: the row's loss term
};

ShiftedRows shifted_rows(std::span<const double> z, std::size_t vocab,
                         const std::vector<text::TokenId>& targets) {
  const std::size_t n = targets.size();
  ShiftedRows out{std::vector<double>(n * vocab), std::vector<double>(n),
                  std::vector<double>(n)};
  auto slab = [&](std::size_t lo, std::size_t hi) {
    for (std::size_t p = lo; p < hi; ++p) {
      const auto row = z.subspan(p * vocab, vocab);
      const ShiftedRow r = shifted(row, std::span(out.exps).subspan(p * vocab, vocab));
      out.totals[p] = r.total;
      out.terms[p] =
          std::log(r.total) - (row[static_cast<std::size_t>(targets[p])] - r.max);
    }
  };
  // A second thread pays for itself only on a large grid (tens of microseconds to
  // start)
  const bool split = tensor::matmul_defaults().threads > 1 && n * vocab >= 262144;
  if (!split) {
    slab(0, n);
    return out;
  }
  std::jthread helper;
  try {
    helper = std::jthread(slab, n / 2, n);
  } catch (const std::system_error&) {
    slab(n / 2, n);  // no thread to be had: the caller does both halves
  }
  slab(0, n / 2);
  return out;
}

}  // namespace

// region: embedding
std::expected<TensorValue, AutogradError> embedding(const TensorValue& table,
                                                    const TokenGrid& ids) {
  const Tensor* w = LLMFS_TRY(view_of("embedding", table));
  if (w->rank() != 2)
    return std::unexpected(refused("embedding", TensorErrorCode::size_mismatch,
                                   {w->shape()}, "the table must be [V, D]"));
  const std::size_t vocab = w->shape()[0], width = w->shape()[1];
  LLMFS_TRY(check_grid("embedding", ids, vocab, w->shape()));
  LLMFS_TRY_AT("embedding", tensor::checked_element_count(
                                Shape{ids.batch, ids.time, width}, "embedding"));
  // Forward: out[b, t, :] = table[ids(b, t), :].
  Tensor out = Tensor::zeros(Shape{ids.batch, ids.time, width});
  auto o = out.mutable_values();
  const auto rows = w->values();
  for (std::size_t p = 0; p < ids.ids.size(); ++p) {
    const auto row = static_cast<std::size_t>(ids.ids[p]);
    std::copy_n(rows.begin() + row * width, width, o.begin() + p * width);
  }
  return record_op("embedding", std::move(out), {table},
                   [ids = ids.ids,
                    width](BackwardContext& ctx) -> std::expected<void, AutogradError> {
                     // Backward: scatter-add. A row used at k positions receives k
                     // upstream rows.
                     Tensor gw = Tensor::zeros(ctx.parent_value(0).shape());
                     auto gwv = gw.mutable_values();
                     const auto g = ctx.upstream().values();
                     for (std::size_t p = 0; p < ids.size(); ++p) {
                       const auto row = static_cast<std::size_t>(ids[p]);
                       for (std::size_t d = 0; d < width; ++d)
                         gwv[row * width + d] += g[p * width + d];
                     }
                     return ctx.accumulate(0, std::move(gw));
                   });
}
// endregion: embedding

// region: silu
Tensor silu(const Tensor& x) {
  // Forward: y = x · σ(x), elementwise.
  Tensor out = Tensor::zeros(x.shape());
  auto y = out.mutable_values();
  const auto xv = x.values();
  for (std::size_t i = 0; i < xv.size(); ++i)
    y[i] = xv[i] * sigmoid(xv[i]);
  return out;
}

std::expected<TensorValue, AutogradError> silu(const TensorValue& x) {
  const Tensor* in = LLMFS_TRY(view_of("silu", x));
  return record_op("silu", silu(*in), {x},
                   [](BackwardContext& ctx) -> std::expected<void, AutogradError> {
                     // Backward: dy/dx = σ + x·σ·(1 − σ) = σ·(1 + x·(1 − σ)).
                     const auto xs = ctx.parent_value(0).values();
                     const auto g = ctx.upstream().values();
                     Tensor gx = Tensor::zeros(ctx.parent_value(0).shape());
                     auto gv = gx.mutable_values();
                     for (std::size_t i = 0; i < xs.size(); ++i) {
                       const double s = sigmoid(xs[i]);
                       gv[i] = g[i] * s * (1.0 + xs[i] * (1.0 - s));
                     }
                     return ctx.accumulate(0, std::move(gx));
                   });
}
// endregion: silu

// region: log-softmax
std::expected<TensorValue, AutogradError> log_softmax_last_axis(const TensorValue& x) {
  const Tensor* in = LLMFS_TRY(view_of("log_softmax", x));
  if (in->rank() == 0)
    return std::unexpected(refused("log_softmax", TensorErrorCode::rank_too_small,
                                   {in->shape()}, "needs a last axis"));
  LLMFS_TRY(check_finite("log_softmax", *in));
  const std::size_t width = in->shape()[in->rank() - 1];
  // Forward: chapter 12's y_j = (x_j − m) − log Σ_k exp(x_k − m), row by row.
  Tensor out = LLMFS_TRY_AT("log_softmax", tensor::log_softmax_last_axis(*in));
  return record_op("log_softmax", std::move(out), {x},
                   [width](BackwardContext& ctx) -> std::expected<void, AutogradError> {
                     // Backward: gx_j = g_j − softmax_j · Σ_k g_k, with softmax_j =
                     // exp(y_j).
                     const auto yv = ctx.output().values();
                     const auto g = ctx.upstream().values();
                     Tensor gx = Tensor::zeros(ctx.output().shape());
                     auto gv = gx.mutable_values();
                     for (std::size_t start = 0; width > 0 && start < yv.size();
                          start += width) {
                       double total = 0.0;
                       for (std::size_t j = 0; j < width; ++j)
                         total += g[start + j];
                       for (std::size_t j = 0; j < width; ++j)
                         gv[start + j] = g[start + j] - std::exp(yv[start + j]) * total;
                     }
                     return ctx.accumulate(0, std::move(gx));
                   });
}
// endregion: log-softmax

// region: cross-entropy
std::expected<TensorValue, AutogradError> cross_entropy(const TensorValue& logits,
                                                        const TokenGrid& targets) {
  const Tensor* z = LLMFS_TRY(view_of("cross_entropy", logits));
  LLMFS_TRY(check_logits(*z, targets));
  const std::size_t vocab = z->shape()[2];
  LLMFS_TRY(check_grid("cross_entropy", targets, vocab, z->shape()));
  LLMFS_TRY(check_finite("cross_entropy", *z));
  // Forward: L = (1/N) Σ_p (log Σ_k exp(z_pk − m_p) − (z_p[t_p] − m_p)), never
  // forming a probability: a tiny p_t would round to 0 and its log to −∞. The shifted
  // exponentials are kept for the backward pass, which would compute the same bits.
  const std::size_t n = targets.ids.size();
  ShiftedRows rows = shifted_rows(z->values(), vocab, targets.ids);
  double total = 0.0;
  for (std::size_t p = 0; p < n; ++p)
    total += rows.terms[p];  // in row order, whatever the threads
  return record_op(
      "cross_entropy", Tensor::scalar(total / static_cast<double>(n)), {logits},
      [t = targets.ids, vocab, rows = std::move(rows)](
          BackwardContext& ctx) -> std::expected<void, AutogradError> {
        // Backward: gz_p = (g/N)·(softmax(z_p) − onehot(t_p)).
        const double scale = ctx.upstream().values()[0] / static_cast<double>(t.size());
        Tensor gz = Tensor::zeros(ctx.parent_value(0).shape());
        auto gv = gz.mutable_values();
        for (std::size_t p = 0; p < t.size(); ++p) {
          for (std::size_t j = 0; j < vocab; ++j)
            gv[p * vocab + j] = scale * rows.exps[p * vocab + j] / rows.totals[p];
          gv[p * vocab + static_cast<std::size_t>(t[p])] -= scale;
        }
        return ctx.accumulate(0, std::move(gz));
      });
}
// endregion: cross-entropy

// region: mean
std::expected<TensorValue, AutogradError> mean(const TensorValue& x) {
  const Tensor* in = LLMFS_TRY(view_of("mean", x));
  if (in->size() == 0)
    return std::unexpected(refused("mean", TensorErrorCode::size_mismatch,
                                   {in->shape()}, "the mean of no elements"));
  // Forward: (1/N) Σ_i x_i.
  const auto xv = in->values();
  double total = 0.0;
  for (const double v : xv)
    total += v;
  const double count = static_cast<double>(xv.size());
  return record_op("mean", Tensor::scalar(total / count), {x},
                   [count](BackwardContext& ctx) -> std::expected<void, AutogradError> {
                     // Backward: every element contributed with weight 1/N.
                     return ctx.accumulate(
                         0, Tensor::full(ctx.parent_value(0).shape(),
                                         ctx.upstream().values()[0] / count));
                   });
}
// endregion: mean

}  // namespace llmfs::autograd
