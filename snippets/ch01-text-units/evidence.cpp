// Chapter 1
#include "evidence.hpp"

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <ranges>

#include <fmt/ranges.h>

namespace ch01 {

using llmfs::text::decode_utf8;
using llmfs::text::encode_utf8;

std::string code_point_name(char32_t code_point) {
  return fmt::format("U+{:04X}", static_cast<std::uint32_t>(code_point));
}

std::string code_point_list(const CodePoints& code_points) {
  return fmt::format(
      "[{}]", fmt::join(code_points | std::views::transform(code_point_name), ","));
}

namespace {

// region: encode-word
// A word of code points -> its bytes, through the library's encoder.
[[nodiscard]] Step<Word> encode_word(std::u32string_view word) {
  const CodePoints code_points(word.begin(), word.end());
  const Bytes bytes = LLMFS_TRY_AT("encode fixture word", encode_utf8(code_points));
  return Word{code_points, bytes};
}

// A byte string -> the decoder's answer, kept as text: the error it names, or the
// code points it found. A malformed case is expected to fail, so failure is data here.
[[nodiscard]] Outcome decode_case(std::string_view name, const Bytes& bytes) {
  const auto decoded = decode_utf8(bytes);
  const std::string answer = decoded ? "ok:" + code_point_list(*decoded)
                                     : fmt::format("error:{}", decoded.error());
  return Outcome{std::string(name), bytes, answer};
}
// endregion: encode-word

// region: read-corpus-checks
// A whole file as bytes; a file that cannot be read is a typed error naming it.
[[nodiscard]] Step<Bytes> read_bytes(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return llmfs::reject(snippets::StepCode::failed, "read " + path, "cannot open");
  Bytes bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (file.bad())
    return llmfs::reject(snippets::StepCode::failed, "read " + path, "I/O error");
  return bytes;
}
// endregion: read-corpus-checks

// region: measure-corpus
// Bytes, code points, non-ASCII bytes, distinct byte values and documents (heading
// lines `# ...`, the corpus format of tools/extract-corpus.py).
[[nodiscard]] Step<CorpusFacts> measure_corpus(const std::string& path) {
  const Bytes bytes = LLMFS_TRY(read_bytes(path));
  CorpusFacts facts;
  facts.name = std::filesystem::path(path).filename().string();
  facts.bytes = bytes.size();
  facts.code_points = LLMFS_TRY_AT("decode " + facts.name, decode_utf8(bytes)).size();
  facts.non_ascii_bytes = static_cast<std::size_t>(std::count_if(
      bytes.begin(), bytes.end(), [](std::uint8_t b) { return b >= 0x80; }));
  std::array<bool, 256> seen{};  // a table, not a set: 4 million inserts are slow
  for (std::uint8_t b : bytes)
    seen[b] = true;
  for (int value = 0; value < 256; ++value)
    if (seen[value]) facts.byte_values.push_back(value);
  const std::string text = "\n" + llmfs::text::string_of(bytes);  // each line after \n
  for (auto at = text.find("\n# "); at != std::string::npos;
       at = text.find("\n# ", at + 1))
    ++facts.documents;
  return facts;
}
// endregion: measure-corpus

// region: exercise-naive-decoder
// Exercise 3: a decoder that only strips the marker bits and glues the payloads,
// checking nothing. It turns the overlong C0 AF into '/', which is the whole danger.
char32_t assemble_unchecked(const Bytes& bytes) {
  char32_t code_point =
      bytes[0] & (0xFFu >> llmfs::text::kUtf8Layout[bytes.size() - 1].marker_bits);
  for (std::size_t k = 1; k < bytes.size(); ++k)
    code_point = (code_point << 6) | (bytes[k] & 0x3Fu);
  return code_point;
}
// endregion: exercise-naive-decoder

// region: exercises
// Every answer comes from the library: encode the boundaries, decode the candidates,
// and count which of 日本's byte values the King James text ever uses.
[[nodiscard]] Step<Exercises> solve_exercises(const CorpusFacts& kjv) {
  Exercises x;
  for (char32_t cp : kBoundaries)
    x.boundaries.push_back(LLMFS_TRY(encode_word(std::u32string_view(&cp, 1))));
  for (const ByteCase& c : kWhichValid)
    x.which_valid.push_back(decode_case(c.name, llmfs::text::bytes_of(c.bytes)));
  const Bytes slash = llmfs::text::bytes_of(kOverlongSlash);
  x.naive_slash = assemble_unchecked(slash);
  x.overlong_slash = decode_case("C0_AF", slash);
  x.unseen = LLMFS_TRY(encode_word(kUnseenScript));
  x.unseen_bytes_in_kjv =
      static_cast<std::size_t>(std::ranges::count_if(x.unseen.bytes, [&](int b) {
        return std::ranges::binary_search(kjv.byte_values, b);
      }));
  return x;
}
// endregion: exercises

}  // namespace

// The chapter in one pass: the words, every malformed class, the refused code points,
// both corpora and the exercises.
Step<Evidence> gather() {
  Evidence e;
  for (std::u32string_view word : kWords)
    e.words.push_back(LLMFS_TRY(encode_word(word)));
  e.combining = LLMFS_TRY(encode_word(kCombining));
  for (const ByteCase& c : kMalformed)
    e.malformed.push_back(decode_case(c.name, llmfs::text::bytes_of(c.bytes)));
  for (std::u32string_view points : kUnencodable) {
    const CodePoints code_points(points.begin(), points.end());
    const auto encoded = encode_utf8(code_points);
    const auto answer = encoded ? "ok" : fmt::format("error:{}", encoded.error());
    e.unencodable.push_back({code_point_list(code_points), {}, answer});
  }
  e.tiny = LLMFS_TRY(measure_corpus(LLMFS_TINY_CORPUS_PATH));
  e.kjv = LLMFS_TRY(measure_corpus(LLMFS_CORPUS_PATH));
  e.exercises = LLMFS_TRY(solve_exercises(e.kjv));
  return e;
}

}  // namespace ch01
