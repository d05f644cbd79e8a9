// Chapter 2
#include <cerrno>
#include <cstring>

#include <llmfs/core/read_file.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace llmfs {

namespace {

[[nodiscard]] std::unexpected<FileError> read_failure(FileErrorCode code,
                                                      const std::filesystem::path& path,
                                                      int error = 0) {
  return std::unexpected(FileError{code, path.string(),
                                   error == 0 ? std::string() : std::strerror(error)});
}

// A folder or anything but a regular file is refused before a byte is read.
[[nodiscard]] std::expected<void, FileError> check_regular(
    const struct stat& info, const std::filesystem::path& path) {
  if (S_ISDIR(info.st_mode)) return read_failure(FileErrorCode::is_directory, path);
  if (!S_ISREG(info.st_mode)) return read_failure(FileErrorCode::not_regular, path);
  return {};
}

}  // namespace

std::expected<std::string, FileError> read_open_file(
    int fd, const std::filesystem::path& path) {
  struct stat before {};
  if (::fstat(fd, &before) != 0)
    return read_failure(FileErrorCode::read_failed, path, errno);
  if (auto regular = check_regular(before, path); !regular)
    return std::unexpected(regular.error());
  std::string bytes;
  char buffer[1 << 16];
  while (true) {
    const ::ssize_t got = ::read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return read_failure(FileErrorCode::read_failed, path, errno);
    if (got == 0) break;
    bytes.append(buffer, static_cast<std::size_t>(got));
  }
  // The path must still name this file (not removed, not renamed over), whole.
  struct stat after {};
  struct stat named {};
  if (::fstat(fd, &after) != 0 || ::stat(path.c_str(), &named) != 0 ||
      named.st_dev != after.st_dev || named.st_ino != after.st_ino ||
      static_cast<std::size_t>(after.st_size) != bytes.size())
    return read_failure(FileErrorCode::changed_while_reading, path);
  return bytes;
}

std::expected<std::string, FileError> read_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) {
    const int error = errno;
    if (error == ENOENT) return read_failure(FileErrorCode::not_found, path);
    if (error == ENOTDIR)
      return std::unexpected(FileError{FileErrorCode::not_found, path.string(),
                                       "a parent of it is not a folder"});
    return read_failure(FileErrorCode::cannot_open, path, error);
  }
  auto bytes = read_open_file(fd, path);
  ::close(fd);
  return bytes;
}

}  // namespace llmfs
