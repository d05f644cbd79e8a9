// Chapter 38
#include <memory>
#include <utility>

#include <llmfs/core/try.hpp>
#include <llmfs/generation/generate.hpp>
#include <llmfs/nn/rms_norm.hpp>
#include <llmfs/tensor/broadcast.hpp>
#include <llmfs/tensor/layout.hpp>
#include <llmfs/tensor/matmul.hpp>

namespace llmfs::generation {

std::string_view describe(GenerationStage stage) noexcept {
  switch (stage) {
    case GenerationStage::configuration: return "generation configuration";
    case GenerationStage::input: return "generation input";
    case GenerationStage::embedding: return "token embedding";
    case GenerationStage::block: return "cached block";
    case GenerationStage::final_norm: return "final norm";
    case GenerationStage::logits: return "tied logits";
    case GenerationStage::choose: return "next-token choice";
  }
  return "unknown stage";
}

std::string_view describe(GenerationErrorCode code) noexcept {
  switch (code) {
    case GenerationErrorCode::token_shape: return "token ids are not a [B, T] grid";
    case GenerationErrorCode::empty_prompt: return "the prompt is empty";
    case GenerationErrorCode::context_overflow: return "prompt longer than the context";
    case GenerationErrorCode::too_long: return "generation longer than the context";
    case GenerationErrorCode::token_out_of_range: return "token id out of range";
    case GenerationErrorCode::cache_mismatch: return "cache made for another model";
    case GenerationErrorCode::capacity_exceeded: return "cache capacity exceeded";
    case GenerationErrorCode::chooser_failed: return "the chooser refused";
    case GenerationErrorCode::chosen_out_of_range: return "chosen id out of range";
    case GenerationErrorCode::stage_failed: return "stage failed";
  }
  return "unknown generation error";
}

namespace {

// The cache shape of every block of `config`.
[[nodiscard]] CacheShape block_cache_shape(const models::DecoderConfig& config,
                                           std::size_t batch) {
  return CacheShape{.batch = batch,
                    .heads = config.heads,
                    .head_width = config.model_width / config.heads,
                    .capacity = config.context_length};
}

}  // namespace

// region: model-cache-create
std::expected<ModelCache, GenerationError> ModelCache::create(
    const models::DecoderConfig& config, std::size_t batch) {
  LLMFS_TRY_AT(GenerationStage::configuration, models::validate(config));
  if (batch == 0) {
    return reject(GenerationErrorCode::token_shape, GenerationStage::configuration,
                  "B 0");
  }
  LLMFS_TRY(model_cache_bytes(config, batch));
  // One cache per block, each [B,h,T_max,d_h] for keys and the same for values
  std::vector<KvCache> layers;
  layers.reserve(config.layers);
  for (std::size_t i = 0; i < config.layers; ++i) {
    layers.push_back(LLMFS_TRY_AT(GenerationStage::configuration,
                                  KvCache::create(block_cache_shape(config, batch))));
  }
  return ModelCache(config, batch, std::move(layers));
}
// endregion: model-cache-create

std::size_t ModelCache::length() const noexcept {
  return layers_.empty() ? 0 : layers_.front().length();
}

std::size_t ModelCache::allocated_bytes() const noexcept {
  std::size_t bytes = 0;
  for (const KvCache& layer : layers_)
    bytes += layer.allocated_bytes();
  return bytes;
}

void ModelCache::clear() noexcept {
  for (KvCache& layer : layers_)
    layer.clear();
}

// region: model-cache-bytes
std::expected<std::size_t, GenerationError> model_cache_bytes(
    const models::DecoderConfig& config, std::size_t batch) {
  // N layers · 2·B·h·T_max·d_h doubles · 8 bytes, with d = h·d_h
  const std::size_t per_layer = LLMFS_TRY_AT(
      GenerationStage::configuration, cache_doubles(block_cache_shape(config, batch)));
  std::size_t bytes = 0;
  if (__builtin_mul_overflow(per_layer, config.layers, &bytes) ||
      __builtin_mul_overflow(bytes, sizeof(double), &bytes)) {
    CacheError overflow =
        reject(CacheErrorCode::size_overflow, CacheStage::configuration,
               fmt::format("{} layers of {} doubles", config.layers, per_layer));
    return at_stage(GenerationStage::configuration, std::move(overflow));
  }
  return bytes;
}
// endregion: model-cache-bytes

namespace {

// region: generation-input-checks
// Ids: a [B,T] grid (T ≥ 1) with every id in [0, V).
[[nodiscard]] std::expected<void, GenerationError> check_ids(
    const autograd::TokenGrid& ids, const models::DecoderConfig& config) {
  constexpr auto stage = GenerationStage::input;
  if (ids.batch == 0 || ids.ids.size() != ids.batch * ids.time) {
    return reject(
        GenerationErrorCode::token_shape, stage,
        fmt::format("B {}, T {}, {} ids", ids.batch, ids.time, ids.ids.size()));
  }
  if (ids.time == 0) return reject(GenerationErrorCode::empty_prompt, stage);
  for (std::size_t p = 0; p < ids.ids.size(); ++p) {
    if (ids.ids[p] < 0 || static_cast<std::size_t>(ids.ids[p]) >= config.vocab_size) {
      return reject(GenerationErrorCode::token_out_of_range, stage,
                    fmt::format("id {} at (b {}, t {}), V {}", ids.ids[p], p / ids.time,
                                p % ids.time, config.vocab_size));
    }
  }
  return {};
}

// The cache belongs to this model and batch, and has room for T_new more positions.
[[nodiscard]] std::expected<void, GenerationError> check_cache(
    const ModelCache& cache, const models::DecoderConfig& config,
    const autograd::TokenGrid& ids) {
  constexpr auto stage = GenerationStage::input;
  if (!(cache.config() == config) || cache.batch() != ids.batch) {
    return reject(GenerationErrorCode::cache_mismatch, stage,
                  fmt::format("cache B {}, ids B {}", cache.batch(), ids.batch));
  }
  if (ids.time > cache.capacity() - cache.length()) {
    return reject(GenerationErrorCode::capacity_exceeded, stage,
                  fmt::format("{} filled + {} new > T_max {}", cache.length(), ids.time,
                              cache.capacity()));
  }
  return {};
}
// endregion: generation-input-checks

// Rows E[id] of the table for every id: [B,T] -> [B,T,d].
[[nodiscard]] std::expected<tensor::Tensor, GenerationError> embed(
    const models::DecoderModel& model, const autograd::TokenGrid& ids) {
  const tensor::Tensor* table = LLMFS_TRY_AT(
      GenerationStage::embedding, model.embedding().table().value.value_view());
  const std::size_t d = model.config().model_width;
  tensor::Tensor x = tensor::Tensor::zeros(tensor::Shape{ids.batch, ids.time, d});
  for (std::size_t p = 0; p < ids.ids.size(); ++p) {
    const std::size_t row = static_cast<std::size_t>(ids.ids[p]);
    for (std::size_t j = 0; j < d; ++j)
      x.mutable_values()[p * d + j] = table->values()[row * d + j];
  }
  return x;
}

// RMSNorm on values: Chapter 25's rows, times the gain.
[[nodiscard]] std::expected<tensor::Tensor, GenerationError> norm(
    const nn::RMSNorm& layer, const tensor::Tensor& x, GenerationStage stage) {
  auto rows = LLMFS_TRY_AT(stage, nn::rms_rows(x, layer.epsilon()));
  const tensor::Tensor* gain = LLMFS_TRY_AT(stage, layer.gain().value.value_view());
  return LLMFS_TRY_AT(stage, tensor::multiply(rows.normalized, *gain));
}

// x·W for a layer's weight, read without recording.
[[nodiscard]] std::expected<tensor::Tensor, GenerationError> apply(
    const nn::Linear& layer, const tensor::Tensor& x) {
  constexpr auto stage = GenerationStage::block;
  const tensor::Tensor* w = LLMFS_TRY_AT(stage, layer.weight().value.value_view());
  return LLMFS_TRY_AT(stage, tensor::matmul(x, *w));
}

// SwiGLU on values: (silu(f·W₁) ⊙ f·W₃)·W₂ (Chapter 20).
[[nodiscard]] std::expected<tensor::Tensor, GenerationError> feed_forward(
    const nn::SwiGluFeedForward& layer, const tensor::Tensor& f) {
  auto gate = autograd::silu(LLMFS_TRY(apply(layer.gate(), f)));
  auto up = LLMFS_TRY(apply(layer.up(), f));
  auto hidden = LLMFS_TRY_AT(GenerationStage::block, tensor::multiply(gate, up));
  return apply(layer.down(), hidden);
}

// region: cached-block
// Chapter 31's block on the new positions only; its attention reads and grows `cache`.
[[nodiscard]] std::expected<tensor::Tensor, GenerationError> block_step(
    const models::DecoderBlock& block, const tensor::Tensor& x, KvCache& cache) {
  constexpr auto stage = GenerationStage::block;
  // x: [B,T_new,d] -> [B,T_new,d]
  auto a = LLMFS_TRY(norm(block.attention_norm(), x, stage));
  auto attended = LLMFS_TRY_AT(stage, attention_step(block.attention(), a, cache));
  auto h = LLMFS_TRY_AT(stage, tensor::add(x, attended.output));
  auto f = LLMFS_TRY(norm(block.ffn_norm(), h, stage));
  auto fed = LLMFS_TRY(feed_forward(block.feed_forward(), f));
  return LLMFS_TRY_AT(stage, tensor::add(h, fed));
}
// endregion: cached-block

}  // namespace

// region: forward-cached
std::expected<tensor::Tensor, GenerationError> forward_cached(
    const models::DecoderModel& model, const autograd::TokenGrid& ids,
    ModelCache& cache) {
  // ids: [B,T_new] at positions length.. -> logits [B,T_new,V]
  LLMFS_TRY(check_ids(ids, model.config()));
  LLMFS_TRY(check_cache(cache, model.config(), ids));
  auto x = LLMFS_TRY(embed(model, ids));
  // Block i reads x_i at the new positions and appends their keys to cache i
  for (std::size_t i = 0; i < model.blocks().size(); ++i) {
    auto next = block_step(model.blocks()[i], x, cache.layers()[i]);
    if (!next) {
      next.error().detail = fmt::format("blocks.{}", i);
      return std::unexpected(std::move(next).error());
    }
    x = std::move(*next);
  }
  auto normalized = LLMFS_TRY(norm(model.final_norm(), x, GenerationStage::final_norm));
  // Tied output: z = n·Eᵀ
  const tensor::Tensor* table = LLMFS_TRY_AT(
      GenerationStage::logits, model.embedding().table().value.value_view());
  auto table_t = LLMFS_TRY_AT(GenerationStage::logits, tensor::transpose(*table, 0, 1));
  return LLMFS_TRY_AT(GenerationStage::logits, tensor::matmul(normalized, table_t));
}
// endregion: forward-cached

// region: greedy
NextTokenChooser greedy_chooser() {
  return [](std::span<const double> logits,
            std::size_t) -> std::expected<text::TokenId, std::string> {
    // The first maximum wins, so ties go to the lower id
    std::size_t best = 0;
    for (std::size_t v = 1; v < logits.size(); ++v) {
      if (logits[v] > logits[best]) best = v;
    }
    return static_cast<text::TokenId>(best);
  };
}
// endregion: greedy

// region: sampling-chooser
NextTokenChooser sampling_chooser(const SamplingConfig& config, std::uint64_t seed) {
  // Row b's generator: the b-th draw of the seeder, made when row b is first seen
  struct Generators {
    SplitMix64 seeder;
    std::vector<SplitMix64> rows;
  };
  auto state = std::make_shared<Generators>(Generators{SplitMix64(seed), {}});
  return [config, state](std::span<const double> logits,
                         std::size_t row) -> std::expected<text::TokenId, std::string> {
    while (state->rows.size() <= row)
      state->rows.emplace_back(state->seeder.next_u64());
    auto token = sample_token(logits, config, state->rows[row]);
    if (!token) return std::unexpected(fmt::format("{}", token.error()));
    return *token;
  };
}
// endregion: sampling-chooser

namespace {

// region: generation-length-check
// The whole result, prompt and new tokens, must fit the context: refused before any
// work.
[[nodiscard]] std::expected<void, GenerationError> check_length(
    const autograd::TokenGrid& prompt, std::size_t max_new_tokens,
    const models::DecoderConfig& config) {
  constexpr auto stage = GenerationStage::input;
  const std::size_t context = config.context_length;
  if (prompt.time > context) {
    return reject(GenerationErrorCode::context_overflow, stage,
                  fmt::format("L {} > T_max {}", prompt.time, context));
  }
  if (max_new_tokens > context - prompt.time) {
    return reject(
        GenerationErrorCode::too_long, stage,
        fmt::format("L {} + {} new > T_max {}", prompt.time, max_new_tokens, context));
  }
  return {};
}
// endregion: generation-length-check

// The last position's logits [B,T,V] -> [B,V].
[[nodiscard]] tensor::Tensor last_position(const tensor::Tensor& logits) {
  const tensor::Shape& s = logits.shape();
  tensor::Tensor out = tensor::Tensor::zeros(tensor::Shape{s[0], s[2]});
  for (std::size_t b = 0; b < s[0]; ++b) {
    for (std::size_t v = 0; v < s[2]; ++v) {
      out.mutable_values()[b * s[2] + v] =
          logits.values()[(b * s[1] + s[1] - 1) * s[2] + v];
    }
  }
  return out;
}

// One id per row from logits [B,V], each checked against [0, V).
[[nodiscard]] std::expected<std::vector<text::TokenId>, GenerationError> choose_all(
    const tensor::Tensor& logits, const NextTokenChooser& choose) {
  constexpr auto stage = GenerationStage::choose;
  const std::size_t vocab = logits.shape()[1];
  std::vector<text::TokenId> chosen;
  for (std::size_t b = 0; b < logits.shape()[0]; ++b) {
    auto id = choose(logits.values().subspan(b * vocab, vocab), b);
    if (!id) return reject(GenerationErrorCode::chooser_failed, stage, id.error());
    if (*id < 0 || static_cast<std::size_t>(*id) >= vocab) {
      return reject(GenerationErrorCode::chosen_out_of_range, stage,
                    fmt::format("row {}: id {}, V {}", b, *id, vocab));
    }
    chosen.push_back(*id);
  }
  return chosen;
}

// The grid with one more id per row.
[[nodiscard]] autograd::TokenGrid extended(const autograd::TokenGrid& grid,
                                           const std::vector<text::TokenId>& next) {
  autograd::TokenGrid out{grid.batch, grid.time + 1, {}};
  for (std::size_t b = 0; b < grid.batch; ++b) {
    const auto row = grid.ids.begin() + static_cast<std::ptrdiff_t>(b * grid.time);
    out.ids.insert(out.ids.end(), row, row + static_cast<std::ptrdiff_t>(grid.time));
    out.ids.push_back(next[b]);
  }
  return out;
}

}  // namespace

// region: generate
std::expected<Generation, GenerationError> generate(const models::DecoderModel& model,
                                                    const autograd::TokenGrid& prompt,
                                                    std::size_t max_new_tokens,
                                                    const NextTokenChooser& choose,
                                                    CacheMode mode) {
  LLMFS_TRY(check_ids(prompt, model.config()));
  LLMFS_TRY(check_length(prompt, max_new_tokens, model.config()));
  auto cache = LLMFS_TRY(ModelCache::create(model.config(), prompt.batch));
  Generation out{.tokens = prompt,
                 .prompt_length = prompt.time,
                 .step_logits = {},
                 .cache_lengths = {},
                 .positions_computed = 0};
  // The prefill: every prompt token at once
  autograd::TokenGrid fresh = prompt;
  for (std::size_t step = 0; step < max_new_tokens; ++step) {
    // Logits of the last position choose each row's next token
    const autograd::TokenGrid& fed = mode == CacheMode::cached ? fresh : out.tokens;
    if (mode == CacheMode::uncached) cache.clear();
    auto logits = last_position(LLMFS_TRY(forward_cached(model, fed, cache)));
    out.positions_computed += fed.ids.size();
    if (mode == CacheMode::cached) out.cache_lengths.push_back(cache.length());
    auto next = LLMFS_TRY(choose_all(logits, choose));
    out.tokens = extended(out.tokens, next);
    out.step_logits.push_back(std::move(logits));
    // The decode steps: one new token per row
    fresh = autograd::TokenGrid{prompt.batch, 1, std::move(next)};
  }
  return out;
}
// endregion: generate

}  // namespace llmfs::generation
