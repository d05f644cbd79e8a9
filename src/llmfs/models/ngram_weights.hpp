// Chapter 23
#pragma once
/// \file
/// \brief A trained n-gram model as a file (Chapter 23's long run writes one, Chapter
/// 39's sealed test scores it). One header line, ended by a newline, then every value
/// as a little-endian IEEE-754 double, parameter by parameter in the order of
/// NgramMlp::names(), each row-major: 8·(V·d + n·d·h + h + h·V + V) bytes. The header
/// of chapter 23's model is `llmfs-ngram-weights version=1 V=4096 n=3 d=32 h=128`.
///
/// The bits are the model's: a model read back scores exactly as the one written.

#include <expected>
#include <filesystem>
#include <string_view>
#include <variant>

#include <llmfs/core/error.hpp>
#include <llmfs/core/file_error.hpp>
#include <llmfs/models/ngram_mlp.hpp>

namespace llmfs::models {

/// What reading or writing a weights file refused.
enum class NgramWeightsErrorCode {
  bad_header,    ///< the first line is not `llmfs-ngram-weights version=1 V= n= d= h=`
  wrong_size,    ///< the file's length is not the header's sizes' values (detail: both)
  stage_failed,  ///< the file or the model failed (see the cause)
};
/// The fixed description of a code, e.g. `"file length does not match its header"`.
[[nodiscard]] std::string_view describe(NgramWeightsErrorCode code) noexcept;
/// One typed error: code, stage (`save weights`, `load weights`), detail naming the
/// file and the offset or sizes, and the file's or the model's error when one failed.
using NgramWeightsError =
    StageError<NgramWeightsErrorCode, NgramWeightsErrorCode::stage_failed,
               std::variant<FileError, NgramError>>;

/// Writes `model` to `path` atomically (Chapter 2's write_file_atomically: the old file
/// or the new one, never part of either). \return stage_failed wrapping the FileError.
[[nodiscard]] std::expected<void, NgramWeightsError> save_ngram_weights(
    const std::filesystem::path& path, const NgramMlp& model);

/// The model save_ngram_weights() wrote to `path`. \return bad_header, wrong_size, or
/// stage_failed wrapping the FileError of the read or the NgramError of from_values().
[[nodiscard]] std::expected<NgramMlp, NgramWeightsError> load_ngram_weights(
    const std::filesystem::path& path);

}  // namespace llmfs::models
