// Chapter 2
#include <llmfs/core/file_error.hpp>

namespace llmfs {

std::string_view describe(FileErrorCode code) noexcept {
  switch (code) {
    case FileErrorCode::not_found: return "no such file";
    case FileErrorCode::is_directory: return "is a folder, not a file";
    case FileErrorCode::not_regular: return "not a regular file";
    case FileErrorCode::cannot_open: return "cannot open";
    case FileErrorCode::read_failed: return "read failed";
    case FileErrorCode::changed_while_reading: return "changed while being read";
    case FileErrorCode::cannot_create: return "cannot create the temporary file";
    case FileErrorCode::write_failed: return "write failed";
    case FileErrorCode::sync_failed: return "fsync failed";
    case FileErrorCode::rename_failed: return "cannot rename over the target";
  }
  return "unknown file error";
}

}  // namespace llmfs
