// Chapter 40
#include <utility>

#include <llmfs/tensor/broadcast.hpp>

#include "evidence.hpp"

namespace ch40 {

// region: exercise-answers
ExerciseAnswers answer_exercises(const ExerciseConfig& c) {
  using llmfs::tensor::Shape;
  ExerciseAnswers a;
  // 1. Widths: d = h·d_head; W_in is [d, 3d] and W_O is [d, d] in the X·W convention.
  const std::size_t d = c.heads * c.head_width;
  a.model_width = d;
  a.w_in_shape = Shape{d, 3 * d};
  a.w_o_shape = Shape{d, d};

  // 2. Strides: view() keeps row-major strides; transpose(1,2) swaps two of them, so
  //    the result is not row-major and view() on it fails until contiguous() copies.
  a.view_strides =
      llmfs::tensor::row_major_strides(Shape{c.batch, c.tokens, c.heads, c.head_width});
  a.split_shape = Shape{c.batch, c.heads, c.tokens, c.head_width};
  a.split_strides = a.view_strides;
  std::swap(a.split_strides[1], a.split_strides[2]);
  a.contiguous_strides = llmfs::tensor::row_major_strides(a.split_shape);
  a.split_contiguous = a.split_strides == a.contiguous_strides;

  // 3. The causal mask [1,1,T,T] broadcasts against scores [B,h,T,T].
  a.mask_shape = Shape{1, 1, c.tokens, c.tokens};
  a.scores_shape = Shape{c.batch, c.heads, c.tokens, c.tokens};
  a.mask_broadcast_shape =
      *llmfs::tensor::broadcast_shapes(a.mask_shape, a.scores_shape, "mask");
  a.mask_line = "torch.tril(torch.ones(T, T, dtype=torch.bool))[None, None]";

  // 4. Parameters: one [d, 3d] matrix or three [d, d] matrices hold the same 3d².
  a.combined_parameters = d * 3 * d;
  a.separate_parameters = 3 * (d * d);
  return a;
}
// endregion: exercise-answers

}  // namespace ch40
