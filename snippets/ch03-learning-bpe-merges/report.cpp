// Chapter 3
// The report, one `key=value` line per fact, and the trace records of the diagram.
#include <fmt/ranges.h>

#include "evidence.hpp"

namespace ch03 {

namespace {

// `(97,116)` for a pair of ids.
std::string ids(const TokenPair& pair) {
  return fmt::format("({},{})", pair.left, pair.right);
}

// `at:4 he:3 the:3`: each learned token's bytes and the count that chose it.
std::string learned(const Training& t, std::size_t limit = SIZE_MAX) {
  std::vector<std::string> items;
  for (std::size_t r = 0; r < std::min(limit, t.fast.counts.size()); ++r)
    items.push_back(fmt::format("{}:{}", show(t.tokens[llmfs::text::kByteTokens + r]),
                                t.fast.counts[r]));
  return fmt::format("{}", fmt::join(items, " "));
}

// `[(97,116),(104,101)]`: a trainer's merges as ids.
std::string merge_ids(const BpeTraining& t) {
  std::vector<std::string> items;
  for (const TokenPair& pair : t.table.merges)
    items.push_back(ids(pair));
  return fmt::format("[{}]", fmt::join(items, ","));
}

// `a+t` for the bytes of a pair, from the learned tokens.
std::string pair_bytes(const Training& t, const TokenPair& pair) {
  return show(t.tokens[pair.left]) + "+" + show(t.tokens[pair.right]);
}

}  // namespace

// The prediction: the fixture's chunks, each merge with the counts before it, the stop.
void add_fixture_lines(const Evidence& e, std::vector<std::string>& lines) {
  const FixtureRun& f = e.fixture;
  std::vector<std::string> chunks;
  for (const std::string& chunk : f.chunks)
    chunks.push_back(show(chunk));
  lines.push_back(fmt::format("fixture_chunks={} chunks: {}", chunks.size(),
                              fmt::join(chunks, " | ")));
  for (std::size_t r = 0; r < f.steps.size(); ++r) {
    const MergeStep& s = f.steps[r];
    std::vector<std::string> repeated;
    for (const Candidate& c : s.repeated)
      repeated.push_back(fmt::format("{}:{}", pair_bytes(f.training, c.pair), c.count));
    lines.push_back(
        fmt::format("merge_{}=pair:{}={} count:{} token:{}={} | counted twice or more: "
                    "{} | once: {}",
                    r + 1, ids(s.pair), pair_bytes(f.training, s.pair), s.count,
                    MergeTable::token_of_rank(r), show(f.training.tokens[256 + r]),
                    fmt::join(repeated, " "), s.single_pairs));
  }
  lines.push_back(fmt::format(
      "fixture_stop={} after {} merges; {} pairs left, each once",
      describe(f.training.fast.stop), f.steps.size(), f.after.single_pairs));
  std::int64_t saved = 0;
  for (std::int64_t count : f.training.fast.counts)
    saved += count;
  lines.push_back(
      fmt::format("misconception=fixture bytes:{} tokens after {} merges:{} "
                  "sum of merge counts:{}",
                  f.bytes, f.steps.size(), f.tokens_after, saved));
  lines.push_back(fmt::format("fixture_trainers=fast:{} naive:{}",
                              merge_ids(f.training.fast), merge_ids(f.training.naive)));
}

// The rule cases, the refused vocabulary sizes and the empty corpus.
void add_rule_lines(const Evidence& e, std::vector<std::string>& lines) {
  lines.push_back(fmt::format("rule_run=text:{} learned:{} stop:{}",
                              show(std::string(kRunCase)), learned(e.run_case),
                              describe(e.run_case.fast.stop)));
  lines.push_back(fmt::format("rule_tie=text:{} learned:{} merges:{}",
                              show(std::string(kTieCase)), learned(e.tie_case),
                              merge_ids(e.tie_case.fast)));
  for (std::size_t i = 0; i < kVocabCases.size(); ++i)
    lines.push_back(fmt::format("vocab_{}={}", kVocabCases[i], e.vocab_outcomes[i]));
  lines.push_back(fmt::format("empty_corpus=merges:{} stop:{}",
                              e.empty.fast.table.merges.size(),
                              describe(e.empty.fast.stop)));
}

// Then the training partition, the slice both trainers learned, the exercise answers.
void add_measured_lines(const Evidence& e, std::vector<std::string>& lines) {
  const CorpusRun& c = e.corpus;
  lines.push_back(
      fmt::format("kjv_train=documents:{} of {} bytes:{} chunks:{} distinct:{} most "
                  "frequent:{} x{}",
                  c.documents, c.corpus_documents, c.bytes, c.chunks, c.distinct_chunks,
                  show(c.top_chunk), c.top_chunk_count));
  lines.push_back(
      fmt::format("kjv_slice=documents:{} bytes:{} vocab_size:{} merges:{} stop:{}",
                  kSliceDocuments, c.slice_bytes, kSliceVocab,
                  c.slice.fast.table.merges.size(), describe(c.slice.fast.stop)));
  lines.push_back(fmt::format("kjv_slice_first={}", learned(c.slice, kSliceShown)));
  lines.push_back(fmt::format("kjv_slice_last={}:{}", show(c.slice.tokens.back()),
                              c.slice.fast.counts.back()));
  lines.push_back(
      fmt::format("kjv_slice_agreement={} of {} merges identical (naive {} merges)",
                  c.identical_merges, c.slice.fast.table.merges.size(),
                  c.slice.naive.table.merges.size()));
  const Exercises& x = e.exercises;
  lines.push_back(
      fmt::format("exercise_1=aaaaa: (a,a) counted {} (every adjacent pair: {})",
                  x.run_count, x.overlapping_count));
  lines.push_back(fmt::format(
      "exercise_2=best pair once stopped: {}={} count:{}", ids(x.fourth.pair),
      pair_bytes(e.fixture.training, x.fourth.pair), x.fourth.count));
  lines.push_back(fmt::format("exercise_3=vocab_size:{} merges:{} stop:{}",
                              kTwoMergeVocab, merge_ids(x.two_merges),
                              describe(x.two_merges.stop)));
  lines.push_back(
      fmt::format("exercise_4=vocab_size:{} merges:{}", kCourseVocab, x.course_merges));
}

std::string render_report(const Evidence& e) {
  std::vector<std::string> lines;
  add_fixture_lines(e, lines);
  add_rule_lines(e, lines);
  add_measured_lines(e, lines);
  return snippets::join_lines(lines);
}

// CHUNK per fixture chunk; per merge a STEP, a CANDIDATE per pair counted twice or
// more (chosen=1 for the merge) and a SEGMENT per chunk after it; STOP at the end.
std::string render_trace(const Evidence& e) {
  const FixtureRun& f = e.fixture;
  std::vector<std::string> records;
  for (std::size_t i = 0; i < f.chunks.size(); ++i)
    records.push_back(fmt::format("CHUNK|index={}|text={}", i, show(f.chunks[i])));
  for (std::size_t r = 0; r < f.steps.size(); ++r) {
    const MergeStep& s = f.steps[r];
    records.push_back(
        fmt::format("STEP|rank={}|token={}|pair={}|bytes={}|count={}|once={}", r,
                    MergeTable::token_of_rank(r), ids(s.pair),
                    show(f.training.tokens[256 + r]), s.count, s.single_pairs));
    for (const Candidate& c : s.repeated)
      records.push_back(fmt::format(
          "CANDIDATE|rank={}|pair={}|bytes={}|count={}|chosen={}", r, ids(c.pair),
          pair_bytes(f.training, c.pair), c.count, c.pair == s.pair ? 1 : 0));
    for (std::size_t i = 0; i < s.segments.size(); ++i)
      records.push_back(
          fmt::format("SEGMENT|rank={}|chunk={}|tokens={}", r, i, s.segments[i]));
  }
  records.push_back(fmt::format("STOP|reason={}|merges={}|once={}",
                                describe(f.training.fast.stop), f.steps.size(),
                                f.after.single_pairs));
  return snippets::join_lines(records);
}

}  // namespace ch03
