// Chapter 30
#include <limits>
#include <vector>

#include <llmfs/attention/multi_head.hpp>
#include <llmfs/autograd/ops.hpp>

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
    case MultiHeadErrorCode::stage_failed: return "stage failed";
  }
  return "unknown multi-head error";
}

const autograd::AutogradError* MultiHeadError::autograd_cause() const noexcept {
  return std::visit(
      [](const auto& lower) -> const autograd::AutogradError* {
        if constexpr (std::is_same_v<std::decay_t<decltype(lower)>, std::monostate>) {
          return nullptr;
        } else {
          return lower.cause ? &*lower.cause : nullptr;
        }
      },
      cause);
}

namespace {

HeadLayoutError layout_error(
    HeadLayoutErrorCode code, std::string_view stage, std::string detail,
    std::optional<autograd::AutogradError> cause = std::nullopt) {
  return HeadLayoutError{code, std::string(stage), std::move(detail), std::move(cause)};
}

MultiHeadError reject(MultiHeadErrorCode code, MultiHeadStage stage,
                      std::string detail) {
  return MultiHeadError{code, stage, std::move(detail), std::monostate{}};
}

MultiHeadError failed(MultiHeadStage stage, MultiHeadCause cause) {
  return MultiHeadError{MultiHeadErrorCode::stage_failed, stage, "", std::move(cause)};
}

}  // namespace

// region: head-layout
std::expected<autograd::TensorValue, HeadLayoutError> split_heads(
    const autograd::TensorValue& input, std::size_t heads) {
  // x: [B,T,d_model] -> [B,T,h,d_h] -> [B,h,T,d_h]
  const tensor::Shape& shape = input.shape();
  if (shape.rank() != 3) {
    return std::unexpected(layout_error(HeadLayoutErrorCode::split_rank, "head split",
                                        fmt::format("got {}", shape)));
  }
  if (heads == 0) {
    return std::unexpected(
        layout_error(HeadLayoutErrorCode::zero_heads, "head split", ""));
  }
  const std::size_t width = shape[2];
  if (width == 0) {
    return std::unexpected(layout_error(HeadLayoutErrorCode::zero_head_width,
                                        "head split", "model width 0"));
  }
  if (width % heads != 0) {
    return std::unexpected(
        layout_error(HeadLayoutErrorCode::width_not_divisible, "head split",
                     fmt::format("width {}, {} heads", width, heads)));
  }

  // Cut each token's feature row into h consecutive blocks of d_h
  auto blocks =
      autograd::reshape(input, tensor::Shape{shape[0], shape[1], heads, width / heads});
  if (!blocks) {
    return std::unexpected(layout_error(HeadLayoutErrorCode::autograd,
                                        "head split reshape", "",
                                        std::move(blocks.error())));
  }
  // Bring the head axis in front of the token axis
  auto lanes = autograd::transpose(*blocks, 1, 2);
  if (!lanes) {
    return std::unexpected(layout_error(HeadLayoutErrorCode::autograd,
                                        "head split transpose", "",
                                        std::move(lanes.error())));
  }
  return std::move(*lanes);
}

std::expected<autograd::TensorValue, HeadLayoutError> merge_heads(
    const autograd::TensorValue& input) {
  // x: [B,h,T,d_h] -> [B,T,h,d_h] -> [B,T,h·d_h]
  const tensor::Shape& shape = input.shape();
  if (shape.rank() != 4) {
    return std::unexpected(layout_error(HeadLayoutErrorCode::merge_rank, "head merge",
                                        fmt::format("got {}", shape)));
  }
  if (shape[1] == 0) {
    return std::unexpected(
        layout_error(HeadLayoutErrorCode::zero_heads, "head merge", ""));
  }
  if (shape[3] == 0) {
    return std::unexpected(layout_error(HeadLayoutErrorCode::zero_head_width,
                                        "head merge", "head width 0"));
  }
  if (shape[1] > std::numeric_limits<std::size_t>::max() / shape[3]) {
    return std::unexpected(
        layout_error(HeadLayoutErrorCode::model_width_overflow, "head merge",
                     fmt::format("{} heads of width {}", shape[1], shape[3])));
  }

  // Put the token axis back in front of the head axis
  auto tokens_first = autograd::transpose(input, 1, 2);
  if (!tokens_first) {
    return std::unexpected(layout_error(HeadLayoutErrorCode::autograd,
                                        "head merge transpose", "",
                                        std::move(tokens_first.error())));
  }
  // Concatenate each token's head rows into one model-width row
  auto merged = autograd::reshape(
      *tokens_first, tensor::Shape{shape[0], shape[2], shape[1] * shape[3]});
  if (!merged) {
    return std::unexpected(layout_error(HeadLayoutErrorCode::autograd,
                                        "head merge reshape", "",
                                        std::move(merged.error())));
  }
  return std::move(*merged);
}
// endregion: head-layout

