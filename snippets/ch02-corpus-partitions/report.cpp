// Chapter 2
// The report, one `key=value` line per fact, and the trace records of the diagram.
#include <fmt/ranges.h>

#include "evidence.hpp"

namespace ch02 {

using llmfs::text::describe;

namespace {

std::string yes_no(bool value) {
  return value ? "yes" : "no";
}

std::string percent(std::size_t part, std::size_t whole) {
  return fmt::format("{:.2f}%", whole == 0 ? 0.0 : 100.0 * part / whole);
}

std::string row_line(std::string_view key, const DocumentRow& r) {
  return fmt::format("{}=title:{} bytes:{} sha256_prefix:{} bucket:{} split:{}", key,
                     r.title, r.bytes, r.hash_prefix, r.bucket, describe(r.split));
}

}  // namespace

// A partition's proof: each number counted by prove_partition(), then one line per
// split.
void add_proof_lines(std::string_view key, const PartitionProof& p,
                     std::vector<std::string>& lines) {
  lines.push_back(fmt::format(
      "{}_proof=documents:{} listed:{} listed_once:{} in_two_or_more:{} unlisted:{} "
      "ascending:{} matches_rule:{}",
      key, p.documents, p.listed, p.listed_once, p.overlaps, p.unlisted,
      yes_no(p.ascending), yes_no(p.matches_rule)));
  for (const SplitFacts& s : p.splits)
    lines.push_back(fmt::format(
        "{}_{}=documents:{} ({}) bytes:{} ({})", key, describe(s.split), s.documents,
        percent(s.documents, p.documents), s.bytes, percent(s.bytes, p.bytes)));
  lines.push_back(
      fmt::format("{}_bytes=total:{} sum_of_splits:{}", key, p.bytes,
                  p.splits[0].bytes + p.splits[1].bytes + p.splits[2].bytes));
}

void add_exercise_lines(const Evidence& e, std::vector<std::string>& lines);

// The fixture, the broken inputs, the King James text, the exercises, the
// misconception.
std::string render_report(const Evidence& e) {
  std::vector<std::string> lines;
  for (std::size_t d = 0; d < e.fixture_rows.size(); ++d)
    lines.push_back(row_line(fmt::format("fixture_doc_{}", d), e.fixture_rows[d]));
  add_proof_lines("fixture", e.fixture, lines);
  for (const Outcome& o : e.corpus_errors)
    lines.push_back(fmt::format("corpus_error_{}={}", o.name, o.answer));
  for (const Outcome& o : e.manifest_errors)
    lines.push_back(fmt::format("manifest_error_{}={}", o.name, o.answer));
  lines.push_back(fmt::format("kjv_sha256={} pinned:{} equal:{}", e.kjv_sha256,
                              e.pinned_sha256,
                              yes_no(e.kjv_sha256 == e.pinned_sha256)));
  for (std::size_t k = 0; k < e.manifest_head.size(); ++k)
    lines.push_back(fmt::format("manifest_line_{}={}", k + 1, e.manifest_head[k]));
  add_proof_lines("kjv", e.kjv, lines);
  add_exercise_lines(e, lines);
  return snippets::join_lines(lines);
}

// The exercise answers and the misconception's counts.
void add_exercise_lines(const Evidence& e, std::vector<std::string>& lines) {
  const Exercises& x = e.exercises;
  lines.push_back(
      fmt::format("exercise_1=title:{} sha256_prefix:{} integer:{} "
                  "bucket:{} split:{}",
                  x.hand.title, x.hand.hash_prefix, x.hand_integer, x.hand.bucket,
                  describe(x.hand.split)));
  for (const SplitExpectation& s : x.expected)
    lines.push_back(fmt::format(
        "exercise_2.{}=expected:{:.2f} standard_deviation:{:.2f} observed:{} z:{:.2f}",
        describe(s.split), s.expected, s.deviation, s.observed,
        (static_cast<double>(s.observed) - s.expected) / s.deviation));
  lines.push_back(
      fmt::format("exercise_3=books_in_hashed_test:{} books_in_last_{}_documents:{}",
                  x.books_hash_test, x.tail_documents, x.books_tail_test));
  lines.push_back(
      fmt::format("exercise_4=old_documents_moved:{} appended:{} bucket:{} "
                  "split:{}",
                  x.moved_after_append, x.appended.title, x.appended.bucket,
                  describe(x.appended.split)));
  lines.push_back(fmt::format("exercise_5={}", x.renamed.answer));
  const Leakage& l = e.leakage;
  lines.push_back(fmt::format(
      "misconception=line_split_test_lines:{} with_a_neighbour_in_train:{} ({}) "
      "document_split_test_lines:{} with_a_neighbour_in_train:{} "
      "verbatim_in_train:{} ({})",
      l.line_split_test_lines, l.line_split_neighbour,
      percent(l.line_split_neighbour, l.line_split_test_lines), l.test_lines,
      l.test_lines_neighbour, l.test_lines_verbatim,
      percent(l.test_lines_verbatim, l.test_lines)));
}

// region: trace-records
// RULE per split (its bucket range), DOC per fixture document (bytes, hash prefix,
// bucket, split) and SPLIT per partition of each corpus. The diagram reads these.
std::string render_trace(const Evidence& e) {
  std::vector<std::string> records;
  for (Split split : llmfs::text::kSplits) {
    const std::uint64_t first = split == Split::train ? 0
                                : split == Split::validation
                                    ? llmfs::text::kTrainBuckets
                                    : llmfs::text::kTrainValidationBuckets;
    const std::uint64_t end = split == Split::train ? llmfs::text::kTrainBuckets
                              : split == Split::validation
                                  ? llmfs::text::kTrainValidationBuckets
                                  : llmfs::text::kBuckets;
    records.push_back(
        fmt::format("RULE|split={}|first={}|last={}", describe(split), first, end - 1));
  }
  for (std::size_t d = 0; d < e.fixture_rows.size(); ++d) {
    const DocumentRow& r = e.fixture_rows[d];
    records.push_back(
        fmt::format("DOC|index={}|title={}|bytes={}|hash={}|bucket={}|split={}", d,
                    r.title, r.bytes, r.hash_prefix, r.bucket, describe(r.split)));
  }
  for (const auto& [name, proof] :
       {std::pair{"fixture", &e.fixture}, std::pair{"kjv", &e.kjv}})
    for (const SplitFacts& s : proof->splits)
      records.push_back(fmt::format(
          "SPLIT|corpus={}|split={}|documents={}|bytes={}|document_share={:.6f}|"
          "byte_share={:.6f}",
          name, describe(s.split), s.documents, s.bytes,
          static_cast<double>(s.documents) / proof->documents,
          static_cast<double>(s.bytes) / proof->bytes));
  return snippets::join_lines(records);
}
// endregion: trace-records

}  // namespace ch02
