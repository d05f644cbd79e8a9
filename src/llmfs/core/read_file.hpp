// Chapter 2
#pragma once
/// \file
/// \brief Reading a whole regular file with a typed error for everything that is not
/// one: a folder, a FIFO or device (never opened in a way that blocks), an open or read
/// failure, and a file removed, replaced or resized while it was read (Chapter 2).

#include <expected>
#include <filesystem>
#include <string>

#include <llmfs/core/file_error.hpp>

namespace llmfs {

/// The bytes of the regular file at `path`. Opens without blocking (a FIFO with no
/// writer does not hang), checks the type before reading, reads to the end, then checks
/// that the path still names the same file with the size that was read.
/// \return FileErrorCode::not_found, is_directory, not_regular, cannot_open,
///         read_failed or changed_while_reading, naming `path`.
[[nodiscard]] std::expected<std::string, FileError> read_file(
    const std::filesystem::path& path);

/// The second half of read_file(): reads `fd`, an open descriptor of `path` (the caller
/// keeps ownership), to its end and checks that `path` still names that file,
/// unchanged. Exposed so that a test can remove or replace the file between the open
/// and the read. \return FileErrorCode::is_directory, not_regular, read_failed or
///         changed_while_reading, naming `path`.
[[nodiscard]] std::expected<std::string, FileError> read_open_file(
    int fd, const std::filesystem::path& path);

}  // namespace llmfs
