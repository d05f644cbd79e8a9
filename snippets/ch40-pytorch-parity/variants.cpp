// Chapter 40
#include <cmath>
#include <utility>

#include <llmfs/attention/causal.hpp>
#include <llmfs/core/try.hpp>
#include <llmfs/tensor/broadcast.hpp>
#include <llmfs/tensor/layout.hpp>
#include <llmfs/tensor/matmul.hpp>
#include <llmfs/tensor/softmax.hpp>

#include "evidence.hpp"

namespace ch40 {

std::string_view mistake_name(Mistake mistake) noexcept {
  constexpr std::string_view names[] = {
      "none",        "split_order",     "missing_transpose", "missing_contiguity",
      "merge_order", "mask_batch_only", "output_bias"};
  return names[static_cast<std::size_t>(mistake)];  // kMistakes order
}

namespace {

using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
using llmfs::tensor::TensorError;

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
  const auto q_block = LLMFS_TRY(ops::slice_last_axis(qkv, 0, width));
  const auto k_block = LLMFS_TRY(ops::slice_last_axis(qkv, width, 2 * width));
  const auto v_block = LLMFS_TRY(ops::slice_last_axis(qkv, 2 * width, 3 * width));
  const auto q = LLMFS_TRY(split_heads(q_block, heads, mistake));
  const auto k = LLMFS_TRY(split_heads(k_block, heads, mistake));
  const auto v = LLMFS_TRY(split_heads(v_block, heads, mistake));

  // Scaled scores plus the additive causal mask [T,T] (or, wrongly, one per sequence)
  const auto keys_t = LLMFS_TRY(ops::transpose(k, 2, 3));
  const auto scores = LLMFS_TRY(ops::matmul(q, keys_t));
  const double scale = 1.0 / std::sqrt(static_cast<double>(width / heads));
  const auto scaled = LLMFS_TRY(ops::scale(scores, scale));
  auto mask = *llmfs::attention::causal_mask(tokens);  // T·T fits: the scores exist
  if (mistake == Mistake::mask_batch_only)
    mask = LLMFS_TRY(ops::add(Tensor::zeros(Shape{batch, tokens, tokens}), mask));
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
