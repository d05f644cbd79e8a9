// Chapter 30
#include <limits>
#include <vector>

#include <llmfs/attention/multi_head.hpp>
#include <llmfs/autograd/ops.hpp>
#include <llmfs/core/try.hpp>

namespace llmfs::attention {

std::string_view describe(MultiHeadStage stage) noexcept {
  switch (stage) {
    case MultiHeadStage::configuration: return "configuration";
    case MultiHeadStage::parameters: return "parameters";
    case MultiHeadStage::input: return "input";
    case MultiHeadStage::qkv_projection: return "Q/K/V projection";
    case MultiHeadStage::query_split: return "query head split";
    case MultiHeadStage::key_split: return "key head split";
    case MultiHeadStage::value_split: return "value head split";
    case MultiHeadStage::query_rotation: return "query rotation";
    case MultiHeadStage::key_rotation: return "key rotation";
    case MultiHeadStage::causal_attention: return "causal attention";
    case MultiHeadStage::merge: return "head merge";
    case MultiHeadStage::output_projection: return "output projection";
  }
  return "unknown stage";
}

std::string_view describe(MultiHeadErrorCode code) noexcept {
  switch (code) {
    case MultiHeadErrorCode::zero_model_width: return "model width must be nonzero";
    case MultiHeadErrorCode::zero_heads: return "head count must be nonzero";
    case MultiHeadErrorCode::width_not_divisible:
      return "model width not divisible by head count";
    case MultiHeadErrorCode::odd_head_width: return "head width must be even for RoPE";
    case MultiHeadErrorCode::parameter_shape:
      return "projection matrix has the wrong shape";
    case MultiHeadErrorCode::input_rank:
      return "input must have rank 3 [B, T, d_model]";
    case MultiHeadErrorCode::input_width:
      return "input width differs from the model width";
    case MultiHeadErrorCode::empty_tokens: return "at least one token is needed";
    case MultiHeadErrorCode::offset_overflow: return "position interval overflows";
    case MultiHeadErrorCode::position_range:
      return "position interval exceeds capacity";
    case MultiHeadErrorCode::missing_kernel: return "attention kernel has no function";
    case MultiHeadErrorCode::stage_failed: return "stage failed";
  }
  return "unknown multi-head error";
}

const autograd::AutogradError* autograd_cause(const MultiHeadError& error) noexcept {
  if (!error.cause) return nullptr;
  return std::visit(
      [](const auto& lower) -> const autograd::AutogradError* {
        return lower.cause ? &*lower.cause : nullptr;
      },
      *error.cause);
}

std::expected<CausalAttention, AttentionError> stored_weights_attention(
    const autograd::TensorValue& query, const autograd::TensorValue& key,
    const autograd::TensorValue& value, std::size_t /*block_size*/) {
  return causal_self_attention(query, key, value);
}

namespace {

// A kernel must name a function (a default AttentionKernel does).
[[nodiscard]] std::expected<void, MultiHeadError> check_kernel(
    const AttentionKernel& kernel) {
  if (kernel.run == nullptr)
    return reject(MultiHeadErrorCode::missing_kernel, MultiHeadStage::configuration,
                  std::string(kernel.name));
  return {};
}

// region: multi-head-configuration-checks
// Everything about widths and positions that can be checked without any matrix: returns
// the rotary embedding (or nothing, for NoPositions).
[[nodiscard]] std::expected<std::optional<RotaryEmbedding>, MultiHeadError>
check_configuration(std::size_t model_width, std::size_t heads,
                    const PositionEncoding& positions) {
  constexpr auto stage = MultiHeadStage::configuration;
  if (model_width == 0) return reject(MultiHeadErrorCode::zero_model_width, stage);
  if (heads == 0) return reject(MultiHeadErrorCode::zero_heads, stage);
  if (model_width % heads != 0) {
    return reject(MultiHeadErrorCode::width_not_divisible, stage,
                  fmt::format("d_model {}, {} heads", model_width, heads));
  }
  const std::size_t head_width = model_width / heads;
  const auto* rotary = std::get_if<RotaryPositions>(&positions);
  if (rotary == nullptr) return std::optional<RotaryEmbedding>{};
  if (head_width % 2 != 0) {
    return reject(
        MultiHeadErrorCode::odd_head_width, stage,
        fmt::format("d_model {}, {} heads: d_h {}", model_width, heads, head_width));
  }
  return LLMFS_TRY_AT(
      stage, RotaryEmbedding::create(head_width, rotary->max_positions, rotary->base));
}

// Every matrix maps model width to model width.
[[nodiscard]] std::expected<void, MultiHeadError> check_square(
    const nn::QkvProjections& qkv, const nn::Linear& output) {
  constexpr auto stage = MultiHeadStage::configuration;
  const std::size_t d = qkv.input_width();
  if (qkv.output_width() != d) {
    return reject(MultiHeadErrorCode::parameter_shape, stage,
                  fmt::format("Q/K/V project {} to {}, expected {} to {}", d,
                              qkv.output_width(), d, d));
  }
  if (output.input_width() != d || output.output_width() != d) {
    return reject(MultiHeadErrorCode::parameter_shape, stage,
                  fmt::format("W_O is [{},{}], expected [{},{}]", output.input_width(),
                              output.output_width(), d, d));
  }
  return {};
}
// endregion: multi-head-configuration-checks

// region: multi-head-input-checks
// The input [B,T,d_model] and its positions [offset, offset+T), before the tape moves.
[[nodiscard]] std::expected<void, MultiHeadError> check_input(
    const tensor::Shape& shape, std::size_t offset, std::size_t model_width,
    const std::optional<RotaryEmbedding>& rope) {
  constexpr auto stage = MultiHeadStage::input;
  if (shape.rank() != 3)
    return reject(MultiHeadErrorCode::input_rank, stage, fmt::format("got {}", shape));
  if (shape[2] != model_width) {
    return reject(MultiHeadErrorCode::input_width, stage,
                  fmt::format("expected {}, got {}", model_width, shape[2]));
  }
  const std::size_t tokens = shape[1];
  if (tokens == 0)
    return reject(MultiHeadErrorCode::empty_tokens, stage,
                  fmt::format("got {}", shape));
  if (offset > std::numeric_limits<std::size_t>::max() - tokens) {
    return reject(MultiHeadErrorCode::offset_overflow, stage,
                  fmt::format("offset {} plus {} tokens", offset, tokens));
  }
  if (rope && offset + tokens > rope->max_positions()) {
    return reject(MultiHeadErrorCode::position_range, stage,
                  fmt::format("positions [{}, {}) but capacity {}", offset,
                              offset + tokens, rope->max_positions()));
  }
  return {};
}
// endregion: multi-head-input-checks

// region: multi-head-rotate
// Queries and keys rotated by position; unchanged when the layer has no positions.
[[nodiscard]] std::expected<autograd::TensorValue, RopeError> rotate(
    const std::optional<RotaryEmbedding>& rope, const autograd::TensorValue& heads,
    std::size_t offset) {
  if (!rope) return heads;
  return rope->rotate(heads, offset);
}
// endregion: multi-head-rotate

}  // namespace

// region: multi-head-create
std::expected<MultiHeadAttention, MultiHeadError> MultiHeadAttention::create(
    autograd::Tape& tape, std::string_view prefix, std::size_t model_width,
    std::size_t heads, PositionEncoding positions, SplitMix64& rng,
    AttentionKernel kernel) {
  // Check the whole configuration, and build the RoPE tables, before the rng moves
  auto rope = LLMFS_TRY(check_configuration(model_width, heads, positions));
  LLMFS_TRY(check_kernel(kernel));

  // Draw W_Q, W_K, W_V, then W_O, on a trial copy of the generator
  SplitMix64 trial = rng;
  auto qkv = LLMFS_TRY_AT(
      MultiHeadStage::qkv_projection,
      nn::QkvProjections::create(tape, prefix, model_width, model_width, trial));
  auto output =
      LLMFS_TRY_AT(MultiHeadStage::output_projection,
                   nn::Linear::create(tape, fmt::format("{}.output", prefix),
                                      model_width, model_width, false, trial));
  auto layer = LLMFS_TRY(assemble(std::move(qkv), std::move(output), heads,
                                  std::move(positions), std::move(rope), kernel));

  // Commit the generator only when the layer exists
  rng = trial;
  return layer;
}
// endregion: multi-head-create

// region: multi-head-assemble
// The configuration has been checked (and the RoPE tables built) by the caller, once.
std::expected<MultiHeadAttention, MultiHeadError> MultiHeadAttention::assemble(
    nn::QkvProjections qkv, nn::Linear output, std::size_t heads,
    PositionEncoding positions, std::optional<RotaryEmbedding> rope,
    AttentionKernel kernel) {
  LLMFS_TRY(check_square(qkv, output));
  LLMFS_TRY(check_kernel(kernel));
  // One list, stable order, unique names and nodes
  std::vector<nn::NamedParameter> listed(qkv.parameters().begin(),
                                         qkv.parameters().end());
  listed.push_back(output.weight());
  auto parameters = LLMFS_TRY_AT(MultiHeadStage::parameters,
                                 nn::NamedParameters::create(std::move(listed)));
  const std::size_t model_width = qkv.input_width();
  return MultiHeadAttention(std::move(qkv), std::move(output), std::move(rope),
                            std::move(positions), std::move(parameters), model_width,
                            heads, kernel);
}
// endregion: multi-head-assemble

// region: multi-head-from-parameters
std::expected<MultiHeadAttention, MultiHeadError> MultiHeadAttention::from_parameters(
    nn::NamedParameter query, nn::NamedParameter key, nn::NamedParameter value,
    nn::NamedParameter output, std::size_t heads, PositionEncoding positions,
    AttentionKernel kernel) {
  return from_projections(nn::QkvProjections::from_weights(
                              std::move(query), std::move(key), std::move(value)),
                          std::move(output), heads, std::move(positions), kernel);
}

std::expected<MultiHeadAttention, MultiHeadError>
MultiHeadAttention::from_combined_parameters(nn::NamedParameter in_projection,
                                             nn::NamedParameter output,
                                             std::size_t heads,
                                             PositionEncoding positions,
                                             AttentionKernel kernel) {
  return from_projections(nn::QkvProjections::from_combined(std::move(in_projection)),
                          std::move(output), heads, std::move(positions), kernel);
}

// Both layouts: the projections as built (or rejected), then W_O and the configuration.
std::expected<MultiHeadAttention, MultiHeadError> MultiHeadAttention::from_projections(
    std::expected<nn::QkvProjections, nn::NnError> projections,
    nn::NamedParameter output, std::size_t heads, PositionEncoding positions,
    AttentionKernel kernel) {
  auto qkv = LLMFS_TRY_AT(MultiHeadStage::qkv_projection, std::move(projections));
  auto projection = LLMFS_TRY_AT(MultiHeadStage::output_projection,
                                 nn::Linear::from_parameters(std::move(output)));
  auto rope = LLMFS_TRY(check_configuration(qkv.input_width(), heads, positions));
  return assemble(std::move(qkv), std::move(projection), heads, std::move(positions),
                  std::move(rope), kernel);
}
// endregion: multi-head-from-parameters

std::expected<MultiHeadAttention, MultiHeadError> MultiHeadAttention::create(
    autograd::Tape& tape, std::string_view prefix, std::size_t model_width,
    std::size_t heads, std::size_t max_positions, double rope_base, SplitMix64& rng) {
  return create(tape, prefix, model_width, heads,
                RotaryPositions{max_positions, rope_base}, rng);
}

std::expected<MultiHeadAttention, MultiHeadError> MultiHeadAttention::from_parameters(
    nn::NamedParameter query, nn::NamedParameter key, nn::NamedParameter value,
    nn::NamedParameter output, std::size_t heads, std::size_t max_positions,
    double rope_base) {
  return from_parameters(std::move(query), std::move(key), std::move(value),
                         std::move(output), heads,
                         RotaryPositions{max_positions, rope_base});
}

MultiHeadAttention::MultiHeadAttention(nn::QkvProjections qkv, nn::Linear output,
                                       std::optional<RotaryEmbedding> rope,
                                       PositionEncoding positions,
                                       nn::NamedParameters parameters,
                                       std::size_t model_width, std::size_t heads,
                                       AttentionKernel kernel)
    : qkv_(std::move(qkv)),
      output_(std::move(output)),
      rope_(std::move(rope)),
      positions_(std::move(positions)),
      parameters_(std::move(parameters)),
      model_width_(model_width),
      heads_(heads),
      kernel_(kernel) {}

// region: multi-head-forward
std::expected<MultiHeadForward, MultiHeadError> MultiHeadAttention::forward(
    const autograd::TensorValue& input, std::size_t position_offset) const {
  using Stage = MultiHeadStage;
  // x: [B,T,d_model] -> [B,h,T,d_h] per head -> [B,T,d_model]
  LLMFS_TRY(check_input(input.shape(), position_offset, model_width_, rope_));

  // Project at full width, then split: Q, K, V [B,T,d_model] -> [B,h,T,d_h]
  auto projected = LLMFS_TRY_AT(Stage::qkv_projection, qkv_.forward(input));
  // A kernel that takes every head at once (Chapter 42) needs no split and no merge
  if (kernel_.layer != nullptr) return forward_all_heads(projected, position_offset);
  auto query_heads =
      LLMFS_TRY_AT(Stage::query_split, split_heads(projected.query, heads_));
  auto key_heads = LLMFS_TRY_AT(Stage::key_split, split_heads(projected.key, heads_));
  auto value_heads =
      LLMFS_TRY_AT(Stage::value_split, split_heads(projected.value, heads_));

  // Rotate queries and keys by position; the values stay as they are
  auto rotated_query =
      LLMFS_TRY_AT(Stage::query_rotation, rotate(rope_, query_heads, position_offset));
  auto rotated_key =
      LLMFS_TRY_AT(Stage::key_rotation, rotate(rope_, key_heads, position_offset));

  // Causal attention per head, by the kernel chosen at construction: [B,h] are lanes
  auto attended = LLMFS_TRY_AT(
      Stage::causal_attention,
      kernel_.run(rotated_query, rotated_key, value_heads, kernel_.block_size));

  // Concatenate to [B,T,d_model], then one learned map
  auto merged = LLMFS_TRY_AT(Stage::merge, merge_heads(attended.output));
  auto output = LLMFS_TRY_AT(Stage::output_projection, output_.forward(merged));

  return MultiHeadForward{.projected_query_heads = std::move(query_heads),
                          .projected_key_heads = std::move(key_heads),
                          .projected_value_heads = std::move(value_heads),
                          .rotated_query_heads = std::move(rotated_query),
                          .rotated_key_heads = std::move(rotated_key),
                          .scores = std::move(attended.scores),
                          .masked_scores = std::move(attended.masked_scores),
                          .attention_weights = std::move(attended.weights),
                          .head_outputs = std::move(attended.output),
                          .merged = std::move(merged),
                          .output = std::move(output)};
}
// endregion: multi-head-forward

std::expected<MultiHeadForward, MultiHeadError> MultiHeadAttention::forward_all_heads(
    const nn::QkvForward& projected, std::size_t position_offset) const {
  // Q, K, V [B,T,d_model] -> the merged heads [B,T,d_model] in one step -> W_O
  auto attended = LLMFS_TRY(kernel_.layer(
      projected.query, projected.key, projected.value, heads_, rope_, position_offset));
  auto output =
      LLMFS_TRY_AT(MultiHeadStage::output_projection, output_.forward(attended.output));
  // The per-head intermediates were never formed: their handles stay empty
  MultiHeadForward record;
  record.attention_weights = std::move(attended.weights);
  record.merged = std::move(attended.output);
  record.output = std::move(output);
  return record;
}

}  // namespace llmfs::attention

auto fmt::formatter<llmfs::attention::MultiHeadError>::format(
    const llmfs::attention::MultiHeadError& error, fmt::format_context& ctx) const
    -> decltype(ctx.out()) {
  using llmfs::attention::describe;
  auto out =
      fmt::format_to(ctx.out(), "multi-head attention, {}", describe(error.stage));
  if (error.code != llmfs::attention::MultiHeadErrorCode::stage_failed) {
    out = fmt::format_to(out, ": {}", describe(error.code));
  }
  if (!error.detail.empty()) out = fmt::format_to(out, " ({})", error.detail);
  if (!error.cause) return out;
  return std::visit(
      [&](const auto& lower) { return fmt::format_to(out, ": {}", lower); },
      *error.cause);
}
