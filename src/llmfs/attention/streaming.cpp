// Chapter 41
#include <algorithm>
#include <cmath>
#include <string_view>

#include <fmt/format.h>

#include <llmfs/attention/detail/checks.hpp>
#include <llmfs/attention/detail/lanes.hpp>
#include <llmfs/attention/streaming.hpp>
#include <llmfs/core/try.hpp>
#include <llmfs/tensor/matmul.hpp>

namespace llmfs::attention {

namespace {

using autograd::AutogradError;
using detail::for_each_lane;
using detail::lane_count;
using tensor::Shape;
using tensor::Tensor;

// region: online-softmax-step
// Folds one block of a row's scores into its running statistics. The first `visible`
// scores become exp(s − m_new), the masked rest 0; returns α = exp(m_old − m_new), the
// factor by which everything summed before this block must be rescaled.
double fold_block(RunningStatistics& row, std::span<double> scores,
                  std::size_t visible) {
  double block_max = -std::numeric_limits<double>::infinity();
  for (std::size_t j = 0; j < visible; ++j)
    block_max = std::max(block_max, scores[j]);
  const double new_max = std::max(row.max, block_max);
  const double rescale = std::exp(row.max - new_max);  // exp(−∞) = 0 on the first block
  double block_sum = 0.0;
  for (std::size_t j = 0; j < scores.size(); ++j) {
    scores[j] = j < visible ? std::exp(scores[j] - new_max) : 0.0;
    block_sum += scores[j];
  }
  row.sum = rescale * row.sum + block_sum;
  row.max = new_max;
  return rescale;
}
// endregion: online-softmax-step

// One lane of the inputs: Q, K [T, d_k] and V [T, d_v], row-major.
struct Lane {
  std::span<const double> query, key, value;
  std::size_t tokens = 0, key_width = 0, value_width = 0;
};

// Rows first..first+count of a [n, width] matrix, as a [count, width] tensor.
Tensor rows(std::span<const double> m, std::size_t width, std::size_t first,
            std::size_t count) {
  Tensor out = Tensor::zeros(Shape{count, width});
  std::copy_n(m.begin() + first * width, count * width, out.mutable_values().begin());
  return out;
}

// The same rows transposed, [width, count].
Tensor rows_transposed(std::span<const double> m, std::size_t width, std::size_t first,
                       std::size_t count) {
  Tensor out = Tensor::zeros(Shape{width, count});
  auto o = out.mutable_values();
  for (std::size_t r = 0; r < count; ++r)
    for (std::size_t c = 0; c < width; ++c)
      o[c * count + r] = m[(first + r) * width + c];
  return out;
}

// A [n, m] tensor transposed.
Tensor transposed(const Tensor& t) {
  return rows_transposed(t.values(), t.shape()[1], 0, t.shape()[0]);
}

// One block product on the calling thread (the lanes are the parallel unit).
[[nodiscard]] std::expected<Tensor, AutogradError> product(const Tensor& a,
                                                           const Tensor& b) {
  tensor::MatmulOptions options = tensor::matmul_defaults();
  options.threads = 1;
  return LLMFS_TRY_AT("streaming attention", tensor::matmul(a, b, options));
}

// Adds `t` [count, width] into rows first.. of `m`.
void add_rows(std::span<double> m, const Tensor& t, std::size_t first) {
  const auto v = t.values();
  for (std::size_t i = 0; i < v.size(); ++i)
    m[first * t.shape()[1] + i] += v[i];
}

// The scaled scores of a query block against keys first..first+count: [nq, count].
[[nodiscard]] std::expected<Tensor, AutogradError> block_scores(const Tensor& queries,
                                                                const Lane& lane,
                                                                std::size_t first,
                                                                std::size_t count) {
  auto dots = LLMFS_TRY(
      product(queries, rows_transposed(lane.key, lane.key_width, first, count)));
  const double scale = 1.0 / std::sqrt(static_cast<double>(lane.key_width));
  for (double& s : dots.mutable_values())
    s *= scale;
  return dots;
}

// region: streaming-forward-lane
// One lane: O [T, d_v] and L [T], one block of queries at a time.
[[nodiscard]] std::expected<void, AutogradError> forward_lane(const Lane& lane,
                                                              std::span<double> out,
                                                              std::span<double> lse,
                                                              std::size_t block) {
  const std::size_t dv = lane.value_width;
  for (std::size_t q0 = 0; q0 < lane.tokens; q0 += block) {
    const std::size_t nq = std::min(block, lane.tokens - q0);
    const Tensor queries = rows(lane.query, lane.key_width, q0, nq);
    std::vector<RunningStatistics> stats(nq);
    Tensor acc = Tensor::zeros(Shape{nq, dv});
    auto a = acc.mutable_values();
    // Keys block by block, up to the diagonal block: later blocks are all masked
    for (std::size_t k0 = 0; k0 <= q0; k0 += block) {
      const std::size_t nk = std::min(block, lane.tokens - k0);
      auto p = LLMFS_TRY(block_scores(queries, lane, k0, nk));
      auto pv = p.mutable_values();
      for (std::size_t r = 0; r < nq; ++r) {
        const std::size_t visible = std::min(nk, q0 + r + 1 - k0);  // keys j <= i
        const double rescale = fold_block(stats[r], pv.subspan(r * nk, nk), visible);
        for (std::size_t c = 0; c < dv; ++c)
          a[r * dv + c] *= rescale;
      }
      add_rows(a, LLMFS_TRY(product(p, rows(lane.value, dv, k0, nk))), 0);
    }
    // Divide by ℓ once, at the end; keep L = m + log ℓ for the backward pass
    for (std::size_t r = 0; r < nq; ++r) {
      for (std::size_t c = 0; c < dv; ++c)
        out[(q0 + r) * dv + c] = a[r * dv + c] / stats[r].sum;
      lse[q0 + r] = stats[r].max + std::log(stats[r].sum);
    }
  }
  return {};
}
// endregion: streaming-forward-lane

// What one lane's backward pass reads besides the inputs, and where it writes.
struct LaneBackward {
  std::span<const double> output, lse, upstream;
  std::span<double> grad_query, grad_key, grad_value;
};

// region: recompute-weights
// The weights of a query block (rows q0..) against a key block (keys k0..), rebuilt
// from the scores and L: P_ij = exp(s_ij − L_i) where key j <= query i, else 0.
void recompute_weights(Tensor& scores, std::span<const double> lse, std::size_t q0,
                       std::size_t k0) {
  const std::size_t nq = scores.shape()[0], nk = scores.shape()[1];
  auto s = scores.mutable_values();
  for (std::size_t r = 0; r < nq; ++r)
    for (std::size_t j = 0; j < nk; ++j)
      s[r * nk + j] = k0 + j <= q0 + r ? std::exp(s[r * nk + j] - lse[q0 + r]) : 0.0;
}
// endregion: recompute-weights

// region: streaming-backward-lane
// One lane, one block of keys at a time: dK, dV of the block gather every query block
// at or below the diagonal; dQ gathers across the key blocks.
[[nodiscard]] std::expected<void, AutogradError> backward_lane(
    const Lane& lane, const LaneBackward& g, std::span<const double> delta,
    std::size_t block) {
  const std::size_t dk = lane.key_width, dv = lane.value_width;
  const double scale = 1.0 / std::sqrt(static_cast<double>(dk));
  for (std::size_t k0 = 0; k0 < lane.tokens; k0 += block) {
    const std::size_t nk = std::min(block, lane.tokens - k0);
    const Tensor keys = rows(lane.key, dk, k0, nk);
    const Tensor values_t = rows_transposed(lane.value, dv, k0, nk);
    Tensor grad_keys = Tensor::zeros(Shape{nk, dk});
    Tensor grad_values = Tensor::zeros(Shape{nk, dv});
    for (std::size_t q0 = k0; q0 < lane.tokens; q0 += block) {
      const std::size_t nq = std::min(block, lane.tokens - q0);
      const Tensor queries = rows(lane.query, dk, q0, nq);
      const Tensor d_out = rows(g.upstream, dv, q0, nq);
      Tensor p = LLMFS_TRY(block_scores(queries, lane, k0, nk));
      recompute_weights(p, g.lse, q0, k0);
      // dV += Pᵀ·dO;  dS = P ∘ (dO·Vᵀ − D), times 1/√d_k for dQ and dK
      add_rows(grad_values.mutable_values(), LLMFS_TRY(product(transposed(p), d_out)),
               0);
      Tensor ds = LLMFS_TRY(product(d_out, values_t));
      auto dsv = ds.mutable_values();
      const auto pv = p.values();
      for (std::size_t r = 0; r < nq; ++r)
        for (std::size_t j = 0; j < nk; ++j)
          dsv[r * nk + j] = pv[r * nk + j] * (dsv[r * nk + j] - delta[q0 + r]) * scale;
      add_rows(g.grad_query, LLMFS_TRY(product(ds, keys)), q0);
      add_rows(grad_keys.mutable_values(), LLMFS_TRY(product(transposed(ds), queries)),
               0);
    }
    add_rows(g.grad_key, grad_keys, k0);
    add_rows(g.grad_value, grad_values, k0);
  }
  return {};
}
// endregion: streaming-backward-lane

// The shape of causal attention (causal_self_attention's checks) and a block size.
[[nodiscard]] std::expected<void, AttentionError> check_streaming(
    std::string_view stage, const Shape& query, const Shape& key, const Shape& value,
    std::size_t block) {
  LLMFS_TRY(detail::check_value(stage, query, key, value));
  if (key[key.rank() - 2] != query[query.rank() - 2]) {
    return reject(AttentionErrorCode::token_mismatch, stage,
                  fmt::format("query {}, key {}", query, key));
  }
  if (block == 0) return reject(AttentionErrorCode::zero_block_size, stage);
  return {};
}

Lane lane_of(const Tensor& q, const Tensor& k, const Tensor& v, std::size_t lane) {
  const std::size_t rank = q.rank(), tokens = q.shape()[rank - 2];
  const std::size_t dk = q.shape()[rank - 1], dv = v.shape()[rank - 1];
  return Lane{q.values().subspan(lane * tokens * dk, tokens * dk),
              k.values().subspan(lane * tokens * dk, tokens * dk),
              v.values().subspan(lane * tokens * dv, tokens * dv),
              tokens,
              dk,
              dv};
}

// The tape error inside an attention error (a backward closure returns tape errors).
AutogradError tape_error(const AttentionError& error) {
  if (error.cause) return *error.cause;
  return AutogradError{autograd::AutogradErrorCode::invalid_argument, error.stage,
                       std::string(describe(error.code)), std::nullopt};
}

}  // namespace

std::expected<std::vector<OnlineSoftmaxStep>, AttentionError> online_softmax(
    std::span<const double> scores, std::size_t block_size) {
  if (block_size == 0)
    return reject(AttentionErrorCode::zero_block_size, "online softmax");
  if (scores.empty()) return reject(AttentionErrorCode::empty_tokens, "online softmax");
  std::vector<OnlineSoftmaxStep> steps;
  RunningStatistics row;
  for (std::size_t first = 0; first < scores.size(); first += block_size) {
    const std::size_t keys = std::min(block_size, scores.size() - first);
    std::vector<double> block(scores.begin() + first, scores.begin() + first + keys);
    const double block_max = *std::ranges::max_element(block);
    const double rescale = fold_block(row, block, keys);
    steps.push_back({first, keys, block_max, rescale, row});
  }
  return steps;
}

// region: streaming-forward
std::expected<StreamingForward, AttentionError> streaming_attention_forward(
    const Tensor& query, const Tensor& key, const Tensor& value,
    std::size_t block_size) {
  // Q, K: [..., T, d_k], V: [..., T, d_v] -> O [..., T, d_v], L [..., T]
  constexpr std::string_view stage = "streaming attention";
  LLMFS_TRY(
      check_streaming(stage, query.shape(), key.shape(), value.shape(), block_size));
  std::vector<std::size_t> rows_of(query.shape().begin(), query.shape().end() - 1);
  const std::size_t tokens = rows_of.back();
  const std::size_t dv = value.shape()[value.rank() - 1];
  StreamingForward result{Tensor::zeros(Shape(rows_of)), Tensor::zeros(Shape(rows_of))};
  rows_of.push_back(dv);
  result.output = Tensor::zeros(Shape(rows_of));
  auto out = result.output.mutable_values();
  auto lse = result.log_sum_exp.mutable_values();
  LLMFS_TRY_AT(stage, for_each_lane(lane_count(query.shape()), [&](std::size_t l) {
                 return forward_lane(lane_of(query, key, value, l),
                                     out.subspan(l * tokens * dv, tokens * dv),
                                     lse.subspan(l * tokens, tokens), block_size);
               }));
  return result;
}
// endregion: streaming-forward

// region: streaming-backward
std::expected<StreamingGradients, AttentionError> streaming_attention_backward(
    const Tensor& query, const Tensor& key, const Tensor& value,
    const StreamingForward& forward, const Tensor& upstream, std::size_t block_size) {
  // dO: [..., T, d_v] -> dQ, dK [..., T, d_k], dV [..., T, d_v]
  StreamingGradients grads{Tensor::zeros(query.shape()), Tensor::zeros(key.shape()),
                           Tensor::zeros(value.shape())};
  const std::size_t tokens = query.shape()[query.rank() - 2];
  const std::size_t dk = query.shape()[query.rank() - 1];
  const std::size_t dv = value.shape()[value.rank() - 1];
  // D_i = Σ_c dO_ic·O_ic: one number per row, in place of a row of the weights
  std::vector<double> delta(forward.log_sum_exp.size(), 0.0);
  const auto o = forward.output.values(), d_o = upstream.values();
  for (std::size_t i = 0; i < delta.size(); ++i)
    for (std::size_t c = 0; c < dv; ++c)
      delta[i] += d_o[i * dv + c] * o[i * dv + c];
  auto work = [&](std::size_t l) {
    const auto rows_k = std::pair{l * tokens * dk, tokens * dk};
    const auto rows_v = std::pair{l * tokens * dv, tokens * dv};
    const LaneBackward g{
        o.subspan(rows_v.first, rows_v.second),
        forward.log_sum_exp.values().subspan(l * tokens, tokens),
        d_o.subspan(rows_v.first, rows_v.second),
        grads.query.mutable_values().subspan(rows_k.first, rows_k.second),
        grads.key.mutable_values().subspan(rows_k.first, rows_k.second),
        grads.value.mutable_values().subspan(rows_v.first, rows_v.second)};
    return backward_lane(lane_of(query, key, value, l), g,
                         std::span(delta).subspan(l * tokens, tokens), block_size);
  };
  LLMFS_TRY_AT("streaming attention backward",
               for_each_lane(lane_count(query.shape()), work));
  return grads;
}
// endregion: streaming-backward

// region: streaming-op
std::expected<CausalAttention, AttentionError> streaming_causal_attention(
    const autograd::TensorValue& query, const autograd::TensorValue& key,
    const autograd::TensorValue& value, std::size_t block_size) {
  constexpr std::string_view stage = "streaming attention";
  LLMFS_TRY(
      check_streaming(stage, query.shape(), key.shape(), value.shape(), block_size));
  const Tensor* q = LLMFS_TRY_AT(stage, query.value_view());
  const Tensor* k = LLMFS_TRY_AT(stage, key.value_view());
  const Tensor* v = LLMFS_TRY_AT(stage, value.value_view());
  auto forward = LLMFS_TRY(streaming_attention_forward(*q, *k, *v, block_size));
  // The node keeps O; the closure keeps L, T numbers per lane, and nothing [T, T]
  auto backward =
      [lse = std::move(forward.log_sum_exp), block_size](
          autograd::BackwardContext& ctx) -> std::expected<void, AutogradError> {
    const StreamingForward saved{ctx.output(), lse};
    auto grads = streaming_attention_backward(ctx.parent_value(0), ctx.parent_value(1),
                                              ctx.parent_value(2), saved,
                                              ctx.upstream(), block_size);
    if (!grads) return std::unexpected(tape_error(grads.error()));
    LLMFS_TRY(ctx.accumulate(0, std::move(grads->query)));
    LLMFS_TRY(ctx.accumulate(1, std::move(grads->key)));
    return ctx.accumulate(2, std::move(grads->value));
  };
  auto output =
      LLMFS_TRY_AT(stage, autograd::record_op(stage, std::move(forward.output),
                                              {query, key, value}, backward));
  return CausalAttention{{}, {}, {}, std::move(output)};
}
// endregion: streaming-op

std::expected<AttentionKernel, AttentionError> streaming_kernel(
    std::size_t block_size) {
  if (block_size == 0)
    return reject(AttentionErrorCode::zero_block_size, "streaming attention kernel");
  return AttentionKernel{"streaming", block_size, &streaming_causal_attention};
}

}  // namespace llmfs::attention
