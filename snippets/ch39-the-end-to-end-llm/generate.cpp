// Chapter 39
#include "generate.hpp"

#include <algorithm>
#include <charconv>
#include <map>

#include <fmt/format.h>

#include <llmfs/core/splitmix64.hpp>
#include <llmfs/core/try.hpp>
#include <llmfs/text/merges_file.hpp>
#include <llmfs/text/utf8.hpp>
#include <llmfs/training/checkpoint.hpp>

namespace ch39 {

namespace training = llmfs::training;
using llmfs::text::TokenId;

std::string_view describe(GenerateErrorCode code) noexcept {
  switch (code) {
    case GenerateErrorCode::not_utf8: return "the prompt is not valid UTF-8";
    case GenerateErrorCode::other_tokenizer:
      return "the model was trained with another tokenizer";
    case GenerateErrorCode::bad_model_file: return "not a model file of this chapter";
    case GenerateErrorCode::zero_length: return "no tokens asked for";
    case GenerateErrorCode::stage_failed: return "a lower stage failed";
  }
  return "unknown generation error";
}

namespace {

// The configuration as metadata entries, and back.
std::map<std::string, std::string> config_entries(
    const llmfs::models::DecoderConfig& c) {
  return {{"config.V", fmt::format("{}", c.vocab_size)},
          {"config.d", fmt::format("{}", c.model_width)},
          {"config.h", fmt::format("{}", c.heads)},
          {"config.N", fmt::format("{}", c.layers)},
          {"config.d_ff", fmt::format("{}", c.hidden_width)},
          {"config.T_max", fmt::format("{}", c.context_length)},
          {"config.rope_base", training::exact_decimal(c.rope_base)},
          {"config.epsilon", training::exact_decimal(c.epsilon)}};
}

[[nodiscard]] std::expected<std::size_t, GenerateError> whole(
    const std::map<std::string, std::string>& meta, const std::string& key) {
  const auto it = meta.find(key);
  std::size_t value = 0;
  if (it != meta.end()) {
    const auto& text = it->second;
    const auto [end, ec] =
        std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc() && end == text.data() + text.size()) return value;
  }
  return llmfs::reject(GenerateErrorCode::bad_model_file, std::string("model file"),
                       fmt::format("{} missing or not a whole number", key));
}

[[nodiscard]] std::expected<double, GenerateError> real(
    const std::map<std::string, std::string>& meta, const std::string& key) {
  const auto it = meta.find(key);
  if (it != meta.end())
    if (const auto value = training::parse_exact_decimal(it->second)) return *value;
  return llmfs::reject(GenerateErrorCode::bad_model_file, std::string("model file"),
                       fmt::format("{} missing or not a number", key));
}

}  // namespace

std::expected<void, GenerateError> save_model(const std::filesystem::path& path,
                                              const TrainedModel& model,
                                              const llmfs::text::Tokenizer& tokenizer) {
  training::TensorFile file;
  file.metadata = config_entries(model.config);
  file.metadata["tokenizer.merges"] = llmfs::text::format_merges(tokenizer.merges());
  file.metadata["selected.step"] = fmt::format("{}", model.step);
  const auto specs = llmfs::models::decoder_parameter_specs(model.config);
  for (std::size_t i = 0; i < specs.size(); ++i) {
    const auto v = model.values[i].values();
    file.tensors.push_back(
        {"model." + specs[i].name,
         {specs[i].shape.dims().begin(), specs[i].shape.dims().end()},
         {v.begin(), v.end()}});
  }
  LLMFS_TRY_AT(std::string("model file"), training::save_tensor_file(path, file));
  return {};
}

