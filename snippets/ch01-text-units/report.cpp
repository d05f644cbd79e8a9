// Chapter 1
// The report, one `key=value` line per fact, and the trace records of the diagram.
#include <fmt/ranges.h>

#include "evidence.hpp"

namespace ch01 {

namespace {

// A layout row's bit pattern: `110xxxxx 10xxxxxx` for two bytes.
std::string layout_pattern(const llmfs::text::Utf8Row& row) {
  std::string pattern = fmt::format("{:0{}b}", row.marker, row.marker_bits);
  pattern.append(8 - row.marker_bits, 'x');
  for (std::size_t k = 1; k < row.length; ++k)
    pattern += " 10xxxxxx";
  return pattern;
}

// `68 C3 A9` for bytes.
std::string hex_bytes(const Bytes& bytes) {
  return fmt::format("{:02X}", fmt::join(bytes, " "));
}

std::string corpus_line(std::string_view key, const CorpusFacts& c) {
  return fmt::format(
      "{}=file:{} documents:{} bytes:{} code_points:{} non_ascii_bytes:{} "
      "distinct_byte_values:{}",
      key, c.name, c.documents, c.bytes, c.code_points, c.non_ascii_bytes,
      c.byte_values.size());
}

// `text:é code_points:[U+0065,U+0301] bytes:[101,204,129]`.
std::string word_text(const Word& w) {
  return fmt::format("text:{} code_points:{} bytes:[{}]",
                     llmfs::text::string_of(w.bytes), code_point_list(w.code_points),
                     fmt::join(w.bytes, ","));
}

}  // namespace

// One `key=value` line per fact: the prediction, the layout, every malformed class, the
// refused code points, the misconception, the corpora and the exercise answers.
std::string render_report(const Evidence& e) {
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < e.words.size(); ++i) {
    const Word& w = e.words[i];
    lines.push_back(fmt::format("word_{}={} hex:{} count:{} code point{}, {} bytes",
                                i + 1, word_text(w), hex_bytes(w.bytes),
                                w.code_points.size(),
                                w.code_points.size() == 1 ? "" : "s", w.bytes.size()));
  }
  for (const llmfs::text::Utf8Row& row : llmfs::text::kUtf8Layout)
    lines.push_back(fmt::format("layout_{}=code_points:{}..{} bits:{} pattern:{}",
                                row.length, code_point_name(row.first),
                                code_point_name(row.last), row.payload_bits,
                                layout_pattern(row)));
  for (const Outcome& m : e.malformed)
    lines.push_back(
        fmt::format("malformed_{}=bytes:{} {}", m.name, hex_bytes(m.bytes), m.answer));
  for (std::size_t i = 0; i < e.unencodable.size(); ++i)
    lines.push_back(fmt::format("unencodable_{}=code_points:{} {}", i + 1,
                                e.unencodable[i].name, e.unencodable[i].answer));
  lines.push_back(fmt::format("misconception={}", word_text(e.combining)));
  lines.push_back(corpus_line("tiny_corpus", e.tiny));
  lines.push_back(corpus_line("kjv_corpus", e.kjv));
  lines.push_back(
      fmt::format("kjv_byte_values=[{}]", fmt::join(e.kjv.byte_values, ",")));
  const Exercises& x = e.exercises;
  std::vector<std::string> boundaries;
  for (const Word& b : x.boundaries)
    boundaries.push_back(
        fmt::format("{}:{}", code_point_name(b.code_points[0]), hex_bytes(b.bytes)));
  lines.push_back(fmt::format("exercise_1={}", fmt::join(boundaries, " | ")));
  for (const Outcome& v : x.which_valid)
    lines.push_back(fmt::format("exercise_2.{}={}", v.name, v.answer));
  lines.push_back(fmt::format("exercise_3=unchecked:{} checked:{}",
                              code_point_name(x.naive_slash), x.overlong_slash.answer));
  lines.push_back(fmt::format(
      "exercise_4=text:{} bytes:[{}] byte_values_seen_in_kjv:{} of {}",
      llmfs::text::string_of(x.unseen.bytes), fmt::join(x.unseen.bytes, ","),
      x.unseen_bytes_in_kjv, x.unseen.bytes.size()));
  return snippets::join_lines(lines);
}

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
      const std::string bits = fmt::format("{:08b}", byte);  // marker, then payload
      const std::string role = length == 1 ? "single"
                               : lead      ? fmt::format("lead of {}", length)
                                           : "continuation";
      records.push_back(fmt::format(
          "BYTE|word={}|offset={}|value={}|hex={:02X}|marker={}|payload={}|role={}|"
          "code_point={}",
          w, offset, byte, byte, bits.substr(0, marker), bits.substr(marker), role,
          code_point_name(word.code_points[index])));
      if (--left == 0) ++index;
    }
  }
  return snippets::join_lines(records);
}
// endregion: trace-records

}  // namespace ch01
