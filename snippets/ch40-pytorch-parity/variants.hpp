// Chapter 40
#pragma once
// The lesson's multi-head attention written step by step with this library's tensor
// ops, with one deliberate mistake from the lesson's failure-modes table (or none), so
// that the appendix can show what each mistake does and that the parity check catches
// it.
#include <cstddef>
#include <expected>
#include <string_view>

#include <llmfs/tensor/error.hpp>
#include <llmfs/tensor/tensor.hpp>

namespace ch40 {

/// One row of the lesson's failure-modes table, as code.
enum class Mistake {
  none,                ///< the correct steps
  split_order,         ///< reshape [B,T,d] -> [B,h,T,d_h] directly (no transpose)
  missing_transpose,   ///< reshape to [B,T,h,d_h] and attend over axis 2 (the heads)
  missing_contiguity,  ///< PyTorch's transpose-then-view; here transpose already copies
  merge_order,         ///< reshape [B,h,T,d_h] -> [B,T,d] without transposing back
  mask_batch_only,     ///< a causal mask [B,T,T]: no head axis, so it cannot broadcast
  output_bias,         ///< W_O followed by a bias of `bias_value` on every coordinate
};

/// Every mistake, in table order (none first).
inline constexpr Mistake kMistakes[] = {Mistake::none,
                                        Mistake::split_order,
                                        Mistake::missing_transpose,
                                        Mistake::missing_contiguity,
                                        Mistake::merge_order,
                                        Mistake::mask_batch_only,
                                        Mistake::output_bias};

/// A short name, e.g. "split_order".
[[nodiscard]] std::string_view mistake_name(Mistake mistake) noexcept;

/// What one variant produced: the output and how many learned scalars it uses.
struct LessonForward {
  llmfs::tensor::Tensor output;   ///< [B,T,d]
  std::size_t parameter_count{};  ///< 3d² + d² (+ d with an output bias)
};

/// x [B,T,d], w_in [d,3d], w_o [d,d] -> output [B,T,d], causal, no RoPE, `heads` heads,
/// following the lesson's steps with `mistake` made on purpose. `bias_value` is the
/// output bias of Mistake::output_bias (0.0 is how nn.MultiheadAttention initialises
/// it). \return the tensor op's typed error where the mistake makes shapes disagree.
[[nodiscard]] std::expected<LessonForward, llmfs::tensor::TensorError> lesson_forward(
    const llmfs::tensor::Tensor& x, const llmfs::tensor::Tensor& w_in,
    const llmfs::tensor::Tensor& w_o, std::size_t heads, Mistake mistake,
    double bias_value = 0.0);

}  // namespace ch40
