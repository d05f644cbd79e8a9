// Chapter 4
#pragma once
// Chapter 4's program: every value its report and trace print, gathered once from the
// library (src/llmfs/text/tokenizer.hpp), and the functions that render them.

#include <string>
#include <vector>

#include <llmfs/text/tokenizer.hpp>

#include "../common/chapter.hpp"
#include "fixture.hpp"

namespace ch04 {

using llmfs::text::MergeStep;
using llmfs::text::Tokenizer;
using snippets::Step;
using Ids = std::vector<TokenId>;

/// A tokenizer's id layout: M merges, then BOS and EOS; V = 258 + M.
struct Layout {
  std::size_t merges = 0;  ///< M
  TokenId bos = 0;         ///< 256 + M
  TokenId eos = 0;         ///< 257 + M
  std::size_t vocab = 0;   ///< V
};

/// A text, its ids and each id's bytes, and whether it survives the round trip.
struct Encoded {
  std::string text;                 ///< the input
  Ids ids;                          ///< encode(text)
  std::vector<std::string> pieces;  ///< the bytes of each id
  bool naive_agrees = false;        ///< encode_naive(text) == ids
  bool round_trip = false;          ///< decode(ids) == text
};

/// One chunk of the prediction and every merge the encoder applied to it.
struct ChunkTrace {
  std::string chunk;             ///< the chunk's bytes
  std::vector<MergeStep> steps;  ///< in the order they were applied
};

/// One push of ids into a streaming decoder and what came out.
struct Push {
  Ids ids;               ///< the ids pushed
  std::string answer;    ///< `text:<emitted>` or `error:<message>`
  std::size_t held = 0;  ///< bytes held after the push
};

/// What the streaming decoder did with the fixture.
struct Streaming {
  std::vector<Push> byte_by_byte;  ///< kStreamText, one byte token per push
  std::size_t split_points = 0;    ///< cuts tried: every point of kStreamText's ids
  std::size_t whole_splits = 0;  ///< cuts whose two pieces were whole UTF-8 and joined
  std::vector<Push> overlong;    ///< E0 (held), then 80: an error, state unchanged
  std::string unfinished_end;    ///< finish() after F0 9F: the error it names
  std::string strict_split;      ///< decode() of h + C3: the error it names
};

/// A damaged merges file and the error read_merges/parse_merges named.
struct FileCase {
  std::string name;   ///< the case
  std::string error;  ///< the formatted error
};

/// The answers of the chapter's exercises, computed by the library.
struct Exercises {
  Encoded slower;                   ///< 1: " slower" with the hand table
  Layout fixture_layout;            ///< 2: M = 8
  Layout course_layout;             ///< 2: M = 3838
  Encoded newer;                    ///< 3: the rank rule on " newer"
  std::vector<std::string> greedy;  ///< 3: a greedy longest match on " newer"
  std::vector<Push> euro;           ///< 4: € one byte at a time
};

/// The course tokenizer on one partition of the King James corpus.
struct SplitFacts {
  std::string name;            ///< train, validation or test
  std::size_t documents = 0;   ///< documents in the partition
  std::size_t bytes = 0;       ///< their text's bytes
  std::size_t tokens = 0;      ///< their ids
  std::size_t round_trip = 0;  ///< documents whose decode(encode(text)) == text
};

/// The committed course tokenizer, measured on the real corpus.
struct CourseFacts {
  Layout layout;                   ///< V = 4,096
  std::vector<SplitFacts> splits;  ///< train, validation, test
  std::string longest;             ///< the longest token's bytes
  TokenId longest_id = 0;          ///< its id
};

/// Everything the report and the trace print.
struct Evidence {
  Layout layout;                        ///< the hand table's
  std::vector<std::string> token_text;  ///< [V] bytes of each id of the hand table
  Encoded predict;                      ///< kPredictText
  std::vector<ChunkTrace> chunks;       ///< kPredictText's chunks, merge by merge
  Encoded rank_vs_greedy;               ///< "abc" with (b,c) before (a,b)
  Encoded no_merges;                    ///< kStreamText with a zero-merge tokenizer
  Encoded empty, nul;                   ///< "" and "\0"
  std::string merges_file;              ///< format_merges of the hand table
  bool file_round_trip = false;         ///< parse_merges(format_merges(t)) == t
  std::vector<FileCase> damaged;        ///< every error of the merges file
  Streaming streaming;                  ///< the streaming decoder's cases
  CourseFacts course;                   ///< tools/kjv-4096.merges on the corpus
  Exercises exercises;                  ///< the exercise answers
};

/// The hand table as a MergeTable.
[[nodiscard]] llmfs::text::MergeTable low_table();
/// Encodes `text` and checks the round trip and the naive encoder.
[[nodiscard]] Step<Encoded> encode_case(const Tokenizer& tokenizer,
                                        std::string_view text);
/// A greedy longest-match tokenizer (exercise 3's foil): from the left, the longest
/// token of `tokenizer` whose bytes start the rest of `text`.
[[nodiscard]] std::vector<std::string> greedy_longest_match(const Tokenizer& tokenizer,
                                                            std::string_view text);
/// Everything but the course tokenizer's corpus facts (fast enough for the tests).
[[nodiscard]] Step<Evidence> gather_fixture();
/// Runs the whole chapter once.
[[nodiscard]] Step<Evidence> gather();

/// The report, one `key=value` line per fact.
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The trace records the diagram is drawn from.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch04
