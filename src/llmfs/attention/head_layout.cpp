// Chapter 30
#include <limits>

#include <llmfs/attention/head_layout.hpp>
#include <llmfs/autograd/ops.hpp>
#include <llmfs/core/try.hpp>

namespace llmfs::attention {

std::string_view describe(HeadLayoutErrorCode code) noexcept {
  switch (code) {
    case HeadLayoutErrorCode::split_rank:
      return "input must have rank 3 [B, T, d_model]";
    case HeadLayoutErrorCode::merge_rank:
      return "input must have rank 4 [B, h, T, d_h]";
    case HeadLayoutErrorCode::zero_heads: return "head count must be nonzero";
    case HeadLayoutErrorCode::zero_head_width: return "head width must be nonzero";
    case HeadLayoutErrorCode::width_not_divisible:
      return "width not divisible by head count";
    case HeadLayoutErrorCode::model_width_overflow: return "merged width overflows";
    case HeadLayoutErrorCode::autograd: return "tape operation failed";
  }
  return "unknown head-layout error";
}

// region: head-layout-checks
namespace {

// What split_heads needs of its input: [B,T,d_model] with d_model a multiple of h.
[[nodiscard]] std::expected<void, HeadLayoutError> check_split(
    const tensor::Shape& shape, std::size_t heads) {
  constexpr std::string_view stage = "head split";
  if (shape.rank() != 3)
    return reject(HeadLayoutErrorCode::split_rank, stage, fmt::format("got {}", shape));
  if (heads == 0) return reject(HeadLayoutErrorCode::zero_heads, stage);
  if (shape[2] == 0)
    return reject(HeadLayoutErrorCode::zero_head_width, stage, "model width 0");
  if (shape[2] % heads != 0) {
    return reject(HeadLayoutErrorCode::width_not_divisible, stage,
                  fmt::format("width {}, {} heads", shape[2], heads));
  }
  return {};
}

// What merge_heads needs of its input: [B,h,T,d_h] with h·d_h representable.
[[nodiscard]] std::expected<void, HeadLayoutError> check_merge(
    const tensor::Shape& shape) {
  constexpr std::string_view stage = "head merge";
  if (shape.rank() != 4)
    return reject(HeadLayoutErrorCode::merge_rank, stage, fmt::format("got {}", shape));
  if (shape[1] == 0) return reject(HeadLayoutErrorCode::zero_heads, stage);
  if (shape[3] == 0)
    return reject(HeadLayoutErrorCode::zero_head_width, stage, "head width 0");
  if (shape[1] > std::numeric_limits<std::size_t>::max() / shape[3]) {
    return reject(HeadLayoutErrorCode::model_width_overflow, stage,
                  fmt::format("{} heads of width {}", shape[1], shape[3]));
  }
  return {};
}

}  // namespace
// endregion: head-layout-checks

// region: head-layout
std::expected<autograd::TensorValue, HeadLayoutError> split_heads(
    const autograd::TensorValue& input, std::size_t heads) {
  // x: [B,T,d_model] -> [B,T,h,d_h] -> [B,h,T,d_h]
  LLMFS_TRY(check_split(input.shape(), heads));
  const tensor::Shape& shape = input.shape();

  // Cut each token's feature row into h consecutive blocks of d_h
  auto blocks = LLMFS_TRY_AT(
      "head split reshape",
      autograd::reshape(input,
                        tensor::Shape{shape[0], shape[1], heads, shape[2] / heads}));
  // Bring the head axis in front of the token axis
  return LLMFS_TRY_AT("head split transpose", autograd::transpose(blocks, 1, 2));
}

std::expected<autograd::TensorValue, HeadLayoutError> merge_heads(
    const autograd::TensorValue& input) {
  // x: [B,h,T,d_h] -> [B,T,h,d_h] -> [B,T,h·d_h]
  LLMFS_TRY(check_merge(input.shape()));
  const tensor::Shape& shape = input.shape();

  // Put the token axis back in front of the head axis
  auto tokens_first =
      LLMFS_TRY_AT("head merge transpose", autograd::transpose(input, 1, 2));
  // Concatenate each token's head rows into one model-width row
  return LLMFS_TRY_AT(
      "head merge reshape",
      autograd::reshape(tokens_first,
                        tensor::Shape{shape[0], shape[2], shape[1] * shape[3]}));
}
// endregion: head-layout

}  // namespace llmfs::attention
