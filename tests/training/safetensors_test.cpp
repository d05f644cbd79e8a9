// Unit tests of training/safetensors (Chapter 35): the byte layout by hand, every
// double bit for bit (seeded random files beside the special values), a typed error and
// never a result for every truncation, every single-bit flip, an oversized header, a
// wrong version, malformed entries and offsets; atomic saves that survive a SIGKILL
// mid-write.
#include <bit>
#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <llmfs/core/splitmix64.hpp>
#include <llmfs/training/safetensors.hpp>

#include "support/temp_dir.hpp"

#include <sys/wait.h>
#include <unistd.h>

namespace {

using namespace llmfs::training;
using Code = CheckpointErrorCode;

double bits(std::uint64_t word) {
  return std::bit_cast<double>(word);
}

// The values the issue names: 0.1, −0.0, the smallest subnormal, the largest finite,
// NaNs with payloads (quiet and signalling bit patterns), both infinities.
const std::vector<double> kSpecial = {0.1,
                                      -0.0,
                                      5e-324,
                                      1.7976931348623157e308,
                                      bits(0x7FF8000000000123ULL),
                                      bits(0xFFF0000000000001ULL),
                                      std::numeric_limits<double>::infinity(),
                                      -std::numeric_limits<double>::infinity()};

TensorFile small_file() {
  TensorFile file;
  file.tensors.push_back({"special", {2, 4}, kSpecial});
  file.tensors.push_back({"one", {}, {1.0}});
  file.tensors.push_back({"empty", {0, 3}, {}});
  file.metadata["note"] = "a \"quoted\" value,\nwith a newline";
  return file;
}

std::string encoded(const TensorFile& file) {
  return encode_tensor_file(file).value();
}

// Bytes with a hand-written header (compact JSON, no padding) and data, sealed.
std::string craft(const std::string& entries, const std::string& data,
                  const std::string& version = "1") {
  const std::string header =
      "{\"__metadata__\":{\"llmfs.format\":\"llmfs-checkpoint\","
      "\"llmfs.format_version\":\"" +
      version + "\",\"llmfs.sha256\":\"" + std::string(64, '0') + "\"}" + entries + "}";
  std::string bytes;
  for (int i = 0; i < 8; ++i)
    bytes.push_back(static_cast<char>((header.size() >> (8 * i)) & 0xFF));
  bytes += header + data;
  EXPECT_TRUE(seal_checksum(bytes));
  return bytes;
}

Code code_of(const std::string& bytes) {
  const auto decoded = decode_tensor_file(bytes, "case");
  EXPECT_FALSE(decoded.has_value());
  return decoded ? Code::cannot_read : decoded.error().code;
}

TEST(Safetensors, LayoutIsLengthHeaderThenLittleEndianData) {
  TensorFile file;
  file.tensors.push_back({"w", {2}, {1.0, -2.0}});
  const std::string bytes = encoded(file);
  std::uint64_t length = 0;
  for (int i = 7; i >= 0; --i)
    length = (length << 8) | static_cast<unsigned char>(bytes[i]);
  EXPECT_EQ(length % 8, 0u);  // padded: the data starts 8-byte aligned
  EXPECT_EQ(bytes.size(), 8 + length + 16);
  const std::string header = bytes.substr(8, length);
  EXPECT_TRUE(
      header.starts_with("{\"__metadata__\":{\"llmfs.format\":\"llmfs-checkpoint\","
                         "\"llmfs.format_version\":\"1\",\"llmfs.sha256\":\""));
  EXPECT_NE(
      header.find("\"w\":{\"dtype\":\"F64\",\"shape\":[2],\"data_offsets\":[0,16]}"),
      std::string::npos);
  // 1.0 is 0x3FF0000000000000, −2.0 is 0xC000000000000000, least significant byte first
  EXPECT_EQ(bytes.substr(8 + length),
            std::string("\0\0\0\0\0\0\xF0\x3F\0\0\0\0\0\0\0\xC0", 16));
}

TEST(Safetensors, SpecialDoublesRoundTripBitForBit) {
  const TensorFile file = small_file();
  const auto back = decode_tensor_file(encoded(file));
  ASSERT_TRUE(back.has_value()) << fmt::format("{}", back.error());
  ASSERT_EQ(back->tensors.size(), 3u);
  for (std::size_t i = 0; i < kSpecial.size(); ++i)
    EXPECT_EQ(std::bit_cast<std::uint64_t>(back->tensors[0].values[i]),
              std::bit_cast<std::uint64_t>(kSpecial[i]))
        << i;
  EXPECT_EQ(*back, file);
  EXPECT_EQ(back->metadata.at("note"), file.metadata.at("note"));
}

TEST(Safetensors, RandomFilesRoundTripAndEncodeDeterministically) {
  llmfs::SplitMix64 rng(35);
  for (int trial = 0; trial < 200; ++trial) {
    TensorFile file;
    const std::size_t tensors = rng.next_u64() % 4;
    for (std::size_t t = 0; t < tensors; ++t) {
      NamedTensor tensor{"t" + std::to_string(trial) + "." + std::to_string(t), {}, {}};
      std::size_t count = 1;
      for (std::size_t axis = rng.next_u64() % 3; axis > 0; --axis) {
        tensor.shape.push_back(rng.next_u64() % 4);
        count *= tensor.shape.back();
      }
      for (std::size_t i = 0; i < count; ++i)
        tensor.values.push_back(bits(rng.next_u64()));
      file.tensors.push_back(std::move(tensor));
    }
    if (rng.next_u64() % 2) file.metadata["k" + std::to_string(trial)] = "v";
    const std::string bytes = encoded(file);
    EXPECT_EQ(bytes, encoded(file));
    const auto back = decode_tensor_file(bytes);
    ASSERT_TRUE(back.has_value()) << fmt::format("{}", back.error());
    EXPECT_EQ(*back, file) << trial;
  }
}

TEST(Safetensors, EveryTruncationIsATypedError) {
  const std::string bytes = encoded(small_file());
  for (std::size_t size = 0; size < bytes.size(); ++size) {
    const auto decoded =
        decode_tensor_file(std::string_view(bytes).substr(0, size), "cut");
    ASSERT_FALSE(decoded.has_value()) << size;
    EXPECT_EQ(decoded.error().file, "cut");
    if (size < 8) {
      EXPECT_EQ(decoded.error().code, Code::truncated);
      EXPECT_EQ(decoded.error().offset, size);
      EXPECT_EQ(decoded.error().stage, "header length");
    }
  }
  const auto cut =
      decode_tensor_file(std::string_view(bytes).substr(0, bytes.size() - 1));
  EXPECT_EQ(cut.error().code, Code::truncated);
  EXPECT_EQ(cut.error().stage, "data offsets");
  EXPECT_EQ(cut.error().offset, bytes.size() - 1);
}

TEST(Safetensors, EverySingleBitFlipIsATypedError) {
  const std::string bytes = encoded(small_file());
  std::size_t checksum_errors = 0;
  for (std::size_t at = 0; at < bytes.size(); ++at)
    for (int bit = 0; bit < 8; ++bit) {
      std::string flipped = bytes;
      flipped[at] = static_cast<char>(flipped[at] ^ (1 << bit));
      const auto decoded = decode_tensor_file(flipped);
      ASSERT_FALSE(decoded.has_value()) << at << " " << bit;
      checksum_errors += decoded.error().code == Code::checksum_mismatch;
    }
  EXPECT_GT(checksum_errors, 8 * 8 * 8u);  // at least every bit of the 64 data bytes
}

TEST(Safetensors, FlippedDataByteNamesTheChecksumAndItsOffset) {
  std::string bytes = encoded(small_file());
  bytes[bytes.size() - 9] ^= 1;
  const auto decoded = decode_tensor_file(bytes, "run/ckpt.safetensors");
  ASSERT_FALSE(decoded.has_value());
  EXPECT_EQ(decoded.error().code, Code::checksum_mismatch);
  EXPECT_EQ(decoded.error().stage, "checksum");
  const std::size_t digest = bytes.find("\"llmfs.sha256\":\"") + 16;
  EXPECT_EQ(decoded.error().offset, digest);
  EXPECT_TRUE(
      fmt::format("{}", decoded.error())
          .starts_with(fmt::format("checkpoint run/ckpt.safetensors at byte {}, "
                                   "checksum: checksum mismatch (stored ",
                                   digest)));
}

TEST(Safetensors, OversizedHeaderLengthIsRefusedBeforeAnyAllocation) {
  std::string bytes = encoded(small_file());
  const std::uint64_t huge = kMaxHeaderBytes + 1;
  for (int i = 0; i < 8; ++i)
    bytes[i] = static_cast<char>((huge >> (8 * i)) & 0xFF);
  const auto decoded = decode_tensor_file(bytes);
  EXPECT_EQ(decoded.error().code, Code::header_too_large);
  EXPECT_EQ(decoded.error().offset, 0u);
  for (int i = 0; i < 8; ++i)
    bytes[i] = '\xFF';
  EXPECT_EQ(code_of(bytes), Code::header_too_large);
}

TEST(Safetensors, WrongVersionAndForeignFilesAreNamed) {
  const auto decoded = decode_tensor_file(craft("", "", "2"), "old.safetensors");
  ASSERT_FALSE(decoded.has_value());
  EXPECT_EQ(decoded.error().code, Code::wrong_version);
  EXPECT_EQ(fmt::format("{}", decoded.error()),
            "checkpoint old.safetensors at byte 8, version: unsupported format version "
            "(version '2', this reader reads 1)");
  // A plain safetensors file from elsewhere: valid layout, no llmfs metadata
  std::string foreign = std::string("\x0C\0\0\0\0\0\0\0", 8) + "{\"x\":\"y\"}   ";
  EXPECT_EQ(code_of(foreign), Code::bad_entry);
  foreign = std::string("\x02\0\0\0\0\0\0\0", 8) + "{}";
  EXPECT_EQ(code_of(foreign), Code::not_a_checkpoint);
}

TEST(Safetensors, MalformedEntriesAndOffsetsAreTypedErrors) {
  const std::string eight(8, '\0');
  // the format requires the header's first byte to be '{' (no leading space)
  std::string spaced = craft("", "");
  spaced.insert(8, " ");
  spaced[0] = static_cast<char>(spaced[0] + 1);
  ASSERT_TRUE(seal_checksum(spaced));
  EXPECT_EQ(code_of(spaced), Code::bad_json);
  EXPECT_TRUE(
      decode_tensor_file(
          craft(",\"a\":{\"dtype\":\"F64\",\"shape\":[1],\"data_offsets\":[0,8]}",
                eight))
          .has_value());
  EXPECT_EQ(
      code_of(craft(",\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}",
                    eight)),
      Code::unsupported_dtype);
  EXPECT_EQ(
      code_of(craft(",\"a\":{\"dtype\":\"F64\",\"shape\":[2],\"data_offsets\":[0,8]}",
                    eight)),
      Code::bad_offsets);
  EXPECT_EQ(
      code_of(craft(",\"a\":{\"dtype\":\"F64\",\"shape\":[-1],\"data_offsets\":[0,8]}",
                    eight)),
      Code::bad_entry);
  EXPECT_EQ(code_of(craft(",\"a\":{\"dtype\":\"F64\",\"shape\":[1]}", eight)),
            Code::bad_entry);
  EXPECT_EQ(
      code_of(craft(",\"a b\":{\"dtype\":\"F64\",\"shape\":[1],\"data_offsets\":[0,8]}",
                    eight)),
      Code::bad_name);
  // a hole before the first tensor, an overlap, bytes after the last
  EXPECT_EQ(
      code_of(craft(",\"a\":{\"dtype\":\"F64\",\"shape\":[1],\"data_offsets\":[8,16]}",
                    eight + eight)),
      Code::bad_offsets);
  EXPECT_EQ(
      code_of(craft(",\"a\":{\"dtype\":\"F64\",\"shape\":[1],\"data_offsets\":[0,8]},"
                    "\"b\":{\"dtype\":\"F64\",\"shape\":[1],\"data_offsets\":[0,8]}",
                    eight)),
      Code::bad_offsets);
  EXPECT_EQ(
      code_of(craft(",\"a\":{\"dtype\":\"F64\",\"shape\":[1],\"data_offsets\":[0,8]}",
                    eight + eight)),
      Code::bad_offsets);
  // a shape whose byte count overflows 64 bits
  EXPECT_EQ(code_of(craft(",\"a\":{\"dtype\":\"F64\",\"shape\":[4294967296,4294967296],"
                          "\"data_offsets\":[0,8]}",
                          eight)),
            Code::bad_offsets);
  // duplicate keys, at the top and inside an entry; not JSON; not an object
  EXPECT_EQ(
      code_of(craft(",\"a\":{\"dtype\":\"F64\",\"shape\":[1],\"data_offsets\":[0,8]},"
                    "\"a\":{\"dtype\":\"F64\",\"shape\":[1],\"data_offsets\":[0,8]}",
                    eight)),
      Code::bad_json);
  EXPECT_EQ(code_of(craft(",\"a\":{\"dtype\":\"F64\",\"dtype\":\"F64\",\"shape\":[1],"
                          "\"data_offsets\":[0,8]}",
                          eight)),
            Code::bad_json);
  EXPECT_EQ(code_of(craft(",\"a\":", eight)), Code::bad_json);
  // a number beyond the double range (nlohmann::json throws out_of_range, not
  // parse_error; found by the fuzzer)
  EXPECT_EQ(code_of(craft(",\"a\":{\"dtype\":\"F64\",\"shape\":[1e999],"
                          "\"data_offsets\":[0,8]}",
                          eight)),
            Code::bad_json);
}

// What the reader accepts, the writer can write: a metadata key outside the name rule
// is refused on reading too (found by the fuzzer's encode-after-decode check).
TEST(Safetensors, MetadataKeysFollowTheNameRuleOnReading) {
  std::string bytes = encoded(small_file());
  bytes.replace(bytes.find("\"note\""), 6, "\"no{e\"");
  ASSERT_TRUE(seal_checksum(bytes));
  const auto decoded = decode_tensor_file(bytes);
  ASSERT_FALSE(decoded.has_value());
  EXPECT_EQ(decoded.error().code, Code::bad_name);
  EXPECT_EQ(decoded.error().stage, "metadata");
}

TEST(Safetensors, EncodeRefusesWhatItCouldNotReadBack) {
  TensorFile file;
  file.tensors.push_back({"w", {2}, {1.0}});
  EXPECT_EQ(encode_tensor_file(file).error().code, Code::bad_entry);
  file.tensors[0] = {"has space", {1}, {1.0}};
  EXPECT_EQ(encode_tensor_file(file).error().code, Code::bad_name);
  file.tensors[0] = {"w", {1}, {1.0}};
  file.tensors.push_back({"w", {1}, {1.0}});
  EXPECT_EQ(encode_tensor_file(file).error().code, Code::bad_name);
  file.tensors.pop_back();
  file.metadata["llmfs.sha256"] = "mine";
  EXPECT_EQ(encode_tensor_file(file).error().code, Code::bad_name);
  file.metadata.clear();
  file.metadata["bytes"] = "\xFF\xFE";
  EXPECT_EQ(encode_tensor_file(file).error().code, Code::bad_value);
}

TEST(Safetensors, SaveReplacesAtomicallyAndAFailedSaveKeepsTheOldFile) {
  const auto dir = llmfs::test::make_temp_dir("ch35-save");
  const auto path = dir / "ckpt.safetensors";
  TensorFile a = small_file(), b = small_file();
  b.tensors[1].values[0] = 2.0;
  ASSERT_TRUE(save_tensor_file(path, a).has_value());
  ASSERT_TRUE(save_tensor_file(path, b).has_value());
  EXPECT_EQ(load_tensor_file(path).value(), b);
  TensorFile bad = b;
  bad.tensors[0].name = "";
  EXPECT_EQ(save_tensor_file(path, bad).error().code, Code::bad_name);
  EXPECT_EQ(save_tensor_file(dir, a).error().code, Code::cannot_write);
  EXPECT_EQ(load_tensor_file(path).value(), b);
  EXPECT_EQ(load_tensor_file(dir / "missing").error().code, Code::cannot_read);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 1);
  std::filesystem::remove_all(dir);
}

// A child process saves A and B in turn as fast as it can and is killed with SIGKILL at
// a varying moment: the file left behind always loads as A or as B, never as a mixture.
TEST(Safetensors, KillDuringSaveLeavesTheOldOrTheNewFile) {
  const auto dir = llmfs::test::make_temp_dir("ch35-kill");
  const auto path = dir / "ckpt.safetensors";
  TensorFile a, b;
  a.tensors.push_back({"w", {4096}, std::vector<double>(4096, 1.0)});
  b.tensors.push_back({"w", {4096}, std::vector<double>(4096, 2.0)});
  ASSERT_TRUE(save_tensor_file(path, a).has_value());
  for (int round = 0; round < 10; ++round) {
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      for (int i = 0;; ++i)
        if (!save_tensor_file(path, i % 2 ? a : b)) ::_exit(3);
    }
    ::usleep(2000 + 1500 * round);
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status));
    const auto loaded = load_tensor_file(path);
    ASSERT_TRUE(loaded.has_value()) << fmt::format("{}", loaded.error());
    EXPECT_TRUE(*loaded == a || *loaded == b);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
