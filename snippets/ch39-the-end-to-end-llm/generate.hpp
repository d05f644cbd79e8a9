// Chapter 39
#pragma once
// The trained model as a file, and text from it: the selected parameters with the
// tokenizer's merges and the configuration in one safetensors file (Chapter 35's
// format, without the optimizer's state), read back only when its tokenizer is the
// course tokenizer; then a prompt encoded, continued token by token (Chapter 36's
// sampling), and decoded.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <llmfs/autograd/error.hpp>
#include <llmfs/core/error.hpp>
#include <llmfs/generation/sampling.hpp>
#include <llmfs/models/decoder.hpp>
#include <llmfs/text/tokenizer.hpp>
#include <llmfs/training/safetensors.hpp>

namespace ch39 {

// region: generate-errors
/// What generation refuses.
enum class GenerateErrorCode {
  not_utf8,         ///< the prompt is not valid UTF-8 (its bytes would not decode back)
  other_tokenizer,  ///< the model file was trained with other merges than ours
  bad_model_file,   ///< a configuration entry or a parameter is missing or misshapen
  zero_length,      ///< asked for 0 new tokens
  stage_failed,     ///< the file, the model or the sampler failed (see the cause)
};
/// The fixed description of a code.
[[nodiscard]] std::string_view describe(GenerateErrorCode code) noexcept;
/// One typed generation error: code, stage (`prompt`, `model file`, `generate`),
/// detail, and the lower error when one failed.
using GenerateError = llmfs::StageError<
    GenerateErrorCode, GenerateErrorCode::stage_failed,
    std::variant<llmfs::training::CheckpointError, llmfs::models::DecoderError,
                 llmfs::autograd::AutogradError, llmfs::tensor::TensorError,
                 llmfs::generation::SamplingError>>;
// endregion: generate-errors

/// A model read from a file: its configuration and values, in the model's order.
struct TrainedModel {
  llmfs::models::DecoderConfig config;        ///< sizes and constants
  std::vector<llmfs::tensor::Tensor> values;  ///< decoder_parameter_specs() order
  std::uint64_t step = 0;                     ///< the selected step
};

/// The file: `model.NAME` per parameter; metadata `tokenizer.merges`, `config.*`,
/// `selected.step`. \return the checkpoint error of the write (stage `model file`).
[[nodiscard]] std::expected<void, GenerateError> save_model(
    const std::filesystem::path& path, const TrainedModel& model,
    const llmfs::text::Tokenizer& tokenizer);

// region: load-model-api
/// Reads a model file written by save_model(), refusing it when its merges are not
/// `tokenizer`'s. \return other_tokenizer, bad_model_file naming the entry, or
/// stage_failed wrapping the file's error.
[[nodiscard]] std::expected<TrainedModel, GenerateError> load_model(
    const std::filesystem::path& path, const llmfs::text::Tokenizer& tokenizer);
// endregion: load-model-api

// region: generate-api
/// `BOS` + the prompt's tokens, continued by `count` tokens chosen by `settings` from
/// the last row of the logits, or until EOS. An empty prompt starts a document from
/// BOS alone. Past T_max tokens the model sees the last T_max (a sliding window).
/// \return not_utf8 (stage `prompt`), zero_length, or stage_failed wrapping the
///         model's or the sampler's error (stage `generate`).
[[nodiscard]] std::expected<std::vector<llmfs::text::TokenId>, GenerateError> generate(
    const TrainedModel& model, const llmfs::text::Tokenizer& tokenizer,
    std::string_view prompt, std::size_t count,
    const llmfs::generation::SamplingConfig& settings, std::uint64_t seed);
// endregion: generate-api

/// The new tokens' text (BOS and EOS spell nothing; bytes that are not whole UTF-8
/// characters come out as they are).
[[nodiscard]] std::string continuation_text(const llmfs::text::Tokenizer& tokenizer,
                                            std::span<const llmfs::text::TokenId> ids);

}  // namespace ch39
