// Chapter 40
#include "variants.hpp"

#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include <llmfs/tensor/broadcast.hpp>
#include <llmfs/tensor/layout.hpp>
#include <llmfs/tensor/matmul.hpp>
#include <llmfs/tensor/softmax.hpp>

namespace ch40 {

namespace {

using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
using llmfs::tensor::TensorError;

// Columns [first, first + count) of the last axis: PyTorch's chunk(3, dim=-1).
Tensor last_axis_block(const Tensor& t, std::size_t first, std::size_t count) {
  const std::size_t width = t.shape()[t.rank() - 1];
  const std::size_t rows = t.size() / width;
  std::vector<std::size_t> dims = t.shape().as_vector();
  dims.back() = count;
  std::vector<double> values;
  values.reserve(rows * count);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < count; ++c)
      values.push_back(t.values()[r * width + first + c]);
  return *Tensor::from(Shape(std::move(dims)), std::move(values));
}

// An additive causal table over the last two axes of `shape`: 0 on and below the
// diagonal, -inf above it, repeated over the leading axes.
Tensor causal_table(Shape shape) {
  Tensor mask = Tensor::zeros(shape);
  const std::size_t n = shape[shape.rank() - 1];
  auto values = mask.mutable_values();
  for (std::size_t i = 0; i < values.size(); ++i)
    if ((i % n) > (i / n) % n) values[i] = -std::numeric_limits<double>::infinity();
  return mask;
}

}  // namespace

std::string_view mistake_name(Mistake mistake) noexcept {
  switch (mistake) {
    case Mistake::none: return "none";
    case Mistake::split_order: return "split_order";
    case Mistake::missing_transpose: return "missing_transpose";
    case Mistake::missing_contiguity: return "missing_contiguity";
    case Mistake::merge_order: return "merge_order";
    case Mistake::mask_batch_only: return "mask_batch_only";
    case Mistake::output_bias: return "output_bias";
  }
  return "unknown";
}

// region: lesson-variants
std::expected<LessonForward, TensorError> lesson_forward(
    const Tensor& x, const Tensor& w_in, const Tensor& w_o, std::size_t heads,
    Mistake mistake, double bias_value) {
  const std::size_t batch = x.shape()[0], tokens = x.shape()[1], width = x.shape()[2];
  const std::size_t head_width = width / heads;

  // In-projection, then chunk into Q, K, V: [B,T,3d] -> 3 x [B,T,d]
  auto qkv = llmfs::tensor::matmul(x, w_in);
  if (!qkv) return std::unexpected(qkv.error());

  // Split the feature axis into heads: [B,T,d] -> [B,T,h,d_h] -> [B,h,T,d_h]
  auto split = [&](const Tensor& t) -> std::expected<Tensor, TensorError> {
    if (mistake == Mistake::split_order)  // the heads axis read from the wrong place
      return llmfs::tensor::reshape(t, Shape{batch, heads, tokens, head_width});
    auto viewed = llmfs::tensor::reshape(t, Shape{batch, tokens, heads, head_width});
    if (!viewed || mistake == Mistake::missing_transpose) return viewed;
    return llmfs::tensor::transpose(*viewed, 1, 2);
  };
  auto q = split(last_axis_block(*qkv, 0, width));
  auto k = split(last_axis_block(*qkv, width, width));
  auto v = split(last_axis_block(*qkv, 2 * width, width));
  if (!q) return std::unexpected(q.error());
  if (!k) return std::unexpected(k.error());
  if (!v) return std::unexpected(v.error());

  // Scaled scores plus the additive causal mask built for [T,T] (or, wrongly, [B,T,T])
  auto keys_t = llmfs::tensor::transpose(*k, 2, 3);
  if (!keys_t) return std::unexpected(keys_t.error());
  auto scores = llmfs::tensor::matmul(*q, *keys_t);
  if (!scores) return std::unexpected(scores.error());
  auto scaled =
      llmfs::tensor::scale(*scores, 1.0 / std::sqrt(static_cast<double>(head_width)));
  const Tensor mask = mistake == Mistake::mask_batch_only
                          ? causal_table(Shape{batch, tokens, tokens})
                          : causal_table(Shape{tokens, tokens});
  auto masked = llmfs::tensor::add(*scaled, mask);
  if (!masked) return std::unexpected(masked.error());

  // Row softmax over the keys, then the value mixture: [B,h,T,T]·[B,h,T,d_h]
  auto weights = llmfs::tensor::softmax_last_axis(*masked);
  if (!weights) return std::unexpected(weights.error());
  auto heads_out = llmfs::tensor::matmul(*weights, *v);
  if (!heads_out) return std::unexpected(heads_out.error());

  // Merge: [B,h,T,d_h] -> [B,T,h,d_h] -> [B,T,d]. This library's transpose returns a
  // new contiguous tensor, so there is no separate contiguous() step to forget.
  std::expected<Tensor, TensorError> merged = *heads_out;
  if (mistake != Mistake::merge_order)
    merged = llmfs::tensor::transpose(*heads_out, 1, 2);
  if (merged) merged = llmfs::tensor::reshape(*merged, Shape{batch, tokens, width});
  if (!merged) return std::unexpected(merged.error());

  // Output projection, with the bias the paper does not have as a deliberate mistake
  auto output = llmfs::tensor::matmul(*merged, w_o);
  if (!output) return std::unexpected(output.error());
  std::size_t parameters = w_in.size() + w_o.size();
  if (mistake == Mistake::output_bias) {
    output = llmfs::tensor::add(*output, Tensor::full(Shape{width}, bias_value));
    if (!output) return std::unexpected(output.error());
    parameters += width;
  }
  return LessonForward{std::move(*output), parameters};
}
// endregion: lesson-variants

}  // namespace ch40
