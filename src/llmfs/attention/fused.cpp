// Chapter 42
#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include <llmfs/attention/detail/causal_checks.hpp>
#include <llmfs/attention/detail/lanes.hpp>
#include <llmfs/attention/fused.hpp>
#include <llmfs/core/try.hpp>
#include <llmfs/tensor/matmul.hpp>
#include <llmfs/tensor/softmax.hpp>

namespace llmfs::attention {

namespace {

using autograd::AutogradError;
using tensor::MatrixView;
using tensor::Shape;
using tensor::Tensor;

// Query rows per panel: the panel's products run over keys 0 … (last row of the
// panel), so a panel of P rows computes at most P·P/2 outputs above the diagonal.
constexpr std::size_t kPanelRows = 48;

// One lane of the op: Q, K [T, d_k] and V [T, d_v] row-major, the weights [T, T].
struct FusedLane {
  const double* query;
  const double* key;
  const double* value;
  std::size_t tokens, key_width, value_width;
  tensor::MatmulPath path;
};

// A row-major [rows, columns] block starting at `data`, rows `stride` apart.
MatrixView rows_of(const double* data, std::size_t rows, std::size_t columns,
                   std::size_t stride) {
  return MatrixView{data, rows, columns, stride, 1};
}

// The transpose of a row-major [columns, rows] block: element (i, j) is data[j·stride
// + i], read in place.
MatrixView transposed(const double* data, std::size_t rows, std::size_t columns,
                      std::size_t stride) {
  return MatrixView{data, rows, columns, 1, stride};
}

// Row i of the weights from its scores s_j = Q_i·K_j, j ≤ i (the dots, in place):
// scaled and masked exactly as scale() and add() do (s·(1/√d_k) + 0.0: the mask's
// zero turns a −0.0 into +0.0), then softmax_last_axis's steps: the maximum by one
// comparison, exp(s − m) (a −∞ score gives 0.0 without exp), the sum in key order, the
// division. Keys above the diagonal would add exp(−∞) = 0.0 to the sum: no change.
// Refuses the row with the softmax's own row check and error (row `index` of the
// weights [..., T, T], op and stage "softmax_last_axis").
[[nodiscard]] std::expected<void, AutogradError> softmax_row(std::span<double> row,
                                                             double scale,
                                                             const Shape& weights_shape,
                                                             std::size_t index) {
  constexpr std::string_view op = "softmax_last_axis";
  constexpr double minus_infinity = -std::numeric_limits<double>::infinity();
  double m = minus_infinity;
  for (double& x : row) {
    x = x * scale + 0.0;
    m = x > m ? x : m;
  }
  LLMFS_TRY_AT(op, tensor::check_logit_row(op, weights_shape, index, row, false));
  double total = 0.0;
  for (double& x : row) {
    x = x == minus_infinity ? 0.0 : std::exp(x - m);
    total += x;
  }
  for (double& x : row)
    x /= total;
  return {};
}

// region: fused-forward-lane
// One lane, one panel of query rows r0 … r1−1 at a time: their scores against keys
// 0 … r1−1 straight into the weights' rows (one blocked product), each row's softmax
// over j ≤ i, then their output rows from keys 0 … r1−1. The weights arrive as zeros:
// past column r1 nothing is written, and inside the panel the scores the product
// computed above the diagonal are set back to 0.0.
[[nodiscard]] std::expected<void, AutogradError> fused_forward_lane(
    const FusedLane& lane, double* weights, double* out, const Shape& weights_shape,
    std::size_t first_row) {
  const std::size_t t = lane.tokens, dk = lane.key_width, dv = lane.value_width;
  const double scale = 1.0 / std::sqrt(static_cast<double>(dk));
  for (std::size_t r0 = 0; r0 < t; r0 += kPanelRows) {
    const std::size_t r1 = std::min(t, r0 + kPanelRows), n = r1 - r0;
    tensor::multiply_into(rows_of(lane.query + r0 * dk, n, dk, dk),
                          transposed(lane.key, dk, r1, dk), weights + r0 * t, t,
                          lane.path);
    for (std::size_t i = r0; i < r1; ++i) {
      double* row = weights + i * t;
      LLMFS_TRY(
          softmax_row(std::span(row, i + 1), scale, weights_shape, first_row + i));
      std::fill(row + i + 1, row + r1, 0.0);
    }
    tensor::multiply_into(rows_of(weights + r0 * t, n, r1, t),
                          rows_of(lane.value, r1, dv, dv), out + r0 * dv, dv,
                          lane.path);
  }
  return {};
}
// endregion: fused-forward-lane

// The thread's scratch for one lane's backward: dS [T, T] and one panel of dA.
struct BackwardScratch {
  std::vector<double> score_grad, weight_grad;
};

// What one lane's backward reads besides the inputs, and where it writes.
struct FusedGradients {
  const double* weights;
  const double* upstream;
  double *grad_query, *grad_key, *grad_value;
};

// Σ_j g_j·y_j over j ≤ i in key order (softmax_last_axis's backward dot: the keys
// above the diagonal add g_j·0.0 = ±0.0 and change nothing).
[[nodiscard, gnu::noinline]] double dot_in_key_order(const double* g, const double* y,
                                                     std::size_t count) {
  double dot = 0.0;
  for (std::size_t j = 0; j < count; ++j)
    dot += g[j] * y[j];
  return dot;
}

// One lane: per panel of query rows, dA = dO·Vᵀ over keys j < r1, then softmax_last_
// axis's backward y_j·(g_j − Σ_k g_k y_k) times scale()'s factor into dS (exact zeros
// past the diagonal inside the panel), and dQ = dS·K. Then per panel of key rows j,
// dK = dSᵀ·Q and dV = Aᵀ·dO over queries i ≥ r0: the rows above start every sum with
// masked ±0.0 terms, which leave its +0.0 as it is.
void fused_backward_lane(const FusedLane& lane, const FusedGradients& g,
                         BackwardScratch& scratch) {
  const std::size_t t = lane.tokens, dk = lane.key_width, dv = lane.value_width;
  const double scale = 1.0 / std::sqrt(static_cast<double>(dk));
  scratch.score_grad.resize(t * t);
  scratch.weight_grad.resize(kPanelRows * t);
  double* ds = scratch.score_grad.data();
  double* da = scratch.weight_grad.data();
  for (std::size_t r0 = 0; r0 < t; r0 += kPanelRows) {
    const std::size_t r1 = std::min(t, r0 + kPanelRows), n = r1 - r0;
    tensor::multiply_into(rows_of(g.upstream + r0 * dv, n, dv, dv),
                          transposed(lane.value, dv, r1, dv), da, r1, lane.path);
    for (std::size_t i = r0; i < r1; ++i) {
      const double* y = g.weights + i * t;
      const double* ga = da + (i - r0) * r1;
      const double dot = dot_in_key_order(ga, y, i + 1);
      double* row = ds + i * t;
      for (std::size_t j = 0; j <= i; ++j)
        row[j] = y[j] * (ga[j] - dot) * scale;
      std::fill(row + i + 1, row + r1, 0.0);
    }
    tensor::multiply_into(rows_of(ds + r0 * t, n, r1, t), rows_of(lane.key, r1, dk, dk),
                          g.grad_query + r0 * dk, dk, lane.path);
  }
  for (std::size_t r0 = 0; r0 < t; r0 += kPanelRows) {
    const std::size_t r1 = std::min(t, r0 + kPanelRows), n = r1 - r0;
    tensor::multiply_into(transposed(ds + r0 * t + r0, n, t - r0, t),
                          rows_of(lane.query + r0 * dk, t - r0, dk, dk),
                          g.grad_key + r0 * dk, dk, lane.path);
    tensor::multiply_into(transposed(g.weights + r0 * t + r0, n, t - r0, t),
                          rows_of(g.upstream + r0 * dv, t - r0, dv, dv),
                          g.grad_value + r0 * dv, dv, lane.path);
  }
}

// Lane `l` of Q, K, V (equal leading axes, checked).
FusedLane fused_lane(const Tensor& q, const Tensor& k, const Tensor& v, std::size_t l,
                     tensor::MatmulPath path) {
  const std::size_t rank = q.rank(), t = q.shape()[rank - 2];
  const std::size_t dk = q.shape()[rank - 1], dv = v.shape()[rank - 1];
  return FusedLane{q.values().data() + l * t * dk,
                   k.values().data() + l * t * dk,
                   v.values().data() + l * t * dv,
                   t,
                   dk,
                   dv,
                   path};
}

// [..., T, T] from [..., T, d_k].
Shape table_shape(const Shape& query) {
  std::vector<std::size_t> dims = query.as_vector();
  dims.back() = dims[dims.size() - 2];
  return Shape(std::move(dims));
}

}  // namespace

std::expected<CausalAttention, AttentionError> fused_causal_attention(
    const autograd::TensorValue& query, const autograd::TensorValue& key,
    const autograd::TensorValue& value, std::size_t /*block_size*/) {
  // Q, K: [..., T, d_k], V: [..., T, d_v] -> O [..., T, d_v]; A [..., T, T] kept
  constexpr std::string_view stage = "causal attention";
  LLMFS_TRY(detail::check_causal(stage, query.shape(), key.shape(), value.shape()));
  const std::size_t rank = query.shape().rank(), t = query.shape()[rank - 2];
  LLMFS_TRY(detail::check_mask_size(t));
  const Tensor* q = LLMFS_TRY_AT(stage, query.value_view());
  const Tensor* k = LLMFS_TRY_AT(stage, key.value_view());
  const Tensor* v = LLMFS_TRY_AT(stage, value.value_view());
  const tensor::MatmulPath path = tensor::matmul_defaults().path;
  const Shape weights_shape = table_shape(query.shape());
  Tensor weights = Tensor::zeros(weights_shape);
  Tensor output = Tensor::zeros(value.shape());
  const std::size_t dv = value.shape()[rank - 1];
  double* w = weights.mutable_values().data();
  double* o = output.mutable_values().data();
  LLMFS_TRY_AT(
      stage,
      detail::for_each_lane(detail::lane_count(query.shape()), [&](std::size_t l) {
        return fused_forward_lane(fused_lane(*q, *k, *v, l, path), w + l * t * t,
                                  o + l * t * dv, weights_shape, l * t);
      }));
  // The weights go on the tape as a constant, the op's fourth parent: the backward
  // reads them there, and they are stored once
  auto kept = query.tape().constant(std::move(weights));
  auto backward =
      [path](autograd::BackwardContext& ctx) -> std::expected<void, AutogradError> {
    const Tensor &q = ctx.parent_value(0), &k = ctx.parent_value(1),
                 &v = ctx.parent_value(2), &a = ctx.parent_value(3);
    const std::size_t rank = q.rank(), t = q.shape()[rank - 2];
    const std::size_t dk = q.shape()[rank - 1], dv = v.shape()[rank - 1];
    Tensor dq = Tensor::zeros(q.shape()), dkey = Tensor::zeros(k.shape()),
           dval = Tensor::zeros(v.shape());
    LLMFS_TRY(detail::for_each_lane(
        detail::lane_count(q.shape()),
        [&](std::size_t l) -> std::expected<void, AutogradError> {
          thread_local BackwardScratch scratch;
          const FusedGradients g{a.values().data() + l * t * t,
                                 ctx.upstream().values().data() + l * t * dv,
                                 dq.mutable_values().data() + l * t * dk,
                                 dkey.mutable_values().data() + l * t * dk,
                                 dval.mutable_values().data() + l * t * dv};
          fused_backward_lane(fused_lane(q, k, v, l, path), g, scratch);
          return {};
        }));
    LLMFS_TRY(ctx.accumulate(0, std::move(dq)));
    LLMFS_TRY(ctx.accumulate(1, std::move(dkey)));
    return ctx.accumulate(2, std::move(dval));
  };
  auto out = LLMFS_TRY_AT(
      stage, autograd::record_op("fused causal attention", std::move(output),
                                 {query, key, value, kept}, backward));
  return CausalAttention{{}, {}, std::move(kept), std::move(out)};
}

}  // namespace llmfs::attention