// region: multi-head-create
namespace {

// Everything about widths and positions that can be checked without any matrix: returns
// the rotary embedding (or nothing, for NoPositions).
std::expected<std::optional<RotaryEmbedding>, MultiHeadError> check_configuration(
    std::size_t model_width, std::size_t heads, const PositionEncoding& positions) {
  constexpr auto stage = MultiHeadStage::configuration;
  if (model_width == 0) {
    return std::unexpected(reject(MultiHeadErrorCode::zero_model_width, stage, ""));
  }
  if (heads == 0)
    return std::unexpected(reject(MultiHeadErrorCode::zero_heads, stage, ""));
  if (model_width % heads != 0) {
    return std::unexpected(
        reject(MultiHeadErrorCode::width_not_divisible, stage,
               fmt::format("d_model {}, {} heads", model_width, heads)));
  }
  const std::size_t head_width = model_width / heads;
  const auto* rotary = std::get_if<RotaryPositions>(&positions);
  if (rotary == nullptr) return std::optional<RotaryEmbedding>{};
  if (head_width % 2 != 0) {
    return std::unexpected(reject(
        MultiHeadErrorCode::odd_head_width, stage,
        fmt::format("d_model {}, {} heads: d_h {}", model_width, heads, head_width)));
  }
  auto rope = RotaryEmbedding::create(head_width, rotary->max_positions, rotary->base);
  if (!rope) return std::unexpected(failed(stage, std::move(rope.error())));
  return std::optional<RotaryEmbedding>(std::move(*rope));
}

}  // namespace

std::expected<MultiHeadAttention, MultiHeadError> MultiHeadAttention::create(
    autograd::Tape& tape, std::string_view prefix, std::size_t model_width,
    std::size_t heads, std::size_t max_positions, double rope_base,
    nn::SplitMix64& rng) {
  return create(tape, prefix, model_width, heads,
                RotaryPositions{max_positions, rope_base}, rng);
}

std::expected<MultiHeadAttention, MultiHeadError> MultiHeadAttention::create(
    autograd::Tape& tape, std::string_view prefix, std::size_t model_width,
    std::size_t heads, PositionEncoding positions, nn::SplitMix64& rng) {
  // Check the whole configuration (and build the RoPE tables) before the generator
  // moves
  auto rope = check_configuration(model_width, heads, positions);
  if (!rope) return std::unexpected(std::move(rope.error()));

  // Draw W_Q, W_K, W_V, then W_O, on a trial copy of the generator
  nn::SplitMix64 trial = rng;
  auto qkv = nn::QkvProjections::create(tape, prefix, model_width, model_width, trial);
  if (!qkv)
    return std::unexpected(
        failed(MultiHeadStage::qkv_projection, std::move(qkv.error())));
  auto output = nn::Linear::create(tape, fmt::format("{}.output", prefix), model_width,
                                   model_width, false, trial);
  if (!output) {
    return std::unexpected(
        failed(MultiHeadStage::output_projection, std::move(output.error())));
  }
  auto layer = assemble(std::move(*qkv), std::move(*output), heads,
                        std::move(positions), std::move(*rope));

  // Commit the generator only when the layer exists
  if (layer) rng = trial;
  return layer;
}

std::expected<MultiHeadAttention, MultiHeadError> MultiHeadAttention::from_parameters(
    nn::NamedParameter query, nn::NamedParameter key, nn::NamedParameter value,
    nn::NamedParameter output, std::size_t heads, std::size_t max_positions,
    double rope_base) {
  return from_parameters(std::move(query), std::move(key), std::move(value),
                         std::move(output), heads,
                         RotaryPositions{max_positions, rope_base});
}

