// Chapter 32
#include <cmath>
#include <span>
#include <utility>

#include <llmfs/autograd/ops.hpp>
#include <llmfs/core/try.hpp>
#include <llmfs/models/decoder.hpp>

namespace llmfs::models {

std::string_view describe(DecoderStage stage) noexcept {
  switch (stage) {
    case DecoderStage::configuration: return "decoder configuration";
    case DecoderStage::values: return "decoder values";
    case DecoderStage::input: return "decoder input";
    case DecoderStage::embedding: return "token embedding";
    case DecoderStage::block: return "decoder block";
    case DecoderStage::final_norm: return "final norm";
    case DecoderStage::logits: return "tied logits";
    case DecoderStage::loss: return "cross-entropy loss";
  }
  return "unknown stage";
}

std::string_view describe(DecoderErrorCode code) noexcept {
  switch (code) {
    case DecoderErrorCode::zero_size: return "size must be nonzero";
    case DecoderErrorCode::width_not_divisible:
      return "model width not divisible by head count";
    case DecoderErrorCode::odd_head_width: return "head width must be even for RoPE";
    case DecoderErrorCode::bad_rope_base: return "RoPE base must be finite and > 1";
    case DecoderErrorCode::bad_epsilon: return "epsilon must be finite and > 0";
    case DecoderErrorCode::size_overflow: return "parameter count overflows";
    case DecoderErrorCode::value_count: return "wrong number of parameter values";
    case DecoderErrorCode::value_shape: return "parameter value has the wrong shape";
    case DecoderErrorCode::token_shape:
      return "token ids are not a non-empty [B, T] grid";
    case DecoderErrorCode::context_overflow: return "sequence longer than the context";
    case DecoderErrorCode::token_out_of_range: return "token id out of range";
    case DecoderErrorCode::target_shape:
      return "targets differ from the inputs' [B, T]";
    case DecoderErrorCode::stage_failed: return "stage failed";
  }
  return "unknown decoder error";
}

namespace {

// The block shape every block of `config` has.
[[nodiscard]] DecoderBlockShape decoder_block_shape(const DecoderConfig& config) {
  return DecoderBlockShape{.model_width = config.model_width,
                           .heads = config.heads,
                           .hidden_width = config.hidden_width,
                           .max_positions = config.context_length,
                           .rope_base = config.rope_base,
                           .epsilon = config.epsilon,
                           .attention = config.attention};
}

[[nodiscard]] std::string decoder_block_name(std::size_t index) {
  return fmt::format("blocks.{}", index);
}

}  // namespace

// region: decoder-config-checks
std::expected<void, DecoderError> validate(const DecoderConfig& config) {
  constexpr auto stage = DecoderStage::configuration;
  const std::pair<std::string_view, std::size_t> sizes[] = {
      {"vocab_size", config.vocab_size},
      {"model_width", config.model_width},
      {"heads", config.heads},
      {"layers", config.layers},
      {"hidden_width", config.hidden_width},
      {"context_length", config.context_length}};
  for (const auto& [field, size] : sizes) {
    if (size == 0)
      return reject(DecoderErrorCode::zero_size, stage, std::string(field));
  }
  if (config.model_width % config.heads != 0) {
    return reject(
        DecoderErrorCode::width_not_divisible, stage,
        fmt::format("d_model {}, {} heads", config.model_width, config.heads));
  }
  if ((config.model_width / config.heads) % 2 != 0) {
    return reject(DecoderErrorCode::odd_head_width, stage,
                  fmt::format("d_h {}", config.model_width / config.heads));
  }
  if (!std::isfinite(config.rope_base) || !(config.rope_base > 1.0)) {
    return reject(DecoderErrorCode::bad_rope_base, stage,
                  fmt::format("base {}", config.rope_base));
  }
  if (!std::isfinite(config.epsilon) || !(config.epsilon > 0.0)) {
    return reject(DecoderErrorCode::bad_epsilon, stage,
                  fmt::format("epsilon {}", config.epsilon));
  }
  LLMFS_TRY(decoder_parameter_count(config));
  return {};
}
// endregion: decoder-config-checks

// region: decoder-parameter-count
std::expected<std::size_t, DecoderError> decoder_parameter_count(
    const DecoderConfig& config) {
  // Every product and sum checked: a wrapped count would pass as a small one
  bool fits = true;
  auto times = [&fits](std::size_t a, std::size_t b) {
    std::size_t out = 0;
    fits = fits && !__builtin_mul_overflow(a, b, &out);
    return out;
  };
  auto plus = [&fits](std::size_t a, std::size_t b) {
    std::size_t out = 0;
    fits = fits && !__builtin_add_overflow(a, b, &out);
    return out;
  };
  const std::size_t d = config.model_width;
  // 2d + 4d² + 3·d·d_ff per block; V·d + N·block + d in all
  const std::size_t block = plus(plus(times(2, d), times(4, times(d, d))),
                                 times(3, times(d, config.hidden_width)));
  const std::size_t total =
      plus(plus(times(config.vocab_size, d), times(config.layers, block)), d);
  if (!fits || total > tensor::max_element_count()) {
    return reject(DecoderErrorCode::size_overflow, DecoderStage::configuration,
                  fmt::format("V {}, d {}, N {}, d_ff {}", config.vocab_size, d,
                              config.layers, config.hidden_width));
  }
  return total;
}
// endregion: decoder-parameter-count

std::vector<ParameterSpec> decoder_parameter_specs(const DecoderConfig& config) {
  const std::size_t d = config.model_width;
  const std::size_t f = config.hidden_width;
  std::vector<ParameterSpec> specs;
  specs.reserve(2 + 9 * config.layers);
  specs.push_back({"embedding.weight", {config.vocab_size, d}});
  for (std::size_t i = 0; i < config.layers; ++i) {
    const std::string block = decoder_block_name(i);
    specs.push_back({block + ".attention_norm.weight", {d}});
    for (const char* role : {"query", "key", "value", "output"}) {
      specs.push_back({fmt::format("{}.attention.{}.weight", block, role), {d, d}});
    }
    specs.push_back({block + ".ffn_norm.weight", {d}});
    specs.push_back({block + ".ffn.gate.weight", {d, f}});
    specs.push_back({block + ".ffn.up.weight", {d, f}});
    specs.push_back({block + ".ffn.down.weight", {f, d}});
  }
  specs.push_back({"final_norm.weight", {d}});
  return specs;
}

namespace {

// One value per parameter, each of its spec's shape.
[[nodiscard]] std::expected<void, DecoderError> check_decoder_values(
    const DecoderConfig& config, std::span<const tensor::Tensor> values) {
  const auto specs = decoder_parameter_specs(config);
  if (values.size() != specs.size()) {
    return reject(DecoderErrorCode::value_count, DecoderStage::values,
                  fmt::format("expected {}, got {}", specs.size(), values.size()));
  }
  for (std::size_t i = 0; i < specs.size(); ++i) {
    if (values[i].shape() != specs[i].shape) {
      return reject(DecoderErrorCode::value_shape, DecoderStage::values,
                    fmt::format("{}: expected {}, got {}", specs[i].name,
                                specs[i].shape, values[i].shape()));
    }
  }
  return {};
}

// A layer error on its way up from block `index`, with the block named in the detail.
template <class Lower>
[[nodiscard]] DecoderError decoder_block_failure(std::size_t index, Lower lower) {
  DecoderError error = at_stage(DecoderStage::block, std::move(lower));
  error.detail = decoder_block_name(index);
  return error;
}

}  // namespace

// region: decoder-create
std::expected<DecoderModel, DecoderError> DecoderModel::create(
    const DecoderConfig& config) {
  LLMFS_TRY(validate(config));
  autograd::Tape tape;
  SplitMix64 rng(config.seed);
  // E first, then each block bottom up, then the final gain (no draw)
  auto embedding =
      LLMFS_TRY_AT(DecoderStage::embedding,
                   nn::Embedding::create(tape, "embedding", config.vocab_size,
                                         config.model_width, rng));
  std::vector<DecoderBlock> blocks;
  blocks.reserve(config.layers);
  for (std::size_t i = 0; i < config.layers; ++i) {
    auto block = DecoderBlock::create(tape, decoder_block_name(i),
                                      decoder_block_shape(config), rng);
    if (!block)
      return std::unexpected(decoder_block_failure(i, std::move(block).error()));
    blocks.push_back(std::move(*block));
  }
  auto final_norm = LLMFS_TRY_AT(
      DecoderStage::final_norm,
      nn::RMSNorm::create(tape, "final_norm", config.model_width, config.epsilon));
  return assemble(config, std::move(tape), std::move(embedding), std::move(blocks),
                  std::move(final_norm));
}
// endregion: decoder-create

std::expected<DecoderModel, DecoderError> DecoderModel::assemble(
    const DecoderConfig& config, autograd::Tape tape, nn::Embedding embedding,
    std::vector<DecoderBlock> blocks, nn::RMSNorm final_norm) {
  std::vector<nn::NamedParameter> listed = embedding.parameters();
  for (const auto& block : blocks) {
    listed.insert(listed.end(), block.parameters().begin(), block.parameters().end());
  }
  listed.push_back(final_norm.gain());
  auto parameters = LLMFS_TRY_AT(DecoderStage::values,
                                 nn::NamedParameters::create(std::move(listed)));
  return DecoderModel(config, std::move(tape), std::move(embedding), std::move(blocks),
                      std::move(final_norm), std::move(parameters));
}

// region: decoder-from-values
std::expected<DecoderModel, DecoderError> DecoderModel::from_values(
    const DecoderConfig& config, std::vector<tensor::Tensor> values) {
  LLMFS_TRY(validate(config));
  LLMFS_TRY(check_decoder_values(config, values));
  const auto specs = decoder_parameter_specs(config);
  autograd::Tape tape;
  std::size_t next = 0;
  // Each value becomes a leaf under its name, in the order of the specs
  auto leaf = [&] {
    nn::NamedParameter parameter{specs[next].name,
                                 tape.parameter(std::move(values[next]))};
    ++next;
    return parameter;
  };
  auto embedding =
      LLMFS_TRY_AT(DecoderStage::embedding, nn::Embedding::from_parameter(leaf()));
  std::vector<DecoderBlock> blocks;
  for (std::size_t i = 0; i < config.layers; ++i) {
    auto block = build_block(config, i, leaf);
    if (!block) return std::unexpected(std::move(block).error());
    blocks.push_back(std::move(*block));
  }
  auto final_norm = LLMFS_TRY_AT(DecoderStage::final_norm,
                                 nn::RMSNorm::from_parameters(leaf(), config.epsilon));
  return assemble(config, std::move(tape), std::move(embedding), std::move(blocks),
                  std::move(final_norm));
}
// endregion: decoder-from-values

std::expected<DecoderBlock, DecoderError> DecoderModel::build_block(
    const DecoderConfig& config, std::size_t index,
    const std::function<nn::NamedParameter()>& leaf) {
  auto fail = [&](auto lower) {
    return std::unexpected(decoder_block_failure(index, std::move(lower)));
  };
  auto attention_norm = nn::RMSNorm::from_parameters(leaf(), config.epsilon);
  if (!attention_norm) return fail(std::move(attention_norm).error());
  auto query = leaf();
  auto key = leaf();
  auto value = leaf();
  auto output = leaf();
  auto attention = attention::MultiHeadAttention::from_parameters(
      std::move(query), std::move(key), std::move(value), std::move(output),
      config.heads, attention::RotaryPositions{config.context_length, config.rope_base},
      config.attention);
  if (!attention) return fail(std::move(attention).error());
  auto ffn_norm = nn::RMSNorm::from_parameters(leaf(), config.epsilon);
  if (!ffn_norm) return fail(std::move(ffn_norm).error());
  auto gate = leaf();
  auto up = leaf();
  auto down = leaf();
  auto feed_forward = nn::SwiGluFeedForward::from_parameters(
      std::move(gate), std::move(up), std::move(down));
  if (!feed_forward) return fail(std::move(feed_forward).error());
  auto block =
      DecoderBlock::from_layers(std::move(*attention_norm), std::move(*attention),
                                std::move(*ffn_norm), std::move(*feed_forward));
  if (!block) return fail(std::move(block).error());
  return std::move(*block);
}

std::expected<std::vector<tensor::Tensor>, DecoderError> DecoderModel::values() const {
  std::vector<tensor::Tensor> out;
  out.reserve(parameters_.size());
  for (const auto& parameter : parameters_) {
    out.push_back(LLMFS_TRY_AT(DecoderStage::values, parameter.value.value()));
  }
  return out;
}

std::expected<std::vector<tensor::Tensor>, DecoderError> DecoderModel::gradients()
    const {
  std::vector<tensor::Tensor> out;
  out.reserve(parameters_.size());
  for (const auto& parameter : parameters_) {
    out.push_back(LLMFS_TRY_AT(DecoderStage::values, parameter.value.gradient()));
  }
  return out;
}

std::expected<void, DecoderError> DecoderModel::set_values(
    std::vector<tensor::Tensor> values) {
  *this = LLMFS_TRY(from_values(config_, std::move(values)));
  return {};
}

std::expected<void, DecoderError> DecoderModel::reset_tape() {
  return set_values(LLMFS_TRY(values()));
}

namespace {

// region: decoder-input-checks
// Ids: a non-empty [B, T] grid, T within the context, every id in [0, V).
[[nodiscard]] std::expected<void, DecoderError> check_tokens(
    const autograd::TokenGrid& ids, const DecoderConfig& config,
    std::string_view what) {
  constexpr auto stage = DecoderStage::input;
  if (ids.batch == 0 || ids.time == 0 || ids.ids.size() / ids.batch != ids.time ||
      ids.ids.size() % ids.batch != 0) {
    return reject(DecoderErrorCode::token_shape, stage,
                  fmt::format("{}: B {}, T {}, {} ids", what, ids.batch, ids.time,
                              ids.ids.size()));
  }
  if (ids.time > config.context_length) {
    return reject(
        DecoderErrorCode::context_overflow, stage,
        fmt::format("{}: T {} > T_max {}", what, ids.time, config.context_length));
  }
  for (std::size_t p = 0; p < ids.ids.size(); ++p) {
    if (ids.ids[p] < 0 || static_cast<std::size_t>(ids.ids[p]) >= config.vocab_size) {
      return reject(DecoderErrorCode::token_out_of_range, stage,
                    fmt::format("{}: id {} at (b {}, t {}), V {}", what, ids.ids[p],
                                p / ids.time, p % ids.time, config.vocab_size));
    }
  }
  return {};
}

// Targets: the inputs' [B, T] grid, every id in [0, V).
[[nodiscard]] std::expected<void, DecoderError> check_targets(
    const autograd::TokenGrid& inputs, const autograd::TokenGrid& targets,
    const DecoderConfig& config) {
  if (targets.batch != inputs.batch || targets.time != inputs.time) {
    return reject(DecoderErrorCode::target_shape, DecoderStage::input,
                  fmt::format("inputs [{},{}], targets [{},{}]", inputs.batch,
                              inputs.time, targets.batch, targets.time));
  }
  return check_tokens(targets, config, "targets");
}
// endregion: decoder-input-checks

}  // namespace

// region: decoder-forward
std::expected<DecoderForward, DecoderError> DecoderModel::forward_stages(
    const autograd::TokenGrid& ids) const {
  // ids: [B,T] -> x_0..x_N [B,T,d_model] -> logits [B,T,V]
  LLMFS_TRY(check_tokens(ids, config_, "ids"));
  DecoderForward out;
  out.embeddings = LLMFS_TRY_AT(DecoderStage::embedding, embedding_.forward(ids));
  // The residual stream x_i, [B,T,d], through every block at positions 0..T−1
  out.blocks.reserve(blocks_.size());
  const autograd::TensorValue* stream = &out.embeddings;
  for (std::size_t i = 0; i < blocks_.size(); ++i) {
    auto block = blocks_[i].forward(*stream, 0);
    if (!block)
      return std::unexpected(decoder_block_failure(i, std::move(block).error()));
    out.blocks.push_back(std::move(*block));
    stream = &out.blocks.back().output;
  }
  out.normalized = LLMFS_TRY_AT(DecoderStage::final_norm, final_norm_.forward(*stream));
  // Tied output: z = n·Eᵀ, [B,T,d]·[d,V] -> [B,T,V]
  auto table_t = LLMFS_TRY_AT(DecoderStage::logits,
                              autograd::transpose(embedding_.table().value, 0, 1));
  out.logits =
      LLMFS_TRY_AT(DecoderStage::logits, autograd::matmul(out.normalized, table_t));
  return out;
}
// endregion: decoder-forward

std::expected<autograd::TensorValue, DecoderError> DecoderModel::forward(
    const autograd::TokenGrid& ids) const {
  auto stages = LLMFS_TRY(forward_stages(ids));
  return std::move(stages.logits);
}

// region: decoder-loss
std::expected<autograd::TensorValue, DecoderError> DecoderModel::loss(
    const autograd::TokenGrid& inputs, const autograd::TokenGrid& targets) const {
  LLMFS_TRY(check_targets(inputs, targets, config_));
  auto logits = LLMFS_TRY(forward(inputs));
  return LLMFS_TRY_AT(DecoderStage::loss, autograd::cross_entropy(logits, targets));
}
// endregion: decoder-loss

}  // namespace llmfs::models
