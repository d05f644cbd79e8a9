// Chapter 2
#include <cerrno>
#include <cstring>
#include <string>

#include <llmfs/core/atomic_file.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace llmfs {

namespace {

[[nodiscard]] FileError write_failure(FileErrorCode code,
                                      const std::filesystem::path& path, int error) {
  return FileError{code, path.string(), std::strerror(error)};
}

// Every byte of `bytes` into `fd`, across partial writes and interrupted calls.
[[nodiscard]] int write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ::ssize_t put = ::write(fd, bytes.data(), bytes.size());
    if (put < 0 && errno == EINTR) continue;
    if (put < 0) return errno;
    bytes.remove_prefix(static_cast<std::size_t>(put));
  }
  return 0;
}

// The temporary file, complete and on disk, or an error with nothing left behind.
[[nodiscard]] std::expected<void, FileError> write_temporary(
    int fd, const std::filesystem::path& temporary, std::string_view bytes) {
  int error = write_all(fd, bytes);
  FileErrorCode code = FileErrorCode::write_failed;
  if (error == 0 && ::fchmod(fd, 0644) != 0) error = errno;
  if (error == 0 && ::fsync(fd) != 0) {
    error = errno;
    code = FileErrorCode::sync_failed;
  }
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error == 0) return {};
  ::unlink(temporary.c_str());
  return std::unexpected(write_failure(code, temporary, error));
}

// The folder's entry for the new name, on disk.
[[nodiscard]] std::expected<void, FileError> sync_folder(
    const std::filesystem::path& path) {
  const std::filesystem::path folder =
      path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return std::unexpected(write_failure(FileErrorCode::sync_failed, folder, errno));
  const int error = ::fsync(fd) == 0 ? 0 : errno;
  ::close(fd);
  if (error != 0)
    return std::unexpected(write_failure(FileErrorCode::sync_failed, folder, error));
  return {};
}

}  // namespace

std::expected<void, FileError> write_file_atomically(const std::filesystem::path& path,
                                                     std::string_view bytes) {
  std::string pattern = path.string() + ".tmp-XXXXXX";
  const int fd = ::mkstemp(pattern.data());
  if (fd < 0)
    return std::unexpected(write_failure(FileErrorCode::cannot_create, path, errno));
  const std::filesystem::path temporary = pattern;
  if (auto written = write_temporary(fd, temporary, bytes); !written) return written;
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    return std::unexpected(write_failure(FileErrorCode::rename_failed, path, error));
  }
  return sync_folder(path);
}

}  // namespace llmfs
