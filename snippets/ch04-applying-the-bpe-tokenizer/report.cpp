// Chapter 4
// The report, one `key=value` line per fact, and the trace records of the diagram.
#include <fmt/ranges.h>

#include "evidence.hpp"

namespace ch04 {

namespace {

// `"lo"`: a token's bytes in quotes, with newlines, controls and non-ASCII bytes as
// \xHH escapes (a token may hold half a character).
std::string escaped(std::string_view bytes) {
  std::string out = "\"";
  for (char c : bytes) {
    const auto byte = static_cast<unsigned char>(c);
    out += byte >= 0x20 && byte < 0x7F ? std::string(1, c)
                                       : fmt::format("\\x{:02X}", byte);
  }
  return out + "\"";
}

std::string escaped_list(const std::vector<std::string>& pieces) {
  std::vector<std::string> shown;
  for (const std::string& p : pieces)
    shown.push_back(escaped(p));
  return fmt::format("[{}]", fmt::join(shown, ","));
}

std::string encoded_line(std::string_view key, const Encoded& e) {
  return fmt::format(
      "{}=text:{} ids:[{}] pieces:{} tokens:{} bytes:{} naive:{} round_trip:{}", key,
      escaped(e.text), fmt::join(e.ids, ","), escaped_list(e.pieces), e.ids.size(),
      e.text.size(), e.naive_agrees ? "agrees" : "DIFFERS",
      e.round_trip ? "exact" : "BROKEN");
}

std::string layout_line(std::string_view key, const Layout& l) {
  return fmt::format(
      "{}=merges:{} bytes:0..255 merge_ids:256..{} bos:{} eos:{} vocab:{}", key,
      l.merges, 255 + l.merges, l.bos, l.eos, l.vocab);
}

std::string push_line(std::string_view key, const Push& p) {
  return fmt::format("{}=ids:[{}] {} held:{}", key, fmt::join(p.ids, ","), p.answer,
                     p.held);
}

// `lo(r0) low(r1) er(r2)`: the token each merge of a chunk made, with its rank.
std::string steps_text(const Evidence& e, const ChunkTrace& c) {
  std::vector<std::string> steps;
  for (const MergeStep& s : c.steps)
    steps.push_back(
        fmt::format("{}(r{})", escaped(e.token_text[256 + s.rank]), s.rank));
  return steps.empty() ? "none" : fmt::format("{}", fmt::join(steps, " "));
}

}  // namespace

// The hand table and its layout, the prediction and its chunks merge by merge, the
// edge cases, the merges file and every error it can raise.
void add_fixture_lines(const Evidence& e, std::vector<std::string>& lines) {
  lines.push_back(layout_line("layout", e.layout));
  for (std::size_t r = 0; r < kLowMerges.size(); ++r)
    lines.push_back(fmt::format("merge_{}=pair:{}+{} token:{} bytes:{}", r,
                                kLowMerges[r].left, kLowMerges[r].right, 256 + r,
                                escaped(e.token_text[256 + r])));
  lines.push_back(encoded_line("predict", e.predict));
  for (std::size_t i = 0; i < e.chunks.size(); ++i)
    lines.push_back(fmt::format("chunk_{}={} merges:{}", i + 1,
                                escaped(e.chunks[i].chunk),
                                steps_text(e, e.chunks[i])));
  lines.push_back(encoded_line("rank_rule", e.rank_vs_greedy));
  lines.push_back(encoded_line("no_merges", e.no_merges));
  lines.push_back(encoded_line("empty", e.empty));
  lines.push_back(encoded_line("nul", e.nul));
  std::string_view file = e.merges_file;
  for (int line = 1; !file.empty(); ++line) {
    lines.push_back(
        fmt::format("merges_file.{}={}", line, file.substr(0, file.find('\n'))));
    file.remove_prefix(file.find('\n') + 1);
  }
  lines.push_back(
      fmt::format("merges_file_round_trip={}", e.file_round_trip ? "exact" : "BROKEN"));
  for (const FileCase& c : e.damaged)
    lines.push_back(fmt::format("damaged_{}=error:{}", c.name, c.error));
}

// The committed tokenizer: its layout, every partition, the round trip, the longest
// token.
void add_course_lines(const Evidence& e, std::vector<std::string>& lines) {
  lines.push_back(layout_line("course_tokenizer", e.course.layout));
  std::size_t documents = 0, exact = 0;
  for (const SplitFacts& f : e.course.splits) {
    lines.push_back(
        fmt::format("course_{}=documents:{} bytes:{} tokens:{} bytes_per_token:{:.3f}",
                    f.name, f.documents, f.bytes, f.tokens,
                    static_cast<double>(f.bytes) / static_cast<double>(f.tokens)));
    documents += f.documents;
    exact += f.round_trip;
  }
  lines.push_back(
      fmt::format("course_round_trip=documents:{} exact:{}", documents, exact));
  lines.push_back(fmt::format("course_longest_token=id:{} bytes:{} text:{}",
                              e.course.longest_id, e.course.longest.size(),
                              escaped(e.course.longest)));
}

// Then the streaming decoder and the exercises; the report is both groups of lines.
void add_stream_lines(const Evidence& e, std::vector<std::string>& lines) {
  const Streaming& s = e.streaming;
  for (std::size_t k = 0; k < s.byte_by_byte.size(); ++k)
    lines.push_back(push_line(fmt::format("stream_{}", k + 1), s.byte_by_byte[k]));
  lines.push_back(fmt::format("stream_splits=cuts:{} whole_and_joined:{}",
                              s.split_points, s.whole_splits));
  for (std::size_t k = 0; k < s.overlong.size(); ++k)
    lines.push_back(push_line(fmt::format("stream_overlong_{}", k + 1), s.overlong[k]));
  lines.push_back(fmt::format("stream_unfinished=error:{}", s.unfinished_end));
  lines.push_back(fmt::format("strict_decode_split={}", s.strict_split));
  const Exercises& x = e.exercises;
  lines.push_back(encoded_line("exercise_1", x.slower));
  lines.push_back(layout_line("exercise_2.fixture", x.fixture_layout));
  lines.push_back(layout_line("exercise_2.course", x.course_layout));
  lines.push_back(fmt::format("exercise_3=rank_rule:{} greedy_longest_match:{}",
                              escaped_list(x.newer.pieces), escaped_list(x.greedy)));
  for (std::size_t k = 0; k < x.euro.size(); ++k)
    lines.push_back(push_line(fmt::format("exercise_4.{}", k + 1), x.euro[k]));
}

std::string render_report(const Evidence& e) {
  std::vector<std::string> lines;
  add_fixture_lines(e, lines);
  add_stream_lines(e, lines);
  add_course_lines(e, lines);
  return snippets::join_lines(lines);
}

// region: trace-records
// TOKEN per merge of the hand table, CHUNK per chunk of the prediction, and STEP per
// state of that chunk: step 0 its bytes, step k the tokens after its k-th merge, with
// the merge's rank and the position of the token it made.
std::string render_trace(const Evidence& e) {
  std::vector<std::string> records;
  for (std::size_t r = 0; r < kLowMerges.size(); ++r)
    records.push_back(fmt::format("TOKEN|id={}|rank={}|left={}|right={}|bytes={}",
                                  256 + r, r, kLowMerges[r].left, kLowMerges[r].right,
                                  escaped(e.token_text[256 + r])));
  for (std::size_t c = 0; c < e.chunks.size(); ++c) {
    const ChunkTrace& chunk = e.chunks[c];
    records.push_back(fmt::format("CHUNK|chunk={}|text={}|bytes={}|merges={}", c,
                                  escaped(chunk.chunk), chunk.chunk.size(),
                                  chunk.steps.size()));
    Ids ids(chunk.chunk.begin(), chunk.chunk.end());
    std::vector<MergeStep> states{{-1, 0, ids}};
    states.insert(states.end(), chunk.steps.begin(), chunk.steps.end());
    for (std::size_t k = 0; k < states.size(); ++k) {
      std::vector<std::string> pieces;
      for (TokenId id : states[k].tokens)
        pieces.push_back(e.token_text[static_cast<std::size_t>(id)]);
      records.push_back(
          fmt::format("STEP|chunk={}|step={}|rank={}|position={}|ids=[{}]|pieces={}", c,
                      k, k == 0 ? "-" : fmt::format("{}", states[k].rank),
                      k == 0 ? "-" : fmt::format("{}", states[k].position),
                      fmt::join(states[k].tokens, ","), escaped_list(pieces)));
    }
  }
  return snippets::join_lines(records);
}
// endregion: trace-records

}  // namespace ch04
