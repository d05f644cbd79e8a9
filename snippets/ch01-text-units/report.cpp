// Chapter 1
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "evidence.hpp"

namespace ch01 {

std::string layout_pattern(const llmfs::text::Utf8Row& row) {
  std::string pattern = fmt::format("{:0{}b}", row.marker, row.marker_bits);
  pattern.append(8 - row.marker_bits, 'x');
  for (std::size_t k = 1; k < row.length; ++k)
    pattern += " 10xxxxxx";
  return pattern;
}

std::string hex_bytes(const Bytes& bytes) {
  return fmt::format("{:02X}", fmt::join(bytes, " "));
}

namespace {

std::string corpus_line(std::string_view key, const CorpusFacts& c) {
  return fmt::format(
      "{}=file:{} documents:{} bytes:{} code_points:{} non_ascii_bytes:{} "
      "distinct_byte_values:{}",
      key, c.name, c.documents, c.bytes, c.code_points, c.non_ascii_bytes,
      c.byte_values.size());
}

std::string text_of(const Word& word) {
  return llmfs::text::string_of(word.bytes);
}

}  // namespace

// region: report-lines
// One `key=value` line per fact of the fixture: the prediction, the layout, every
// malformed class, the refused code points, the misconception.
void add_fixture_lines(const Evidence& e, std::vector<std::string>& lines) {
  for (std::size_t i = 0; i < e.words.size(); ++i) {
    const Word& w = e.words[i];
    lines.push_back(fmt::format(
        "word_{}=text:{} code_points:{} bytes:[{}] hex:{} count:{} code points, {} "
        "bytes",
        i + 1, text_of(w), code_point_list(w.code_points), fmt::join(w.bytes, ","),
        hex_bytes(w.bytes), w.code_points.size(), w.bytes.size()));
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
  lines.push_back(fmt::format(
      "misconception=text:{} code_points:{} bytes:[{}]", text_of(e.combining),
      code_point_list(e.combining.code_points), fmt::join(e.combining.bytes, ",")));
}
// endregion: report-lines

// region: report-measured-lines
// Then what was measured on the corpora, and the exercise answers; the report is the
// fixture's lines followed by these.
void add_measured_lines(const Evidence& e, std::vector<std::string>& lines) {
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
  lines.push_back(
      fmt::format("exercise_4=text:{} bytes:[{}] byte_values_seen_in_kjv:{} of {}",
                  text_of(x.unseen), fmt::join(x.unseen.bytes, ","),
                  x.unseen_bytes_in_kjv, x.unseen.bytes.size()));
}

std::string render_report(const Evidence& e) {
  std::vector<std::string> lines;
  add_fixture_lines(e, lines);
  add_measured_lines(e, lines);
  return snippets::join_lines(lines);
}
// endregion: report-measured-lines

}  // namespace ch01