std::expected<MultiHeadAttention, MultiHeadError> MultiHeadAttention::from_parameters(
    nn::NamedParameter query, nn::NamedParameter key, nn::NamedParameter value,
    nn::NamedParameter output, std::size_t heads, PositionEncoding positions) {
  auto qkv = nn::QkvProjections::from_weights(std::move(query), std::move(key),
                                              std::move(value));
  if (!qkv)
    return std::unexpected(
        failed(MultiHeadStage::qkv_projection, std::move(qkv.error())));
  auto projection = nn::Linear::from_parameters(std::move(output));
  if (!projection) {
    return std::unexpected(
        failed(MultiHeadStage::output_projection, std::move(projection.error())));
  }
  auto rope = check_configuration(qkv->input_width(), heads, positions);
  if (!rope) return std::unexpected(std::move(rope.error()));
  return assemble(std::move(*qkv), std::move(*projection), heads, std::move(positions),
                  std::move(*rope));
}

std::expected<MultiHeadAttention, MultiHeadError>
MultiHeadAttention::from_combined_parameters(nn::NamedParameter in_projection,
                                             nn::NamedParameter output,
                                             std::size_t heads,
                                             PositionEncoding positions) {
  auto qkv = nn::QkvProjections::from_combined(std::move(in_projection));
  if (!qkv)
    return std::unexpected(
        failed(MultiHeadStage::qkv_projection, std::move(qkv.error())));
  auto projection = nn::Linear::from_parameters(std::move(output));
  if (!projection) {
    return std::unexpected(
        failed(MultiHeadStage::output_projection, std::move(projection.error())));
  }
  auto rope = check_configuration(qkv->input_width(), heads, positions);
  if (!rope) return std::unexpected(std::move(rope.error()));
  return assemble(std::move(*qkv), std::move(*projection), heads, std::move(positions),
                  std::move(*rope));
}

// The configuration has been checked (and the RoPE tables built) by the caller, once.
std::expected<MultiHeadAttention, MultiHeadError> MultiHeadAttention::assemble(
    nn::QkvProjections qkv, nn::Linear output, std::size_t heads,
    PositionEncoding positions, std::optional<RotaryEmbedding> rope) {
  const std::size_t model_width = qkv.input_width();

  // Every matrix maps model width to model width
  if (qkv.output_width() != model_width) {
    return std::unexpected(
        reject(MultiHeadErrorCode::parameter_shape, MultiHeadStage::configuration,
               fmt::format("Q/K/V project {} to {}, expected {} to {}", model_width,
                           qkv.output_width(), model_width, model_width)));
  }
  if (output.input_width() != model_width || output.output_width() != model_width) {
    return std::unexpected(
        reject(MultiHeadErrorCode::parameter_shape, MultiHeadStage::configuration,
               fmt::format("W_O is [{},{}], expected [{},{}]", output.input_width(),
                           output.output_width(), model_width, model_width)));
  }

  // One list, stable order, unique names and nodes
  std::vector<nn::NamedParameter> listed(qkv.parameters().begin(),
                                         qkv.parameters().end());
  listed.push_back(output.weight());
  auto parameters = nn::NamedParameters::create(std::move(listed));
  if (!parameters) {
    return std::unexpected(
        failed(MultiHeadStage::parameters, std::move(parameters.error())));
  }
  return MultiHeadAttention(std::move(qkv), std::move(output), std::move(rope),
                            std::move(positions), std::move(*parameters), model_width,
                            heads);
}
// endregion: multi-head-create

MultiHeadAttention::MultiHeadAttention(nn::QkvProjections qkv, nn::Linear output,
                                       std::optional<RotaryEmbedding> rope,
                                       PositionEncoding positions,
                                       nn::NamedParameters parameters,
                                       std::size_t model_width, std::size_t heads)
    : qkv_(std::move(qkv)),
      output_(std::move(output)),
      rope_(std::move(rope)),
      positions_(std::move(positions)),
      parameters_(std::move(parameters)),
      model_width_(model_width),
      heads_(heads) {}

