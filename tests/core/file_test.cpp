// Chapter 2: reading and writing whole files. Every way a path can fail to be a
// readable regular file gives its own FileErrorCode, including cases that fail as root
// (the tests run as root, for whom permission bits do not stop a read): a parent that
// is a file, a folder, a FIFO with no writer (must not block), a read that fails midway
// (/proc/self/mem at offset 0, whose page is never mapped), and a file removed or
// replaced between the open and the read. The atomic write leaves exactly the target.
#include <filesystem>
#include <fstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <llmfs/core/atomic_file.hpp>
#include <llmfs/core/read_file.hpp>

#include "support/temp_dir.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace {

using llmfs::FileErrorCode;
namespace fs = std::filesystem;

class FileTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = llmfs::test::make_temp_dir("llmfs-core-file"); }
  void TearDown() override { fs::remove_all(dir_); }
  void put(const fs::path& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
  }
  FileErrorCode read_code(const fs::path& path) {
    const auto read = llmfs::read_file(path);
    EXPECT_FALSE(read.has_value()) << path;
    return read ? FileErrorCode::not_found : read.error().code;
  }
  fs::path dir_;
};

TEST_F(FileTest, ReadsARegularFileWhole) {
  std::string bytes(200000, 'x');  // more than one 64 KiB read
  bytes[123456] = '\0';
  put(dir_ / "f", bytes);
  EXPECT_EQ(llmfs::read_file(dir_ / "f").value_or(""), bytes);
  put(dir_ / "empty", "");
  EXPECT_EQ(llmfs::read_file(dir_ / "empty").value_or("?"), "");
}

TEST_F(FileTest, MissingFileAndAParentThatIsAFile) {
  const auto missing = llmfs::read_file(dir_ / "absent");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(fmt::format("{}", missing.error()),
            fmt::format("{}: no such file", (dir_ / "absent").string()));
  put(dir_ / "file", "x");
  const auto under_file = llmfs::read_file(dir_ / "file" / "child");
  ASSERT_FALSE(under_file.has_value());
  EXPECT_EQ(under_file.error().code, FileErrorCode::not_found);
  EXPECT_EQ(llmfs::reason_of(under_file.error()),
            "no such file: a parent of it is not a folder");
}

TEST_F(FileTest, AFolderIsRefused) {
  EXPECT_EQ(read_code(dir_), FileErrorCode::is_directory);
  const auto error = llmfs::read_file(dir_).error();
  EXPECT_EQ(llmfs::reason_of(error), "is a folder, not a file");
}

TEST_F(FileTest, AFifoWithNoWriterIsRefusedWithoutBlocking) {
  ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0600), 0);
  EXPECT_EQ(read_code(dir_ / "fifo"), FileErrorCode::not_regular);
  EXPECT_EQ(read_code("/dev/null"), FileErrorCode::not_regular);  // a device
}

TEST_F(FileTest, AReadThatFailsMidwayIsTypedEvenForRoot) {
  // /proc/self/mem is a regular file whose offset 0 is address 0: never mapped, so
  // read(2) fails with EIO whatever the caller's privileges.
  const auto read = llmfs::read_file("/proc/self/mem");
  ASSERT_FALSE(read.has_value());
  EXPECT_EQ(read.error().code, FileErrorCode::read_failed);
  EXPECT_EQ(read.error().reason, "Input/output error");
}

TEST_F(FileTest, AFileRemovedOrReplacedWhileReadIsRefused) {
  put(dir_ / "gone", "bytes");
  int fd = ::open((dir_ / "gone").c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  fs::remove(dir_ / "gone");
  const auto vanished = llmfs::read_open_file(fd, dir_ / "gone");
  ::close(fd);
  ASSERT_FALSE(vanished.has_value());
  EXPECT_EQ(vanished.error().code, FileErrorCode::changed_while_reading);

  put(dir_ / "swapped", "old");
  fd = ::open((dir_ / "swapped").c_str(), O_RDONLY);
  ASSERT_GE(fd, 0);
  put(dir_ / "new", "new");
  fs::rename(dir_ / "new", dir_ / "swapped");
  const auto replaced = llmfs::read_open_file(fd, dir_ / "swapped");
  ::close(fd);
  ASSERT_FALSE(replaced.has_value());
  EXPECT_EQ(fmt::format("{}", replaced.error()),
            fmt::format("{}: changed while being read", (dir_ / "swapped").string()));
  // The same descriptor read while the file stays put is fine.
  fd = ::open((dir_ / "swapped").c_str(), O_RDONLY);
  EXPECT_EQ(llmfs::read_open_file(fd, dir_ / "swapped").value_or(""), "new");
  ::close(fd);
}

TEST_F(FileTest, AtomicWriteLeavesExactlyTheTarget) {
  const fs::path target = dir_ / "out.txt";
  ASSERT_TRUE(llmfs::write_file_atomically(target, "first\n").has_value());
  ASSERT_TRUE(llmfs::write_file_atomically(target, "second\n").has_value());
  EXPECT_EQ(llmfs::read_file(target).value_or(""), "second\n");
  std::size_t entries = 0;
  for (const auto& entry : fs::directory_iterator(dir_))
    entries += entry.path() == target ? 1 : 100;  // a leftover temporary counts 100
  EXPECT_EQ(entries, 1u);
  EXPECT_EQ(fs::status(target).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                fs::perms::others_read);
}

TEST_F(FileTest, AtomicWriteFailuresLeaveNothingBehind) {
  // No folder to put the temporary file in: nothing is created.
  const auto no_folder = llmfs::write_file_atomically(dir_ / "no" / "x", "x");
  ASSERT_FALSE(no_folder.has_value());
  EXPECT_EQ(no_folder.error().code, FileErrorCode::cannot_create);
  put(dir_ / "file", "x");
  const auto under_file = llmfs::write_file_atomically(dir_ / "file" / "x", "x");
  ASSERT_FALSE(under_file.has_value());
  EXPECT_EQ(under_file.error().code, FileErrorCode::cannot_create);
  // A non-empty folder under the target's name: the rename fails, the folder stays, the
  // temporary goes.
  fs::create_directory(dir_ / "taken");
  put(dir_ / "taken" / "inside", "kept");
  const auto over_folder = llmfs::write_file_atomically(dir_ / "taken", "x");
  ASSERT_FALSE(over_folder.has_value());
  EXPECT_EQ(over_folder.error().code, FileErrorCode::rename_failed);
  EXPECT_EQ(llmfs::read_file(dir_ / "taken" / "inside").value_or(""), "kept");
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir_))
    ++entries;
  EXPECT_EQ(entries, 2u);  // file, taken
}

}  // namespace
