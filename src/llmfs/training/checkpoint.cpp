// Chapter 35
#include <charconv>
#include <optional>
#include <set>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <llmfs/core/try.hpp>
#include <llmfs/text/merges_file.hpp>
#include <llmfs/training/checkpoint.hpp>

namespace llmfs::training {

std::string exact_decimal(double value) {
  return fmt::format("{}", value);
}

std::optional<double> parse_exact_decimal(std::string_view text) {
  double value = 0.0;
  const auto [end, error] =
      std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

namespace {

using Unexpected = std::unexpected<CheckpointError>;

[[nodiscard]] Unexpected bind_error(CheckpointErrorCode code, std::string_view label,
                                    std::string detail) {
  return Unexpected(
      CheckpointError{code, std::string(label), 0, "bind", std::move(detail)});
}

[[nodiscard]] std::vector<std::uint64_t> dims_of(const tensor::Shape& shape) {
  return {shape.begin(), shape.end()};
}

[[nodiscard]] NamedTensor named(std::string name, const tensor::Tensor& value) {
  return {std::move(name), dims_of(value.shape()),
          std::vector<double>(value.values().begin(), value.values().end())};
}

[[nodiscard]] std::optional<std::uint64_t> parse_u64(std::string_view text) {
  std::uint64_t value = 0;
  const auto [end, error] =
      std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size())
    return std::nullopt;
  return value;
}

}  // namespace

// region: to-tensor-file
std::expected<TensorFile, CheckpointError> to_tensor_file(const TrainingState& state) {
  const std::size_t n = state.parameters.size();
  const AdamWState& adamw = state.optimizer;
  if (adamw.first_moment.size() != n || adamw.second_moment.size() != n)
    return Unexpected(CheckpointError{CheckpointErrorCode::bad_entry, "<memory>", 0,
                                      "encode", "moments are not one per parameter"});
  TensorFile file;
  for (const ParameterValue& p : state.parameters)
    file.tensors.push_back(named("model." + p.name, p.value));
  for (std::size_t i = 0; i < n; ++i) {
    const std::string& name = state.parameters[i].name;
    file.tensors.push_back(named("adamw.m." + name, adamw.first_moment[i]));
    file.tensors.push_back(named("adamw.v." + name, adamw.second_moment[i]));
  }
  file.metadata["step"] = fmt::format("{}", state.step);
  file.metadata["adamw.t"] = fmt::format("{}", adamw.step);
  file.metadata["rng.state"] = fmt::format("{}", state.rng.state());
  file.metadata["tokenizer.merges"] = text::format_merges(state.tokenizer);
  file.metadata["data.partition_sha256"] = state.partition_sha256;
  for (const auto& [key, value] : state.config)
    file.metadata["config." + key] = value;
  return file;
}
// endregion: to-tensor-file

namespace {

// The tensors of `file` by name, each to be claimed once by the layout.
class TensorIndex {
 public:
  explicit TensorIndex(const TensorFile& file) {
    for (const NamedTensor& t : file.tensors)
      by_name_.emplace(t.name, &t);
  }

  // region: take-tensor
  // The tensor `name` with `shape`, removed from the index, or the error naming it.
  [[nodiscard]] std::expected<tensor::Tensor, CheckpointError> take(
      const std::string& name, const tensor::Shape& shape, std::string_view label) {
    const auto found = by_name_.find(name);
    if (found == by_name_.end())
      return bind_error(CheckpointErrorCode::missing_entry, label,
                        fmt::format("tensor {}", name));
    const NamedTensor& t = *found->second;
    if (t.shape != dims_of(shape))
      return bind_error(CheckpointErrorCode::shape_mismatch, label,
                        fmt::format("{} is [{}], the model has {}", name,
                                    fmt::join(t.shape, ","), shape));
    by_name_.erase(found);
    auto value = tensor::Tensor::from(shape, t.values);
    if (!value)
      return bind_error(CheckpointErrorCode::shape_mismatch, label,
                        fmt::format("{}: {}", name, value.error()));
    return std::move(*value);
  }
  // endregion: take-tensor