// region: load-model
std::expected<TrainedModel, GenerateError> load_model(
    const std::filesystem::path& path, const llmfs::text::Tokenizer& tokenizer) {
  const std::string stage = "model file";
  const auto file = LLMFS_TRY_AT(stage, training::load_tensor_file(path));
  const auto& meta = file.metadata;
  // The ids mean nothing under other merges: refuse before reading any number
  const auto merges = meta.find("tokenizer.merges");
  if (merges == meta.end() ||
      merges->second != llmfs::text::format_merges(tokenizer.merges()))
    return llmfs::reject(GenerateErrorCode::other_tokenizer, stage,
                         path.filename().string());
  TrainedModel out;
  out.config = {LLMFS_TRY(whole(meta, "config.V")),
                LLMFS_TRY(whole(meta, "config.d")),
                LLMFS_TRY(whole(meta, "config.h")),
                LLMFS_TRY(whole(meta, "config.N")),
                LLMFS_TRY(whole(meta, "config.d_ff")),
                LLMFS_TRY(whole(meta, "config.T_max")),
                LLMFS_TRY(real(meta, "config.rope_base")),
                LLMFS_TRY(real(meta, "config.epsilon")),
                0};
  out.step = LLMFS_TRY(whole(meta, "selected.step"));
  LLMFS_TRY_AT(stage, llmfs::models::validate(out.config));
  for (const auto& spec : llmfs::models::decoder_parameter_specs(out.config)) {
    const auto it = std::ranges::find(file.tensors, "model." + spec.name,
                                      &training::NamedTensor::name);
    if (it == file.tensors.end() || !std::ranges::equal(it->shape, spec.shape.dims()))
      return llmfs::reject(
          GenerateErrorCode::bad_model_file, stage,
          fmt::format("model.{} missing or not {}", spec.name, spec.shape));
    out.values.push_back(
        LLMFS_TRY_AT(stage, llmfs::tensor::Tensor::from(spec.shape, it->values)));
  }
  return out;
}
// endregion: load-model

// region: generate
std::expected<std::vector<TokenId>, GenerateError> generate(
    const TrainedModel& trained, const llmfs::text::Tokenizer& tokenizer,
    std::string_view prompt, std::size_t count,
    const llmfs::generation::SamplingConfig& settings, std::uint64_t seed) {
  if (const auto utf8 = llmfs::text::decode_utf8(llmfs::text::bytes_of(prompt)); !utf8)
    return llmfs::reject(GenerateErrorCode::not_utf8, std::string("prompt"),
                         fmt::format("{}", utf8.error()));
  if (count == 0)
    return llmfs::reject(GenerateErrorCode::zero_length, std::string("generate"));
  const std::string stage = "generate";
  LLMFS_TRY_AT(stage, llmfs::generation::validate(settings));
  auto model = LLMFS_TRY_AT(
      stage, llmfs::models::DecoderModel::from_values(trained.config, trained.values));
  std::vector<TokenId> ids{tokenizer.bos()};
  const auto encoded = tokenizer.encode(prompt);
  ids.insert(ids.end(), encoded.begin(), encoded.end());
  const std::size_t prompt_end = ids.size(), T = trained.config.context_length;
  llmfs::SplitMix64 rng(seed);
  for (std::size_t n = 0; n < count && ids.back() != tokenizer.eos(); ++n) {
    // The last T_max tokens, one row; the logits of its last position choose
    const std::size_t from = ids.size() > T ? ids.size() - T : 0;
    const llmfs::autograd::TokenGrid window{
        1, ids.size() - from, {ids.begin() + from, ids.end()}};
    LLMFS_TRY_AT(stage, model.reset_tape());
    const auto logits = LLMFS_TRY_AT(stage, model.forward(window));
    const auto value = LLMFS_TRY_AT(stage, logits.value());
    const std::size_t V = trained.config.vocab_size;
    const auto last = value.values().subspan((window.time - 1) * V, V);
    ids.push_back(
        LLMFS_TRY_AT(stage, llmfs::generation::sample_token(last, settings, rng)));
  }
  return std::vector<TokenId>(ids.begin() + prompt_end, ids.end());
}
// endregion: generate

std::string continuation_text(const llmfs::text::Tokenizer& tokenizer,
                              std::span<const TokenId> ids) {
  std::string text;
  for (const TokenId id : ids)
    if (id != tokenizer.bos() && id != tokenizer.eos())
      text += tokenizer.token_bytes(id);
  return text;
}

}  // namespace ch39
