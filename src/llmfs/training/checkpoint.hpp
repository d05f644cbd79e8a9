// Chapter 35
#pragma once
/// \file
/// \brief A training checkpoint: the model's parameters, AdamW's state (Chapter 22),
/// the step, the batch generator's state (SplitMix64, Chapter 6), the tokenizer's
/// merges (Chapter 4), the configuration and the data partition's hash (Chapter 2), in
/// one safetensors file (training/safetensors.hpp). Loading checks the whole file
/// against the model's parameter layout before it returns anything, so a caller never
/// holds half a checkpoint (Chapter 35).

#include <cstdint>
#include <expected>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <llmfs/core/splitmix64.hpp>
#include <llmfs/tensor/tensor.hpp>
#include <llmfs/text/merges.hpp>
#include <llmfs/training/adamw.hpp>
#include <llmfs/training/safetensors.hpp>

namespace llmfs::training {

// region: training-state
/// One parameter's name and value, in the model's order.
struct ParameterValue {
  std::string name;      ///< e.g. `embedding.weight`
  tensor::Tensor value;  ///< its current value

  /// Equal when names are equal and values are equal bit for bit.
  friend bool operator==(const ParameterValue&, const ParameterValue&) = default;
};

/// Everything a run needs to continue exactly where it stopped.
struct TrainingState {
  std::vector<ParameterValue> parameters;     ///< the model, in its parameter order
  AdamWState optimizer;                       ///< t and the moments, same order
  std::uint64_t step = 0;                     ///< training steps completed
  SplitMix64 rng{0};                          ///< the generator that draws the batches
  text::MergeTable tokenizer;                 ///< the tokenizer's merges (Chapter 4)
  std::map<std::string, std::string> config;  ///< model and optimizer settings
  std::string partition_sha256;               ///< SHA-256 of the partition manifest

  /// Equal when every part is equal, values bit for bit.
  friend bool operator==(const TrainingState&, const TrainingState&) = default;
};
// endregion: training-state

/// The state as named tensors and metadata: `model.NAME`, `adamw.m.NAME`,
/// `adamw.v.NAME` for each parameter NAME; metadata `step`, `adamw.t`, `rng.state`
/// (decimal), `tokenizer.merges` (the merges file's text), `data.partition_sha256` and
/// `config.KEY` for each configuration entry.
/// \return bad_entry (stage `encode`) when the moments are not one per parameter with
///         its shape.
[[nodiscard]] std::expected<TensorFile, CheckpointError> to_tensor_file(
    const TrainingState& state);

/// The state in `file`, checked against `layout`, the model's parameters (names and
/// shapes in the model's order): every `model.NAME`, `adamw.m.NAME` and `adamw.v.NAME`
/// tensor present with its shape, no other tensor, every metadata entry present and
/// parsed (the merges through text::parse_merges()). `label` names the file in errors.
/// \return missing_entry, shape_mismatch, unexpected_entry or bad_value (stage `bind`).
[[nodiscard]] std::expected<TrainingState, CheckpointError> from_tensor_file(
    const TensorFile& file, std::span<const ParameterSlot> layout,
    std::string_view label = "<memory>");

/// Writes `state` to `path` atomically (save_tensor_file()).
/// \return the errors of to_tensor_file() and save_tensor_file().
[[nodiscard]] std::expected<void, CheckpointError> save_checkpoint(
    const std::filesystem::path& path, const TrainingState& state);

/// Reads the checkpoint at `path` for a model whose parameters are `layout`.
/// \return the errors of load_tensor_file() and from_tensor_file().
[[nodiscard]] std::expected<TrainingState, CheckpointError> load_checkpoint(
    const std::filesystem::path& path, std::span<const ParameterSlot> layout);

/// `value` as the shortest decimal that reads back to the same double (fmt's `{}`),
/// e.g. `0.1`, `-0`, `5e-324`; for configuration entries.
[[nodiscard]] std::string exact_decimal(double value);

/// The double that exact_decimal() wrote, or nothing when `text` is not one number.
[[nodiscard]] std::optional<double> parse_exact_decimal(std::string_view text);

}  // namespace llmfs::training