// region: multi-head-forward
std::expected<MultiHeadForward, MultiHeadError> MultiHeadAttention::forward(
    const autograd::TensorValue& input, std::size_t position_offset) const {
  // x: [B,T,d_model] -> [B,h,T,d_h] per head -> [B,T,d_model]
  // Check the input and its positions before anything touches the tape
  const tensor::Shape& shape = input.shape();
  constexpr auto at_input = MultiHeadStage::input;
  if (shape.rank() != 3) {
    return std::unexpected(
        reject(MultiHeadErrorCode::input_rank, at_input, fmt::format("got {}", shape)));
  }
  if (shape[2] != model_width_) {
    return std::unexpected(
        reject(MultiHeadErrorCode::input_width, at_input,
               fmt::format("expected {}, got {}", model_width_, shape[2])));
  }
  const std::size_t tokens = shape[1];
  if (tokens == 0) {
    return std::unexpected(reject(MultiHeadErrorCode::empty_tokens, at_input,
                                  fmt::format("got {}", shape)));
  }
  if (position_offset > std::numeric_limits<std::size_t>::max() - tokens) {
    return std::unexpected(
        reject(MultiHeadErrorCode::offset_overflow, at_input,
               fmt::format("offset {} plus {} tokens", position_offset, tokens)));
  }
  if (rope_ && position_offset + tokens > rope_->max_positions()) {
    return std::unexpected(
        reject(MultiHeadErrorCode::position_range, at_input,
               fmt::format("positions [{}, {}) but capacity {}", position_offset,
                           position_offset + tokens, rope_->max_positions())));
  }

  // Project at full width, then split
  auto projected = qkv_.forward(input);  // Q, K, V: [B,T,d_model]
  if (!projected) {
    return std::unexpected(
        failed(MultiHeadStage::qkv_projection, std::move(projected.error())));
  }

  auto query_heads = split_heads(projected->query, heads_);  // [B,h,T,d_h]
  if (!query_heads) {
    return std::unexpected(
        failed(MultiHeadStage::query_split, std::move(query_heads.error())));
  }
  auto key_heads = split_heads(projected->key, heads_);
  if (!key_heads) {
    return std::unexpected(
        failed(MultiHeadStage::key_split, std::move(key_heads.error())));
  }
  auto value_heads = split_heads(projected->value, heads_);
  if (!value_heads) {
    return std::unexpected(
        failed(MultiHeadStage::value_split, std::move(value_heads.error())));
  }

  // Rotate queries and keys by position; the values stay as they are
  autograd::TensorValue rotated_query = *query_heads;
  autograd::TensorValue rotated_key = *key_heads;
  if (rope_) {
    auto turned_query = rope_->rotate(*query_heads, position_offset);
    if (!turned_query) {
      return std::unexpected(
          failed(MultiHeadStage::query_rotation, std::move(turned_query.error())));
    }
    auto turned_key = rope_->rotate(*key_heads, position_offset);
    if (!turned_key) {
      return std::unexpected(
          failed(MultiHeadStage::key_rotation, std::move(turned_key.error())));
    }
    rotated_query = std::move(*turned_query);
    rotated_key = std::move(*turned_key);
  }

  // One causal table per head: [B,h] are independent lanes
  auto attended = causal_self_attention(rotated_query, rotated_key, *value_heads);
  if (!attended) {
    return std::unexpected(
        failed(MultiHeadStage::causal_attention, std::move(attended.error())));
  }

  // Concatenate, then one learned map
  auto merged = merge_heads(attended->output);  // [B,T,d_model]
  if (!merged)
    return std::unexpected(failed(MultiHeadStage::merge, std::move(merged.error())));
  auto output = output_.forward(*merged);
  if (!output) {
    return std::unexpected(
        failed(MultiHeadStage::output_projection, std::move(output.error())));
  }

  return MultiHeadForward{.projected_query_heads = std::move(*query_heads),
                          .projected_key_heads = std::move(*key_heads),
                          .projected_value_heads = std::move(*value_heads),
                          .rotated_query_heads = std::move(rotated_query),
                          .rotated_key_heads = std::move(rotated_key),
                          .scores = std::move(attended->scores),
                          .masked_scores = std::move(attended->masked_scores),
                          .attention_weights = std::move(attended->weights),
                          .head_outputs = std::move(attended->output),
                          .merged = std::move(*merged),
                          .output = std::move(*output)};
}
// endregion: multi-head-forward

}  // namespace llmfs::attention

auto fmt::formatter<llmfs::attention::HeadLayoutError>::format(
    const llmfs::attention::HeadLayoutError& error, fmt::format_context& ctx) const
    -> decltype(ctx.out()) {
  return llmfs::autograd::format_stage_error(ctx, error.stage,
                                             llmfs::attention::describe(error.code),
                                             error.detail, error.cause);
}

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
  return std::visit(
      [&](const auto& lower) {
        if constexpr (std::is_same_v<std::decay_t<decltype(lower)>, std::monostate>) {
          return out;
        } else {
          return fmt::format_to(out, ": {}", lower);
        }
      },
      error.cause);
}
