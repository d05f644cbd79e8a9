// Chapter 35
#pragma once
/// \file
/// \brief A safetensors file of named float64 tensors and string metadata, versioned
/// and checksummed, written atomically (Chapter 35). The layout is Hugging Face's
/// safetensors format (github.com/huggingface/safetensors, 2022): an 8-byte
/// little-endian header length N, N bytes of JSON (each tensor's `dtype`, `shape` and
/// `data_offsets`, and a `__metadata__` object of string → string), then the tensors'
/// raw little-endian bytes, back to back. This library adds three metadata entries:
/// `llmfs.format` = `llmfs-checkpoint`, `llmfs.format_version` = `1`, and
/// `llmfs.sha256`, the SHA-256 (FIPS 180-4) of the whole file with those 64 hex digits
/// replaced by `0`.

#include <cstddef>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

namespace llmfs::training {

// region: tensor-file-types
/// One named tensor: its shape and its row-major values (dtype `F64`).
struct NamedTensor {
  std::string name;                  ///< e.g. `model.embedding.weight`
  std::vector<std::uint64_t> shape;  ///< dimensions; `[]` is a scalar (one value)
  std::vector<double> values;        ///< product(shape) values, row-major

  /// Equal when names, shapes and every value's bits are equal (NaN payloads too).
  friend bool operator==(const NamedTensor& a, const NamedTensor& b) noexcept;
};

/// What a file holds: tensors in file order, and the metadata map (without the three
/// entries of the `llmfs` namespace that the writer adds).
struct TensorFile {
  std::vector<NamedTensor> tensors;             ///< in the order of their bytes
  std::map<std::string, std::string> metadata;  ///< `__metadata__`, string → string

  /// Equal when tensors (bit for bit) and metadata are equal.
  friend bool operator==(const TensorFile&, const TensorFile&) = default;
};
// endregion: tensor-file-types

/// The version this library writes and the only one it reads.
inline constexpr std::string_view kFormatVersion = "1";
/// The largest header accepted: 100,000,000 bytes, the limit of the reference
/// implementation (safetensors' `MAX_HEADER_SIZE`).
inline constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;

// region: checkpoint-errors
/// What is wrong with a checkpoint file, or with what a caller asked to save.
enum class CheckpointErrorCode {
  cannot_read,       ///< the file cannot be read (see the detail)
  cannot_write,      ///< the file cannot be written (the old file is kept)
  truncated,         ///< fewer bytes than the header length or the offsets promise
  header_too_large,  ///< the header length exceeds kMaxHeaderBytes or the file
  bad_json,          ///< the header is not one JSON object, or has a duplicate key
  bad_entry,         ///< a tensor entry lacks dtype, shape or data_offsets, or is wrong
  bad_name,          ///< a tensor name or metadata key is empty or has other characters
  unsupported_dtype,  ///< a dtype other than `F64`
  bad_offsets,        ///< offsets overlap, leave a hole, or disagree with the shape
  not_a_checkpoint,   ///< no `llmfs.format` = `llmfs-checkpoint` in the metadata
  wrong_version,      ///< `llmfs.format_version` is not kFormatVersion
  checksum_mismatch,  ///< the SHA-256 of the bytes is not the one stored
  missing_entry,      ///< a tensor or metadata entry the model needs is absent
  shape_mismatch,     ///< a tensor's shape is not the model's
  bad_value,          ///< a metadata value does not parse (e.g. the step)
  unexpected_entry,   ///< a tensor the model does not have
};

/// The fixed description of a code, e.g. `"checksum mismatch"`.
[[nodiscard]] std::string_view describe(CheckpointErrorCode code) noexcept;

/// A checkpoint error: what, in which file, at which byte, at which stage (`header
/// length`, `header json`, `tensor entry`, `data offsets`, `version`, `checksum`,
/// `bind`, `write`, ...), and the numbers. Formats as `checkpoint FILE at byte OFFSET,
/// STAGE: DESCRIPTION (DETAIL)`.
struct CheckpointError {
  CheckpointErrorCode code{};  ///< what went wrong
  std::string file;            ///< the path, or the caller's label for bytes in memory
  std::uint64_t offset = 0;    ///< byte offset in the file where the problem was found
  std::string stage;           ///< the step of loading or saving that failed
  std::string detail;          ///< names and numbers; may be empty

  /// Equal when every field is equal (useful in tests).
  friend bool operator==(const CheckpointError&, const CheckpointError&) = default;
};
// endregion: checkpoint-errors

/// The bytes of a safetensors file holding `file`: validated first (names of
/// `[A-Za-z0-9._/-]`, unique; values count = product(shape); metadata keys
/// outside the `llmfs` namespace), then the header with the three `llmfs` entries,
/// padded with spaces to a multiple of 8 so the data is 8-byte aligned, then the data.
/// \return bad_name, bad_entry (stage `encode`), naming the tensor or key.
[[nodiscard]] std::expected<std::string, CheckpointError> encode_tensor_file(
    const TensorFile& file, std::string_view label = "<memory>");

/// The TensorFile in `bytes`, checked completely before anything is returned: header
/// length, JSON, every entry, offsets (no overlap, no hole, every byte indexed), format
/// and version, then the checksum. `label` names the file in errors.
/// \return every code from truncated to checksum_mismatch, with the byte offset.
[[nodiscard]] std::expected<TensorFile, CheckpointError> decode_tensor_file(
    std::string_view bytes, std::string_view label = "<memory>");

/// Encodes `file` and replaces `path` atomically (core/atomic_file.hpp): after a
/// crash the previous file or the new one is there, never a mixture.
/// \return the errors of encode_tensor_file(), or cannot_write (stage `write`).
[[nodiscard]] std::expected<void, CheckpointError> save_tensor_file(
    const std::filesystem::path& path, const TensorFile& file);

/// Reads and decodes the file at `path`.
/// \return cannot_read (stage `read`) or the errors of decode_tensor_file().
[[nodiscard]] std::expected<TensorFile, CheckpointError> load_tensor_file(
    const std::filesystem::path& path);

/// Writes the `llmfs.sha256` digest into encoded bytes: the SHA-256 of the bytes with
/// the digest's 64 characters set to `0`. encode_tensor_file() calls it last; a test or
/// a fuzzer calls it after changing bytes, so that a changed file still reaches the
/// stages after the checksum. \return false, changing nothing, when the header does
/// not hold `"llmfs.sha256":"` followed by 64 characters exactly once.
[[nodiscard]] bool seal_checksum(std::string& bytes);

/// The lowercase hex SHA-256 of `bytes` (OpenSSL).
[[nodiscard]] std::string sha256_hex_of(std::string_view bytes);

}  // namespace llmfs::training

/// Formats a CheckpointError as `checkpoint FILE at byte OFFSET, STAGE: DESCRIPTION
/// (DETAIL)`.
template <>
struct fmt::formatter<llmfs::training::CheckpointError>
    : fmt::formatter<fmt::string_view> {
  /// Writes the error into the context's output.
  auto format(const llmfs::training::CheckpointError& error,
              fmt::format_context& ctx) const -> decltype(ctx.out()) {
    auto out = fmt::format_to(ctx.out(), "checkpoint {} at byte {}, {}: {}", error.file,
                              error.offset, error.stage, describe(error.code));
    if (!error.detail.empty()) out = fmt::format_to(out, " ({})", error.detail);
    return out;
  }
};
