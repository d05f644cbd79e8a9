// Chapter 40
#include "variants.hpp"

#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include <llmfs/core/try.hpp>
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

namespace {

// region: lesson-head-layout
// Split the feature axis into heads, [B,T,d] -> [B,T,h,d_h] -> [B,h,T,d_h], or make one
// of the lesson's two split mistakes.
[[nodiscard]] std::expected<Tensor, TensorError> split_heads(const Tensor& t,
                                                             std::size_t heads,
                                                             Mistake mistake) {
  const std::size_t batch = t.shape()[0], tokens = t.shape()[1];
  const std::size_t head_width = t.shape()[2] / heads;
  if (mistake == Mistake::split_order)  // the heads axis read from the wrong place
    return llmfs::tensor::reshape(t, Shape{batch, heads, tokens, head_width});
  auto viewed =
      LLMFS_TRY(llmfs::tensor::reshape(t, Shape{batch, tokens, heads, head_width}));
  if (mistake == Mistake::missing_transpose) return viewed;
  return llmfs::tensor::transpose(viewed, 1, 2);
}

// Merge the heads, [B,h,T,d_h] -> [B,T,h,d_h] -> [B,T,d], or reshape without the
// transpose. This library's transpose returns a new contiguous tensor, so there is no
// separate contiguous() step to forget.
[[nodiscard]] std::expected<Tensor, TensorError> merge_heads(const Tensor& t,
                                                             Mistake mistake) {
  const Shape merged{t.shape()[0], t.shape()[2], t.shape()[1] * t.shape()[3]};
  if (mistake == Mistake::merge_order) return llmfs::tensor::reshape(t, merged);
  const auto swapped = LLMFS_TRY(llmfs::tensor::transpose(t, 1, 2));
  return llmfs::tensor::reshape(swapped, merged);
}
// endregion: lesson-head-layout

}  // namespace

// region: lesson-variants
std::expected<LessonForward, TensorError> lesson_forward(
    const Tensor& x, const Tensor& w_in, const Tensor& w_o, std::size_t heads,
    Mistake mistake, double bias_value) {
  namespace ops = llmfs::tensor;
  const std::size_t batch = x.shape()[0], tokens = x.shape()[1], width = x.shape()[2];

  // In-projection, chunk into Q, K, V ([B,T,3d] -> 3 x [B,T,d]), split into heads
  const auto qkv = LLMFS_TRY(ops::matmul(x, w_in));
  const auto q = LLMFS_TRY(split_heads(last_axis_block(qkv, 0, width), heads, mistake));
  const auto k =
      LLMFS_TRY(split_heads(last_axis_block(qkv, width, width), heads, mistake));
  const auto v =
      LLMFS_TRY(split_heads(last_axis_block(qkv, 2 * width, width), heads, mistake));

  // Scaled scores plus the additive causal mask built for [T,T] (or, wrongly, [B,T,T])
  const auto keys_t = LLMFS_TRY(ops::transpose(k, 2, 3));
  const auto scores = LLMFS_TRY(ops::matmul(q, keys_t));
  const double scale = 1.0 / std::sqrt(static_cast<double>(width / heads));
  const auto scaled = LLMFS_TRY(ops::scale(scores, scale));
  const Tensor mask =
      causal_table(mistake == Mistake::mask_batch_only ? Shape{batch, tokens, tokens}
                                                       : Shape{tokens, tokens});
  const auto masked = LLMFS_TRY(ops::add(scaled, mask));

  // Row softmax over the keys, the value mixture [B,h,T,T]·[B,h,T,d_h], the merge
  const auto weights = LLMFS_TRY(ops::softmax_last_axis(masked));
  const auto mixed = LLMFS_TRY(ops::matmul(weights, v));
  const auto merged = LLMFS_TRY(merge_heads(mixed, mistake));

  // Output projection, with the bias the paper does not have as a deliberate mistake
  auto output = LLMFS_TRY(ops::matmul(merged, w_o));
  std::size_t parameters = w_in.size() + w_o.size();
  if (mistake == Mistake::output_bias) {
    output = LLMFS_TRY(ops::add(output, Tensor::full(Shape{width}, bias_value)));
    parameters += width;
  }
  return LessonForward{std::move(output), parameters};
}
// endregion: lesson-variants

}  // namespace ch40
