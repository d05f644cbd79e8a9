// Chapter 31
#include <vector>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/core/try.hpp>
#include <llmfs/models/decoder_block.hpp>

namespace llmfs::models {

std::string_view describe(DecoderBlockStage stage) noexcept {
  switch (stage) {
    case DecoderBlockStage::configuration: return "decoder block configuration";
    case DecoderBlockStage::parameters: return "decoder block parameters";
    case DecoderBlockStage::attention_norm: return "attention norm";
    case DecoderBlockStage::attention: return "attention";
    case DecoderBlockStage::attention_residual: return "attention residual";
    case DecoderBlockStage::ffn_norm: return "feed-forward norm";
    case DecoderBlockStage::feed_forward: return "feed-forward";
    case DecoderBlockStage::ffn_residual: return "feed-forward residual";
  }
  return "unknown stage";
}

std::string_view describe(DecoderBlockErrorCode code) noexcept {
  switch (code) {
    case DecoderBlockErrorCode::width_mismatch: return "layer widths differ";
    case DecoderBlockErrorCode::stage_failed: return "stage failed";
  }
  return "unknown decoder block error";
}

std::size_t block_parameter_count(std::size_t model_width,
                                  std::size_t hidden_width) noexcept {
  const std::size_t d = model_width;
  return 2 * d + 4 * d * d + 3 * d * hidden_width;
}

// region: block-create
std::expected<DecoderBlock, DecoderBlockError> DecoderBlock::create(
    autograd::Tape& tape, std::string_view prefix, const DecoderBlockShape& shape,
    SplitMix64& rng) {
  constexpr auto stage = DecoderBlockStage::configuration;
  const std::size_t d = shape.model_width;
  // Draw on a trial copy; commit it only when the whole block exists
  SplitMix64 trial = rng;
  auto attention_norm = LLMFS_TRY_AT(
      stage, nn::RMSNorm::create(tape, fmt::format("{}.attention_norm", prefix), d,
                                 shape.epsilon));
  auto attention = LLMFS_TRY_AT(
      stage, attention::MultiHeadAttention::create(
                 tape, fmt::format("{}.attention", prefix), d, shape.heads,
                 attention::RotaryPositions{shape.max_positions, shape.rope_base},
                 trial, shape.attention));
  auto ffn_norm = LLMFS_TRY_AT(
      stage,
      nn::RMSNorm::create(tape, fmt::format("{}.ffn_norm", prefix), d, shape.epsilon));
  auto feed_forward = LLMFS_TRY_AT(
      stage, nn::SwiGluFeedForward::create(tape, fmt::format("{}.ffn", prefix), d,
                                           shape.hidden_width, trial));
  auto block = LLMFS_TRY(from_layers(std::move(attention_norm), std::move(attention),
                                     std::move(ffn_norm), std::move(feed_forward)));
  rng = trial;
  return block;
}
// endregion: block-create

namespace {

// region: block-width-checks
// The four layers must share d_model: both norms' widths, attention's, and the
// feed-forward network's input (and so output) width.
[[nodiscard]] std::expected<void, DecoderBlockError> check_layer_widths(
    const nn::RMSNorm& attention_norm, const attention::MultiHeadAttention& attention,
    const nn::RMSNorm& ffn_norm, const nn::SwiGluFeedForward& feed_forward) {
  const std::size_t d = attention.model_width();
  if (attention_norm.width() == d && ffn_norm.width() == d &&
      feed_forward.model_width() == d) {
    return {};
  }
  return reject(DecoderBlockErrorCode::width_mismatch, DecoderBlockStage::configuration,
                fmt::format("attention {}, norms {} and {}, feed-forward {}", d,
                            attention_norm.width(), ffn_norm.width(),
                            feed_forward.model_width()));
}
// endregion: block-width-checks

}  // namespace

// region: block-from-layers
std::expected<DecoderBlock, DecoderBlockError> DecoderBlock::from_layers(
    nn::RMSNorm attention_norm, attention::MultiHeadAttention attention,
    nn::RMSNorm ffn_norm, nn::SwiGluFeedForward feed_forward) {
  LLMFS_TRY(check_layer_widths(attention_norm, attention, ffn_norm, feed_forward));
  // The block's list in data-flow order: norm, attention, norm, feed-forward
  std::vector<nn::NamedParameter> listed = attention_norm.parameters();
  listed.insert(listed.end(), attention.parameters().begin(),
                attention.parameters().end());
  listed.push_back(ffn_norm.gain());
  for (auto& parameter : feed_forward.parameters())
    listed.push_back(parameter);
  auto parameters = LLMFS_TRY_AT(DecoderBlockStage::parameters,
                                 nn::NamedParameters::create(std::move(listed)));
  return DecoderBlock(std::move(attention_norm), std::move(attention),
                      std::move(ffn_norm), std::move(feed_forward),
                      std::move(parameters));
}
// endregion: block-from-layers

// region: block-forward
std::expected<DecoderBlockForward, DecoderBlockError> DecoderBlock::forward(
    const autograd::TensorValue& x, std::size_t position_offset) const {
  using Stage = DecoderBlockStage;
  // x: [B,T,d_model] -> every stage [B,T,d_model]
  // The attention branch reads a normalised copy; the stream x is added back as it is
  auto a = LLMFS_TRY_AT(Stage::attention_norm, attention_norm_.forward(x));
  auto attended =
      LLMFS_TRY_AT(Stage::attention, attention_.forward(a, position_offset));
  auto h = LLMFS_TRY_AT(Stage::attention_residual, autograd::add(x, attended.output));
  // The same pattern around the feed-forward network
  auto f = LLMFS_TRY_AT(Stage::ffn_norm, ffn_norm_.forward(h));
  auto fed = LLMFS_TRY_AT(Stage::feed_forward, feed_forward_.forward_stages(f));
  auto y = LLMFS_TRY_AT(Stage::ffn_residual, autograd::add(h, fed.output));
  auto attention_output = attended.output;
  auto ffn_output = fed.output;
  return DecoderBlockForward{.input = x,
                             .attention_input = std::move(a),
                             .attention = std::move(attended),
                             .attention_output = std::move(attention_output),
                             .hidden = std::move(h),
                             .ffn_input = std::move(f),
                             .feed_forward = std::move(fed),
                             .ffn_output = std::move(ffn_output),
                             .output = std::move(y)};
}
// endregion: block-forward

}  // namespace llmfs::models
