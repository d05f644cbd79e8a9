// Chapter 2
#pragma once
/// \file
/// \brief Writing a whole file so that a crash or a failure never leaves half of it
/// under its name: write a temporary file beside the target, fsync it, rename it over
/// the target, fsync the folder (POSIX rename(2) is atomic within a file system; the
/// two fsyncs make the new bytes and the new name durable in that order). Chapter 2's
/// partition manifest is the first file the course writes; Chapter 4's merges file and
/// Chapter 35's checkpoints (to come) will use the same routine.

#include <expected>
#include <filesystem>
#include <string_view>

#include <llmfs/core/file_error.hpp>

namespace llmfs {

/// Replaces the file at `path` with `bytes` (permissions 0644): a reader, or the file
/// system after a crash, sees the old file or the new one, never part of either.
/// \return FileErrorCode::cannot_create, write_failed or sync_failed (the target is
/// then
///         untouched and no temporary file is left), rename_failed (likewise; e.g.
///         `path` is a folder), or sync_failed for the folder after the rename (the new
///         file is in place but its name may not yet be durable). The error names the
///         target, or the temporary file for a failure while writing it.
[[nodiscard]] std::expected<void, FileError> write_file_atomically(
    const std::filesystem::path& path, std::string_view bytes);

}  // namespace llmfs
