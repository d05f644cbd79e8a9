// Chapter 1
#pragma once
// Chapter 1's program: every value its report and trace print, gathered once from the
// library (src/llmfs/text/utf8.hpp), and the functions that render them.

#include <string>
#include <vector>

#include <llmfs/text/utf8.hpp>

#include "../common/chapter.hpp"
#include "fixture.hpp"

namespace ch01 {

using llmfs::text::Bytes;
using llmfs::text::CodePoints;
using snippets::Step;

/// One word of the prediction: its code points and their UTF-8 bytes.
struct Word {
  CodePoints code_points;  ///< [N]
  Bytes bytes;             ///< [M], N ≤ M ≤ 4N
};

/// A fixture case and what the library answered: its error's text, or the code points.
struct Outcome {
  std::string name;    ///< the case's name
  Bytes bytes;         ///< the input bytes (decode cases; empty for encode cases)
  std::string answer;  ///< `error:<message>` or `ok:[U+...]`
};

/// Facts measured on one corpus file.
struct CorpusFacts {
  std::string name;             ///< the file's name (never its machine-specific path)
  std::size_t documents = 0;    ///< heading lines `# ...`
  std::size_t bytes = 0;        ///< the file's size in bytes
  std::size_t code_points = 0;  ///< after UTF-8 decoding
  std::size_t non_ascii_bytes = 0;  ///< bytes 0x80–0xFF
  std::vector<int> byte_values;     ///< the distinct byte values used, ascending
};

/// The answers of the chapter's exercises, computed by the library.
struct Exercises {
  std::vector<Word> boundaries;         ///< 1: each boundary code point, encoded
  std::vector<Outcome> which_valid;     ///< 2: each byte string, decoded
  char32_t naive_slash = 0;             ///< 3: the bits of C0 AF, assembled unchecked
  Outcome overlong_slash;               ///< 3: what the real decoder says
  Word unseen;                          ///< 4: 日本 as bytes
  std::size_t unseen_bytes_in_kjv = 0;  ///< 4: how many of those byte values KJV uses
};

/// Everything the report and the trace print.
struct Evidence {
  std::vector<Word> words;           ///< kWords, encoded
  Word combining;                    ///< kCombining, encoded
  std::vector<Outcome> malformed;    ///< kMalformed, decoded
  std::vector<Outcome> unencodable;  ///< kUnencodable, encoded
  CorpusFacts tiny;                  ///< tiny_corpus.txt
  CorpusFacts kjv;                   ///< the pinned King James text
  Exercises exercises;               ///< the exercise answers
};

/// Runs the whole chapter once.
[[nodiscard]] Step<Evidence> gather();

/// `U+00E9` for a code point.
[[nodiscard]] std::string code_point_name(char32_t code_point);
/// `[U+0068,U+00E9]`.
[[nodiscard]] std::string code_point_list(const CodePoints& code_points);
/// The report, one `key=value` line per fact.
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The trace records the diagram is drawn from.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch01
