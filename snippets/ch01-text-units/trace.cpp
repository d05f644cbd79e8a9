// Chapter 1
#include <string>

#include <fmt/format.h>

#include "evidence.hpp"

namespace ch01 {

namespace {

/// The first `count` bits of `byte` and the rest, as binary strings.
std::pair<std::string, std::string> split_bits(std::uint8_t byte, std::size_t count) {
  const std::string bits = fmt::format("{:08b}", byte);
  return {bits.substr(0, count), bits.substr(count)};
}

}  // namespace

// region: trace-records
// LAYOUT per row of the table, WORD per fixture word, and BYTE per byte: its value, its
// marker and payload bits, its role (single, lead of n, continuation) and the code
// point it belongs to. The diagram reads these records and recomputes nothing.
std::string render_trace(const Evidence& e) {
  std::vector<std::string> records;
  for (const llmfs::text::Utf8Row& row : llmfs::text::kUtf8Layout)
    records.push_back(
        fmt::format("LAYOUT|length={}|first={}|last={}|pattern={}|bits={}", row.length,
                    code_point_name(row.first), code_point_name(row.last),
                    layout_pattern(row), row.payload_bits));
  for (std::size_t w = 0; w < e.words.size(); ++w) {
    const Word& word = e.words[w];
    records.push_back(fmt::format("WORD|word={}|text={}|code_points={}|bytes={}", w,
                                  llmfs::text::string_of(word.bytes),
                                  word.code_points.size(), word.bytes.size()));
    std::size_t index = 0, length = 0, left = 0;
    for (std::size_t offset = 0; offset < word.bytes.size(); ++offset) {
      const std::uint8_t byte = word.bytes[offset];
      if (left == 0) length = left = llmfs::text::sequence_length(byte);
      const bool lead = left == length;
      const std::size_t marker =
          lead ? llmfs::text::kUtf8Layout[length - 1].marker_bits : 2;
      const auto [marker_bits, payload_bits] = split_bits(byte, marker);
      const std::string role = length == 1 ? "single"
                               : lead      ? fmt::format("lead of {}", length)
                                           : "continuation";
      records.push_back(fmt::format(
          "BYTE|word={}|offset={}|value={}|hex={:02X}|marker={}|payload={}|role={}|"
          "code_point={}",
          w, offset, byte, byte, marker_bits, payload_bits, role,
          code_point_name(word.code_points[index])));
      if (--left == 0) ++index;
    }
  }
  return snippets::join_lines(records);
}
// endregion: trace-records

}  // namespace ch01
