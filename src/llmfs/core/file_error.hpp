// Chapter 2
#pragma once
/// \file
/// \brief The typed error of reading or writing a whole file (read_file.hpp,
/// atomic_file.hpp): what went wrong, the file, and the system's reason. A module that
/// reads or writes a file puts the formatted FileError into its own error's detail, so
/// its message says why, e.g. `merges file tools: cannot read merges file (is a folder,
/// not a file)` (Chapter 2, where the corpus and the manifest are first read and
/// written).

#include <expected>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include <fmt/format.h>

namespace llmfs {

/// What went wrong with a file.
enum class FileErrorCode {
  not_found,              ///< nothing at the path, or a parent of it is not a folder
  is_directory,           ///< a folder where a file is expected
  not_regular,            ///< a FIFO, socket or device where a regular file is expected
  cannot_open,            ///< the open failed for another reason (permission, ...)
  read_failed,            ///< a read(2) failed midway (an I/O error)
  changed_while_reading,  ///< the file was removed, replaced or resized while read
  cannot_create,          ///< the temporary file beside the target cannot be created
  write_failed,           ///< writing or closing the temporary file failed
  sync_failed,            ///< fsync of the temporary file or of its folder failed
  rename_failed,          ///< the temporary file cannot be renamed over the target
};

/// The fixed description of a code, e.g. `"is a folder, not a file"`.
[[nodiscard]] std::string_view describe(FileErrorCode code) noexcept;

/// A file error: the code, the path as the caller spelled it, and the reason the system
/// gave (strerror of errno; empty when the code says it all). Formats as
/// `path: description: reason`.
struct FileError {
  FileErrorCode code{};  ///< what went wrong
  std::string path;      ///< the file (or, for cannot_create, the target beside it)
  std::string reason;  ///< the system's reason, e.g. "Permission denied"; may be empty

  /// Equal when every field is equal (useful in tests).
  friend bool operator==(const FileError&, const FileError&) = default;
};

/// The error without its path, `description: reason` (or the description alone), for a
/// caller whose own stage already names the file.
[[nodiscard]] inline std::string reason_of(const FileError& error) {
  std::string text(describe(error.code));
  if (!error.reason.empty()) text += ": " + error.reason;
  return text;
}

/// `result`'s value, or its FileError converted by `convert` into the caller's module
/// error: std::expected::transform_error (C++23), which GCC 12's library lacks.
template <class T, class Convert>
[[nodiscard]] auto map_file_error(std::expected<T, FileError> result, Convert convert)
    -> std::expected<T, std::invoke_result_t<Convert, const FileError&>> {
  if (!result) return std::unexpected(convert(result.error()));
  if constexpr (std::is_void_v<T>) {
    return {};
  } else {
    return std::move(*result);
  }
}

}  // namespace llmfs

/// Formats a FileError as `path: description: reason` (`path: description` without
/// one).
template <>
struct fmt::formatter<llmfs::FileError> : fmt::formatter<fmt::string_view> {
  /// Writes the error into the context's output.
  auto format(const llmfs::FileError& error, fmt::format_context& ctx) const
      -> decltype(ctx.out()) {
    return fmt::format_to(ctx.out(), "{}: {}", error.path, llmfs::reason_of(error));
  }
};
