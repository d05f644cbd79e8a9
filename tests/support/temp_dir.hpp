#pragma once
// Test helper: a fresh, empty folder of its own for a test that writes files. Made by
// mkdtemp(3), so tests run side by side (ctest -j, one process per test) never share
// one; a name derived from gtest's random seed did, when two processes started in the
// same millisecond.

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace llmfs::test {

/// A new empty folder under the system's temporary folder, named `<prefix>-XXXXXX`.
/// Throws std::runtime_error if it cannot be made. The caller removes it.
inline std::filesystem::path make_temp_dir(std::string_view prefix) {
  std::string pattern =
      (std::filesystem::temp_directory_path() / (std::string(prefix) + "-XXXXXX"))
          .string();
  if (::mkdtemp(pattern.data()) == nullptr)
    throw std::runtime_error("mkdtemp failed for " + pattern);
  return pattern;
}

}  // namespace llmfs::test