  // The first tensor no layout entry claimed, if any.
  [[nodiscard]] std::optional<std::string> leftover() const {
    if (by_name_.empty()) return std::nullopt;
    return by_name_.begin()->first;
  }

 private:
  std::map<std::string, const NamedTensor*> by_name_;
};

// The metadata entry `key`, or the error naming it.
[[nodiscard]] std::expected<std::string, CheckpointError> entry(
    const TensorFile& file, const std::string& key, std::string_view label) {
  const auto found = file.metadata.find(key);
  if (found == file.metadata.end())
    return bind_error(CheckpointErrorCode::missing_entry, label,
                      fmt::format("metadata {}", key));
  return found->second;
}

[[nodiscard]] std::expected<std::uint64_t, CheckpointError> number_entry(
    const TensorFile& file, const std::string& key, std::string_view label) {
  const auto text = entry(file, key, label);
  if (!text) return std::unexpected(text.error());
  const auto value = parse_u64(*text);
  if (!value)
    return bind_error(CheckpointErrorCode::bad_value, label,
                      fmt::format("{} = '{}' is not a 64-bit unsigned integer", key,
                                  text->substr(0, 40)));
  return *value;
}

}  // namespace

// region: from-tensor-file
std::expected<TrainingState, CheckpointError> from_tensor_file(
    const TensorFile& file, std::span<const ParameterSlot> layout,
    std::string_view label) {
  // Every tensor the layout names, with its shape; nothing else
  TrainingState state;
  TensorIndex index(file);
  for (const ParameterSlot& slot : layout) {
    auto value = LLMFS_TRY(index.take("model." + slot.name, slot.shape, label));
    auto m = LLMFS_TRY(index.take("adamw.m." + slot.name, slot.shape, label));
    auto v = LLMFS_TRY(index.take("adamw.v." + slot.name, slot.shape, label));
    state.parameters.push_back({slot.name, std::move(value)});
    state.optimizer.first_moment.push_back(std::move(m));
    state.optimizer.second_moment.push_back(std::move(v));
  }
  if (const auto extra = index.leftover())
    return bind_error(CheckpointErrorCode::unexpected_entry, label,
                      fmt::format("tensor {} is not in the model", *extra));
  // The counters, the generator, the tokenizer, the data's hash, the configuration
  state.step = LLMFS_TRY(number_entry(file, "step", label));
  state.optimizer.step = LLMFS_TRY(number_entry(file, "adamw.t", label));
  state.rng = SplitMix64(LLMFS_TRY(number_entry(file, "rng.state", label)));
  const auto merges = text::parse_merges(
      LLMFS_TRY(entry(file, "tokenizer.merges", label)), "tokenizer.merges");
  if (!merges)
    return bind_error(CheckpointErrorCode::bad_value, label,
                      fmt::format("{}", merges.error()));
  state.tokenizer = *merges;
  state.partition_sha256 = LLMFS_TRY(entry(file, "data.partition_sha256", label));
  for (const auto& [key, value] : file.metadata)
    if (key.starts_with("config.")) state.config[key.substr(7)] = value;
  return state;
}
// endregion: from-tensor-file

std::expected<void, CheckpointError> save_checkpoint(const std::filesystem::path& path,
                                                     const TrainingState& state) {
  auto file = to_tensor_file(state);
  if (!file) {
    file.error().file = path.string();
    return std::unexpected(file.error());
  }
  return save_tensor_file(path, *file);
}

std::expected<TrainingState, CheckpointError> load_checkpoint(
    const std::filesystem::path& path, std::span<const ParameterSlot> layout) {
  const TensorFile file = LLMFS_TRY(load_tensor_file(path));
  return from_tensor_file(file, layout, path.string());
}

}  // namespace llmfs::training
