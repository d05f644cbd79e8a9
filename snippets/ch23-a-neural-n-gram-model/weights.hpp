// Chapter 23
#pragma once
/// \file
/// \brief The long run's trained model as a file, so that a later chapter can score it
/// once on the sealed test partition (Chapter 39's final table). One header line, then
/// every value as a little-endian IEEE-754 double, parameter by parameter in the order
/// of NgramMlp::names(), each row-major:
///
///     llmfs-ngram-weights version=1 V=4096 n=3 d=32 h=128\n
///     <8·(V·d + n·d·h + h + h·V + V) bytes>
///
/// The bits are the model's: a model read back scores exactly as the one written.

#include <expected>
#include <filesystem>
#include <string_view>
#include <variant>

#include <llmfs/core/error.hpp>
#include <llmfs/core/file_error.hpp>
#include <llmfs/models/ngram_mlp.hpp>

namespace ch23 {

/// What reading or writing a weights file refused.
enum class WeightsErrorCode {
  bad_header,    ///< the first line is not `llmfs-ngram-weights version=1 V= n= d= h=`
  wrong_size,    ///< the file's length is not the header's sizes' values (detail: both)
  stage_failed,  ///< the file or the model failed (see the cause)
};
/// The fixed description of a code, e.g. `"file length does not match its header"`.
[[nodiscard]] std::string_view describe(WeightsErrorCode code) noexcept;
/// One typed error: code, stage (`save weights`, `load weights`), detail naming the
/// file and the offset or sizes, and the file's or the model's error when one failed.
using WeightsError =
    llmfs::StageError<WeightsErrorCode, WeightsErrorCode::stage_failed,
                      std::variant<llmfs::FileError, llmfs::models::NgramError>>;

/// Writes `model` to `path` atomically (Chapter 2's write_file_atomically: the old file
/// or the new one, never part of either). \return stage_failed wrapping the FileError.
[[nodiscard]] std::expected<void, WeightsError> save_weights(
    const std::filesystem::path& path, const llmfs::models::NgramMlp& model);

/// The model save_weights() wrote to `path`. \return bad_header, wrong_size, or
/// stage_failed wrapping the FileError of the read or the NgramError of from_values().
[[nodiscard]] std::expected<llmfs::models::NgramMlp, WeightsError> load_weights(
    const std::filesystem::path& path);

}  // namespace ch23
