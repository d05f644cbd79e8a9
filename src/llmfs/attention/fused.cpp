// Chapter 42
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
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

// One lane of the op: Q, K [T, d_k] with rows `key_stride` apart, V [T, d_v] with rows
// `value_stride` apart (the widths, or d_model where the lane is one head of the
// layer's [B,T,d_model]).
struct FusedLane {
  const double* query;
  const double* key;
  const double* value;
  std::size_t tokens, key_width, value_width, key_stride, value_stride;
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
// over j ≤ i, then their output rows from keys 0 … r1−1, `out_stride` apart. The
// weights arrive as zeros: past column r1 nothing is written, and inside the panel the
// scores the product computed above the diagonal are set back to 0.0.
[[nodiscard]] std::expected<void, AutogradError> fused_forward_lane(
    const FusedLane& lane, double* weights, double* out, std::size_t out_stride,
    const Shape& weights_shape, std::size_t first_row) {
  const std::size_t t = lane.tokens, dk = lane.key_width, dv = lane.value_width;
  const std::size_t sk = lane.key_stride;
  const double scale = 1.0 / std::sqrt(static_cast<double>(dk));
  for (std::size_t r0 = 0; r0 < t; r0 += kPanelRows) {
    const std::size_t r1 = std::min(t, r0 + kPanelRows), n = r1 - r0;
    tensor::multiply_into(rows_of(lane.query + r0 * sk, n, dk, sk),
                          transposed(lane.key, dk, r1, sk), weights + r0 * t, t,
                          lane.path);
    for (std::size_t i = r0; i < r1; ++i) {
      double* row = weights + i * t;
      LLMFS_TRY(
          softmax_row(std::span(row, i + 1), scale, weights_shape, first_row + i));
      std::fill(row + i + 1, row + r1, 0.0);
    }
    tensor::multiply_into(rows_of(weights + r0 * t, n, r1, t),
                          rows_of(lane.value, r1, dv, lane.value_stride),
                          out + r0 * out_stride, out_stride, lane.path);
  }
  return {};
}
// endregion: fused-forward-lane

// The thread's scratch for one lane's backward: dS [T, T] and one panel of dA.
struct BackwardScratch {
  std::vector<double> score_grad, weight_grad;
};

// What one lane's backward reads besides the inputs, and where it writes: dO and dV
// have rows the lane's `value_stride` apart, dQ and dK its `key_stride`.
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
  const std::size_t sk = lane.key_stride, sv = lane.value_stride;
  const double scale = 1.0 / std::sqrt(static_cast<double>(dk));
  scratch.score_grad.resize(t * t);
  scratch.weight_grad.resize(kPanelRows * t);
  double* ds = scratch.score_grad.data();
  double* da = scratch.weight_grad.data();
  for (std::size_t r0 = 0; r0 < t; r0 += kPanelRows) {
    const std::size_t r1 = std::min(t, r0 + kPanelRows), n = r1 - r0;
    tensor::multiply_into(rows_of(g.upstream + r0 * sv, n, dv, sv),
                          transposed(lane.value, dv, r1, sv), da, r1, lane.path);
    for (std::size_t i = r0; i < r1; ++i) {
      const double* y = g.weights + i * t;
      const double* ga = da + (i - r0) * r1;
      const double dot = dot_in_key_order(ga, y, i + 1);
      double* row = ds + i * t;
      for (std::size_t j = 0; j <= i; ++j)
        row[j] = y[j] * (ga[j] - dot) * scale;
      std::fill(row + i + 1, row + r1, 0.0);
    }
    tensor::multiply_into(rows_of(ds + r0 * t, n, r1, t), rows_of(lane.key, r1, dk, sk),
                          g.grad_query + r0 * sk, sk, lane.path);
  }
  for (std::size_t r0 = 0; r0 < t; r0 += kPanelRows) {
    const std::size_t r1 = std::min(t, r0 + kPanelRows), n = r1 - r0;
    tensor::multiply_into(transposed(ds + r0 * t + r0, n, t - r0, t),
                          rows_of(lane.query + r0 * sk, t - r0, dk, sk),
                          g.grad_key + r0 * sk, sk, lane.path);
    tensor::multiply_into(transposed(g.weights + r0 * t + r0, n, t - r0, t),
                          rows_of(g.upstream + r0 * sv, t - r0, dv, sv),
                          g.grad_value + r0 * sv, sv, lane.path);
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

// Where lane l = b·h + head starts in a [B,T,d_model] buffer: (b·T)·d_model + head·d_h.
std::size_t head_start(const Shape& shape, std::size_t heads, std::size_t l) {
  return (l / heads) * shape[1] * shape[2] + (l % heads) * (shape[2] / heads);
}

// The op's gradients of its parents Q, K and V, handed to the tape.
[[nodiscard]] std::expected<void, AutogradError> accumulate_qkv(
    autograd::BackwardContext& ctx, Tensor grad_query, Tensor grad_key,
    Tensor grad_value) {
  LLMFS_TRY(ctx.accumulate(0, std::move(grad_query)));
  LLMFS_TRY(ctx.accumulate(1, std::move(grad_key)));
  return ctx.accumulate(2, std::move(grad_value));
}

// The op on the tape: its output from Q, K, V and the kept weights (the fourth parent,
// what the backward pass reads); the weights and the output as CausalAttention.
[[nodiscard]] std::expected<CausalAttention, AttentionError> record_fused(
    std::string_view op, Tensor output, const std::array<autograd::TensorValue, 3>& qkv,
    autograd::TensorValue kept, autograd::BackwardFn backward) {
  auto out = LLMFS_TRY_AT(
      "causal attention",
      autograd::record_op(op, std::move(output), {qkv[0], qkv[1], qkv[2], kept},
                          std::move(backward)));
  return CausalAttention{{}, {}, std::move(kept), std::move(out)};
}

// Every row of d_h values of a [B,T,h,d_h] buffer (the layer's [B,T,d_model]), the
// rows of token t at position offset + t: each pair turned by direction·p·θ_i with
// RotaryEmbedding::rotate's products and sums (chapter 29's turn_pairs, so the same
// bits; direction −1 is its backward), in one pass in storage order.
void turn_heads(const double* in, double* out, const Shape& shape, std::size_t heads,
                std::size_t offset, const RotaryEmbedding& rope, double direction) {
  const std::size_t t = shape[1], width = shape[2] / heads, pairs = width / 2;
  const std::size_t rows = shape[0] * t;
  const double* cos_values = rope.cos_table().values().data();
  const double* sin_values = rope.sin_table().values().data();
  for (std::size_t row = 0; row < rows; ++row) {
    const std::size_t position = offset + row % t;
    const double* c = cos_values + position * pairs;
    const double* s = sin_values + position * pairs;
    for (std::size_t head = 0; head < heads; ++head) {
      const double* x = in + (row * heads + head) * width;
      double* y = out + (row * heads + head) * width;
      for (std::size_t i = 0; i < pairs; ++i) {
        const double sine = direction * s[i];
        const double x0 = x[2 * i], x1 = x[2 * i + 1];
        y[2 * i] = x0 * c[i] - x1 * sine;
        y[2 * i + 1] = x0 * sine + x1 * c[i];
      }
    }
  }
}

// Q and K as the lanes read them, [B,T,d_model]: rotated into storage of the op's own
// (every element written before it is read, so it is not zero-filled), or the
// projections themselves when the layer has no rotation.
struct RotatedHeads {
  std::unique_ptr<double[]> storage;  // rotated Q then rotated K, or nothing
  const double* query;
  const double* key;
  std::optional<RotaryEmbedding> rope;  // the rotation (its tables), or none
};

RotatedHeads rotate_heads(const Tensor& q, const Tensor& k, std::size_t heads,
                          const std::optional<RotaryEmbedding>& rope,
                          std::size_t offset) {
  if (!rope) return RotatedHeads{nullptr, q.values().data(), k.values().data(), rope};
  const std::size_t n = q.size();
  auto storage = std::make_unique_for_overwrite<double[]>(2 * n);
  turn_heads(q.values().data(), storage.get(), q.shape(), heads, offset, *rope, +1.0);
  turn_heads(k.values().data(), storage.get() + n, k.shape(), heads, offset, *rope,
             +1.0);
  const double* base = storage.get();
  return RotatedHeads{std::move(storage), base, base + n, rope};
}

// Lane l = b·h + head of the layer: its columns of Q, K (rotated) and V, rows d_model
// apart, starting at (b·T)·d_model + head·d_h.
FusedLane head_lane(const RotatedHeads& qk, const Tensor& v, std::size_t l,
                    std::size_t heads, tensor::MatmulPath path) {
  const std::size_t t = v.shape()[1], d = v.shape()[2], dh = d / heads;
  const std::size_t start = head_start(v.shape(), heads, l);
  return FusedLane{qk.query + start,
                   qk.key + start,
                   v.values().data() + start,
                   t,
                   dh,
                   dh,
                   d,
                   d,
                   path};
}

// What the layer needs of the projections before the tape moves: [B,T,d_model] each,
// the same shape, T > 0, d_model > 0 and a multiple of h, and with RoPE a head width
// it rotates and positions [offset, offset+T) it holds.
[[nodiscard]] std::expected<void, MultiHeadError> check_heads(
    const Shape& query, const Shape& key, const Shape& value, std::size_t heads,
    const std::optional<RotaryEmbedding>& rope, std::size_t offset) {
  using Code = MultiHeadErrorCode;
  constexpr auto input = MultiHeadStage::input;
  constexpr auto configuration = MultiHeadStage::configuration;
  if (heads == 0) return reject(Code::zero_heads, configuration);
  if (query.rank() != 3)
    return reject(Code::input_rank, input, fmt::format("got {}", query));
  if (key != query || value != query)
    return reject(Code::input_width, input,
                  fmt::format("Q {}, K {}, V {}", query, key, value));
  const std::size_t tokens = query[1], width = query[2];
  if (width == 0) return reject(Code::zero_model_width, configuration);
  if (width % heads != 0)
    return reject(Code::width_not_divisible, configuration,
                  fmt::format("d_model {}, {} heads", width, heads));
  if (tokens == 0)
    return reject(Code::empty_tokens, input, fmt::format("got {}", query));
  if (!rope) return {};
  if (rope->width() != width / heads)
    return reject(
        Code::input_width, configuration,
        fmt::format("head width {}, RoPE width {}", width / heads, rope->width()));
  if (offset > std::numeric_limits<std::size_t>::max() - tokens)
    return reject(Code::offset_overflow, input,
                  fmt::format("offset {} plus {} tokens", offset, tokens));
  if (offset + tokens > rope->max_positions())
    return reject(Code::position_range, input,
                  fmt::format("positions [{}, {}) but capacity {}", offset,
                              offset + tokens, rope->max_positions()));
  return {};
}

// The layer's op once its inputs are checked: fused_causal_attention()'s lanes, one per
// (b, head), on the heads' columns in place; its errors are that function's.
[[nodiscard]] std::expected<CausalAttention, AttentionError> fused_heads(
    const autograd::TensorValue& query, const autograd::TensorValue& key,
    const autograd::TensorValue& value, std::size_t heads,
    const std::optional<RotaryEmbedding>& rope, std::size_t offset) {
  // Q, K, V [B,T,d_model] -> O [B,T,d_model] (heads side by side); A [B,h,T,T] kept
  constexpr std::string_view stage = "causal attention";
  const std::size_t b = query.shape()[0], t = query.shape()[1], d = query.shape()[2];
  LLMFS_TRY(detail::check_mask_size(t));
  const Tensor* q = LLMFS_TRY_AT(stage, query.value_view());
  const Tensor* k = LLMFS_TRY_AT(stage, key.value_view());
  const Tensor* v = LLMFS_TRY_AT(stage, value.value_view());
  const tensor::MatmulPath path = tensor::matmul_defaults().path;
  const Shape weights_shape{b, heads, t, t};
  Tensor weights = Tensor::zeros(weights_shape);  // the zeros past the diagonal stay
  Tensor output =
      Tensor::uninitialized(query.shape());  // every lane writes its columns
  double* w = weights.mutable_values().data();
  double* o = output.mutable_values().data();
  // Rotated once for every lane, in storage order; kept for the backward pass
  auto rotated =
      std::make_shared<RotatedHeads>(rotate_heads(*q, *k, heads, rope, offset));
  LLMFS_TRY_AT(stage, detail::for_each_lane(b * heads, [&](std::size_t l) {
                 return fused_forward_lane(
                     head_lane(*rotated, *v, l, heads, path), w + l * t * t,
                     o + head_start(v->shape(), heads, l), d, weights_shape, l * t);
               }));
  auto kept = query.tape().constant(std::move(weights));
  auto backward =
      [path, heads, offset,
       rotated](autograd::BackwardContext& ctx) -> std::expected<void, AutogradError> {
    const Tensor &q = ctx.parent_value(0), &k = ctx.parent_value(1),
                 &v = ctx.parent_value(2), &a = ctx.parent_value(3);
    const std::size_t b = q.shape()[0], t = q.shape()[1], n = q.size();
    const std::optional<RotaryEmbedding>& rope = rotated->rope;
    const RotatedHeads qk{nullptr, rope ? rotated->query : q.values().data(),
                          rope ? rotated->key : k.values().data(), std::nullopt};
    // Written in full by the lanes (and the rotation's backward): never zero-filled
    Tensor dq = Tensor::uninitialized(q.shape()),
           dkey = Tensor::uninitialized(k.shape()),
           dval = Tensor::uninitialized(v.shape());
    // dQ and dK of the rotated rows: the gradients themselves without a rotation
    std::unique_ptr<double[]> turned;
    double* grad_query = dq.mutable_values().data();
    double* grad_key = dkey.mutable_values().data();
    if (rope) {
      turned = std::make_unique_for_overwrite<double[]>(2 * n);
      grad_query = turned.get();
      grad_key = turned.get() + n;
    }
    LLMFS_TRY(detail::for_each_lane(
        b * heads, [&](std::size_t l) -> std::expected<void, AutogradError> {
          thread_local BackwardScratch scratch;
          const std::size_t start = head_start(q.shape(), heads, l);
          const FusedGradients g{a.values().data() + l * t * t,
                                 ctx.upstream().values().data() + start,
                                 grad_query + start, grad_key + start,
                                 dval.mutable_values().data() + start};
          fused_backward_lane(head_lane(qk, v, l, heads, path), g, scratch);
          return {};
        }));
    if (rope) {  // the rotation's backward, in storage order
      turn_heads(grad_query, dq.mutable_values().data(), q.shape(), heads, offset,
                 *rope, -1.0);
      turn_heads(grad_key, dkey.mutable_values().data(), k.shape(), heads, offset,
                 *rope, -1.0);
    }
    return accumulate_qkv(ctx, std::move(dq), std::move(dkey), std::move(dval));
  };
  return record_fused("fused multi-head attention", std::move(output),
                      {query, key, value}, std::move(kept), std::move(backward));
}

}  // namespace

std::expected<CausalAttention, MultiHeadError> fused_multi_head_attention(
    const autograd::TensorValue& query, const autograd::TensorValue& key,
    const autograd::TensorValue& value, std::size_t heads,
    const std::optional<RotaryEmbedding>& rope, std::size_t position_offset) {
  LLMFS_TRY(check_heads(query.shape(), key.shape(), value.shape(), heads, rope,
                        position_offset));
  return LLMFS_TRY_AT(MultiHeadStage::causal_attention,
                      fused_heads(query, key, value, heads, rope, position_offset));
}

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
  Tensor weights = Tensor::zeros(weights_shape);  // the zeros past the diagonal stay
  Tensor output = Tensor::uninitialized(value.shape());  // every lane writes its rows
  const std::size_t dv = value.shape()[rank - 1];
  double* w = weights.mutable_values().data();
  double* o = output.mutable_values().data();
  LLMFS_TRY_AT(
      stage,
      detail::for_each_lane(detail::lane_count(query.shape()), [&](std::size_t l) {
        return fused_forward_lane(fused_lane(*q, *k, *v, l, path), w + l * t * t,
                                  o + l * t * dv, dv, weights_shape, l * t);
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
    // Written in full by the lanes: never zero-filled
    Tensor dq = Tensor::uninitialized(q.shape()),
           dkey = Tensor::uninitialized(k.shape()),
           dval = Tensor::uninitialized(v.shape());
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
    return accumulate_qkv(ctx, std::move(dq), std::move(dkey), std::move(dval));
  };
  return record_fused("fused causal attention", std::move(output), {query, key, value},
                      std::move(kept), std::move(backward));
}

}  // namespace llmfs::attention
