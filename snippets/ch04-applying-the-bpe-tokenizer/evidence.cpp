// Chapter 4
#include "evidence.hpp"

#include <algorithm>
#include <span>

#include <llmfs/text/chunks.hpp>
#include <llmfs/text/merges_file.hpp>
#include <llmfs/text/partition.hpp>
#include <llmfs/text/stream_decoder.hpp>

namespace ch04 {

using llmfs::text::MergeTable;
using llmfs::text::StreamingDecoder;

MergeTable low_table() {
  return {{kLowMerges.begin(), kLowMerges.end()}};
}

namespace {

[[nodiscard]] Layout layout_of(const Tokenizer& t) {
  return {t.merges().merges.size(), t.bos(), t.eos(), t.vocab_size()};
}

[[nodiscard]] std::string answer_of(
    const std::expected<std::string, llmfs::text::TokenizerError>& r) {
  return r ? fmt::format("text:\"{}\"", *r) : fmt::format("error:{}", r.error());
}

}  // namespace

// region: encode-case
// A text through the library: its ids, each id's bytes, the naive encoder's verdict
// and the round trip through decode().
Step<Encoded> encode_case(const Tokenizer& tokenizer, std::string_view text) {
  Encoded e{std::string(text), tokenizer.encode(text), {}, false, false};
  for (TokenId id : e.ids)
    e.pieces.emplace_back(tokenizer.token_bytes(id));
  e.naive_agrees = tokenizer.encode_naive(text) == e.ids;
  e.round_trip = LLMFS_TRY_AT("decode fixture", tokenizer.decode(e.ids)) == text;
  return e;
}
// endregion: encode-case

namespace {

// The streaming decoder on the fixture: one byte token at a time, every two-push split
// of the whole text, a byte that rules a held prefix out, and a stream cut short.
[[nodiscard]] Streaming stream_cases(const Tokenizer& bytes) {
  Streaming s;
  const Ids ids = bytes.encode(kStreamText);
  StreamingDecoder one(bytes);
  for (TokenId id : ids)
    s.byte_by_byte.push_back({{id}, answer_of(one.push(Ids{id})), one.held_bytes()});
  for (std::size_t cut = 0; cut <= ids.size(); ++cut, ++s.split_points) {
    StreamingDecoder two(bytes);
    const auto first = two.push(std::span(ids).first(cut));
    const auto second = two.push(std::span(ids).subspan(cut));
    const bool whole = first && second && bytes.decode(bytes.encode(*first)) &&
                       *first + *second == kStreamText && two.finish();
    s.whole_splits += whole ? 1 : 0;
  }
  StreamingDecoder bad(bytes);
  for (TokenId id : {0xE0, 0x80})
    s.overlong.push_back({{id}, answer_of(bad.push(Ids{id})), bad.held_bytes()});
  StreamingDecoder cut(bytes);
  const auto started = cut.push(Ids{'x', 0xF0, 0x9F});
  const auto end = cut.finish();
  s.unfinished_end = started && !end ? fmt::format("{}", end.error()) : "no error";
  s.strict_split = answer_of(bytes.decode(Ids{'h', 0xC3}));
  return s;
}

// region: damaged-files
// Each damage applied to the hand table's merges file, and the error the reader names.
[[nodiscard]] std::vector<FileCase> damaged_cases(const std::string& good) {
  std::vector<FileCase> cases;
  for (const DamagedFile& d : kDamagedFiles) {
    std::string text = good;
    if (!d.find.empty()) text.replace(text.find(d.find), d.find.size(), d.replace);
    std::size_t kept = 0;
    for (int line = 0; line < d.keep_lines; ++line)
      kept = text.find('\n', kept) + 1;
    if (d.keep_lines > 0) text.resize(kept);
    const auto parsed = llmfs::text::parse_merges(text, kDamagedName);
    cases.push_back(
        {std::string(d.name), parsed ? "accepted" : fmt::format("{}", parsed.error())});
  }
  const auto missing = llmfs::text::read_merges(kMissingFile);
  cases.push_back(
      {"missing_file", missing ? "accepted" : fmt::format("{}", missing.error())});
  return cases;
}
// endregion: damaged-files

}  // namespace

namespace {

// region: course-facts
// The committed tokenizer on every partition: ids, bytes, and the round trip of every
// document; and its longest token.
[[nodiscard]] Step<CourseFacts> measure_course() {
  const auto merges =
      LLMFS_TRY_AT("course tokenizer", llmfs::text::read_merges(LLMFS_TOKENIZER_PATH));
  const Tokenizer t = LLMFS_TRY_AT("course tokenizer", Tokenizer::create(merges));
  const auto loaded = LLMFS_TRY_AT(
      "corpus",
      llmfs::text::read_partitioned_corpus(LLMFS_CORPUS_PATH, LLMFS_PARTITIONS_PATH));
  CourseFacts c{layout_of(t), {}, {}, 0};
  const auto& p = loaded.partitions;
  for (const auto& [name, indices] : {std::pair{"train", &p.train},
                                      {"validation", &p.validation},
                                      {"test", &p.test}}) {
    SplitFacts f{name, indices->size(), 0, 0, 0};
    for (std::size_t index : *indices) {
      const std::string& text = loaded.corpus.documents[index].text;
      const Ids ids = t.encode(text);
      f.bytes += text.size();
      f.tokens += ids.size();
      f.round_trip += t.decode(ids) == text ? 1 : 0;
    }
    c.splits.push_back(f);
  }
  for (TokenId id = 0; id < t.bos(); ++id)
    if (t.token_bytes(id).size() > c.longest.size())
      c.longest = t.token_bytes(id), c.longest_id = id;
  return c;
}
// endregion: course-facts

}  // namespace

// region: exercise-greedy
// Exercise 3's foil: at each position take the longest token whose bytes start the
// rest of the text. It knows the vocabulary but not the ranks.
std::vector<std::string> greedy_longest_match(const Tokenizer& tokenizer,
                                              std::string_view text) {
  std::vector<std::string> pieces;
  while (!text.empty()) {
    std::string_view best = text.substr(0, 1);
    for (TokenId id = 0; id < tokenizer.bos(); ++id) {
      const std::string_view piece = tokenizer.token_bytes(id);
      if (piece.size() > best.size() && text.starts_with(piece)) best = piece;
    }
    pieces.emplace_back(best);
    text.remove_prefix(best.size());
  }
  return pieces;
}
// endregion: exercise-greedy

namespace {

// region: exercises
// Encode " slower" by hand; the layouts for M = 8 and M = 3,838 (a chain of merges of
// that length); the rank rule against a greedy longest match; € byte by byte.
[[nodiscard]] Step<Exercises> solve_exercises(const Tokenizer& low,
                                              const Tokenizer& bytes) {
  Exercises x;
  x.slower = LLMFS_TRY(encode_case(low, kSlower));
  x.fixture_layout = layout_of(low);
  MergeTable chain;
  for (std::size_t r = 0; r < kCourseMerges; ++r)
    chain.merges.push_back({r == 0 ? 'a' : MergeTable::token_of_rank(r - 1), 'a'});
  x.course_layout = layout_of(LLMFS_TRY_AT("course layout", Tokenizer::create(chain)));
  x.newer = LLMFS_TRY(encode_case(low, kNewer));
  x.greedy = greedy_longest_match(low, kNewer);
  StreamingDecoder euro(bytes);
  for (TokenId id : kEuroBytes)
    x.euro.push_back({{id}, answer_of(euro.push(Ids{id})), euro.held_bytes()});
  return x;
}
// endregion: exercises

}  // namespace

// The chapter in one pass: the hand table and its layout, the prediction merge by
// merge, the edge cases, the merges file and its errors, the streaming decoder.
Step<Evidence> gather_fixture() {
  Evidence e;
  const Tokenizer low = LLMFS_TRY_AT("hand table", Tokenizer::create(low_table()));
  const Tokenizer bytes = LLMFS_TRY_AT("no merges", Tokenizer::create({}));
  e.layout = layout_of(low);
  for (TokenId id = 0; id < static_cast<TokenId>(low.vocab_size()); ++id)
    e.token_text.emplace_back(low.token_bytes(id));
  e.predict = LLMFS_TRY(encode_case(low, kPredictText));
  for (std::string_view chunk : llmfs::text::split_chunks(kPredictText))
    e.chunks.push_back({std::string(chunk), low.encode_steps(chunk)});
  const Tokenizer abc =
      LLMFS_TRY_AT("abc table", Tokenizer::create({{{'b', 'c'}, {'a', 'b'}}}));
  e.rank_vs_greedy = LLMFS_TRY(encode_case(abc, "abc"));
  e.no_merges = LLMFS_TRY(encode_case(bytes, kStreamText));
  e.empty = LLMFS_TRY(encode_case(low, ""));
  e.nul = LLMFS_TRY(encode_case(low, std::string_view("\0", 1)));
  e.merges_file = llmfs::text::format_merges(low.merges());
  e.file_round_trip =
      llmfs::text::parse_merges(e.merges_file, kDamagedName) == low.merges();
  e.damaged = damaged_cases(e.merges_file);
  e.streaming = stream_cases(bytes);
  e.exercises = LLMFS_TRY(solve_exercises(low, bytes));
  return e;
}

// Then the committed course tokenizer on the real corpus.
Step<Evidence> gather() {
  Evidence e = LLMFS_TRY(gather_fixture());
  e.course = LLMFS_TRY(measure_course());
  return e;
}

}  // namespace ch04
