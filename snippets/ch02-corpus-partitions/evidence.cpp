// Chapter 2
#include "evidence.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <ranges>
#include <set>
#include <string_view>
#include <unordered_set>

namespace ch02 {

using llmfs::text::assign_partitions;
using llmfs::text::Document;
using llmfs::text::kSplits;

namespace {

// The text of a whole file (the pin, the manifest's head); empty if it cannot be read.
std::string file_text(const std::string& path) {
  std::ifstream stream(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(stream)),
                     std::istreambuf_iterator<char>());
}

// A document's placement, step by step as the rule computes it.
[[nodiscard]] Step<DocumentRow> place(const Document& document) {
  const std::uint64_t bucket =
      LLMFS_TRY_AT("place a document", llmfs::text::title_bucket(document.title));
  return DocumentRow{document.title, llmfs::text::document_bytes(document),
                     llmfs::text::sha256_hex(document.title).substr(0, 16), bucket,
                     llmfs::text::split_of_bucket(bucket)};
}

// The hash on the first line of tools/corpus.sha256 that is not a comment.
std::string pinned_hash(const std::string& text) {
  for (const auto line : std::views::split(text, '\n'))
    if (const std::string_view v(line); !v.empty() && v[0] != '#')
      return std::string(v.substr(0, v.find(' ')));
  return {};
}

// The first lines of the manifest up to its first document, tabs shown as `\t`.
std::vector<std::string> manifest_head(const std::string& text) {
  std::vector<std::string> head;
  for (const auto line : std::views::split(text, '\n')) {
    std::string shown;
    for (char c : line)
      shown += c == '\t' ? std::string("\\t") : std::string(1, c);
    head.push_back(shown);
    if (head.size() == 8) break;
  }
  return head;
}

// The book of a chapter's title: "1 John 4" -> "1 John".
std::string_view book_of(std::string_view title) {
  return title.substr(0, title.rfind(' '));
}

}  // namespace

// region: prove-partition
// Counts, never assumes: how often each document occurs across the three lists, whether
// the lists ascend, whether the rule gives the same lists, and each split's size.
PartitionProof prove_partition(const Corpus& corpus, const Partitions& p,
                               const Partitions& rule) {
  PartitionProof proof;
  proof.documents = corpus.documents.size();
  std::vector<std::size_t> times(proof.documents, 0);
  proof.ascending = true;
  for (Split split : kSplits) {
    const auto& list = llmfs::text::indices(p, split);
    SplitFacts facts{split, list.size(), 0};
    for (std::size_t k = 0; k < list.size(); ++k) {
      ++times.at(list[k]);
      facts.bytes += llmfs::text::document_bytes(corpus.documents.at(list[k]));
      if (k > 0 && list[k - 1] >= list[k]) proof.ascending = false;
    }
    proof.listed += list.size();
    proof.bytes += facts.bytes;
    proof.splits.push_back(facts);
  }
  proof.listed_once = static_cast<std::size_t>(std::ranges::count(times, 1));
  proof.unlisted = static_cast<std::size_t>(std::ranges::count(times, 0));
  proof.overlaps = proof.documents - proof.listed_once - proof.unlisted;
  proof.matches_rule = rule == p;
  return proof;
}
// endregion: prove-partition

// Each broken input through the library; failure is the expected answer, kept as text.
template <class T, class E>
Outcome outcome(std::string_view name, const std::expected<T, E>& result) {
  return Outcome{std::string(name),
                 result ? "ok" : fmt::format("error:{}", result.error())};
}

std::vector<Outcome> corpus_outcomes() {
  std::vector<Outcome> outcomes;
  for (const TextCase& c : kBrokenCorpora)
    outcomes.push_back(outcome(c.name, llmfs::text::parse_corpus(c.text, "case.txt")));
  outcomes.push_back(outcome("unreadable", llmfs::text::read_corpus(kMissingCorpus)));
  return outcomes;
}

std::vector<Outcome> manifest_outcomes(const Corpus& fixture) {
  const std::string hash_line =
      "corpus_sha256\t" + llmfs::text::corpus_sha256(fixture) + "\n";
  std::vector<Outcome> outcomes;
  for (const TextCase& c : kBrokenManifests) {
    std::string text(c.text);
    if (text.starts_with("{hash}")) text.replace(0, 6, hash_line);
    outcomes.push_back(
        outcome(c.name, llmfs::text::parse_partitions(text, "case.tsv", fixture)));
  }
  outcomes.push_back(
      outcome("unreadable", llmfs::text::read_partitions(kMissingManifest, fixture)));
  return outcomes;
}

namespace {

// region: exercises
// Every answer from the library: the hand bucket, expected split sizes, books under two
// rules, a document appended, a document renamed under the committed manifest.
[[nodiscard]] Step<Exercises> solve_exercises(const Corpus& fixture, const Corpus& kjv,
                                              const Partitions& p) {
  Exercises x;
  x.hand = LLMFS_TRY(place(Document{std::string(kHandTitle), {}}));
  x.hand_integer = std::stoull(x.hand.hash_prefix, nullptr, 16);
  const double d = static_cast<double>(kjv.documents.size());
  for (Split split : kSplits) {
    const double share = split == Split::train        ? 0.90
                         : split == Split::validation ? 0.05
                                                      : 0.05;
    x.expected.push_back({split, d * share, std::sqrt(d * share * (1 - share)),
                          llmfs::text::indices(p, split).size()});
  }
  std::set<std::string_view> hash_books, tail_books;
  for (std::size_t i : p.test)
    hash_books.insert(book_of(kjv.documents[i].title));
  x.tail_documents = static_cast<std::size_t>(std::lround(kTailShare * d));
  for (std::size_t i = kjv.documents.size() - x.tail_documents;
       i < kjv.documents.size(); ++i)
    tail_books.insert(book_of(kjv.documents[i].title));
  x.books_hash_test = hash_books.size();
  x.books_tail_test = tail_books.size();
  Corpus grown = fixture;
  grown.documents.push_back({std::string(kAppendedTitle), "1 welcome back\n"});
  const Partitions before = LLMFS_TRY_AT("fixture rule", assign_partitions(fixture));
  const Partitions after = LLMFS_TRY_AT("grown rule", assign_partitions(grown));
  for (Split split : kSplits)
    for (std::size_t i : llmfs::text::indices(before, split))
      x.moved_after_append += !std::ranges::binary_search(indices(after, split), i);
  x.appended = LLMFS_TRY(place(grown.documents.back()));
  Corpus renamed = fixture;
  for (Document& document : renamed.documents)
    if (document.title == kRenamedFrom) document.title = kRenamedTo;
  x.renamed = outcome("renamed", llmfs::text::parse_partitions(
                                     llmfs::text::format_manifest(fixture, before),
                                     "fixture.tsv", renamed));
  return x;
}
// endregion: exercises

// region: leakage-tally
// How many lines of one document are test lines, and how many of those have a train
// line just before or after them.
void tally(const std::vector<Split>& split, std::size_t& test_lines,
           std::size_t& near_train) {
  for (std::size_t k = 0; k < split.size(); ++k) {
    if (split[k] != Split::test) continue;
    ++test_lines;
    near_train += (k > 0 && split[k - 1] == Split::train) ||
                  (k + 1 < split.size() && split[k + 1] == Split::train);
  }
}
// endregion: leakage-tally

// region: leakage
// The misconception, measured: the same lines split two ways, each line hashed alone
// ("Title:k") or with its document. How many test lines have a neighbour in train, and
// how many test verses occur word for word in a training document?

[[nodiscard]] Step<Leakage> measure_leakage(const Corpus& kjv, const Partitions& p) {
  Leakage leak;
  std::vector<Split> split_of(kjv.documents.size(), Split::train);
  for (Split split : kSplits)
    for (std::size_t i : llmfs::text::indices(p, split))
      split_of[i] = split;
  std::unordered_set<std::string_view> train_verses;
  for (std::size_t i : p.train)
    for (const auto line : std::views::split(kjv.documents[i].text, '\n'))
      if (const std::string_view v(line); !v.empty())
        train_verses.insert(v.substr(v.find(' ') + 1));
  for (std::size_t i = 0; i < kjv.documents.size(); ++i) {
    std::vector<Split> by_line, by_document;
    for (const auto line : std::views::split(kjv.documents[i].text, '\n')) {
      const std::string_view verse(line);
      if (verse.empty()) continue;
      const std::uint64_t bucket = LLMFS_TRY_AT(
          "hash a line", llmfs::text::title_bucket(fmt::format(
                             "{}:{}", kjv.documents[i].title, by_line.size())));
      by_line.push_back(llmfs::text::split_of_bucket(bucket));
      by_document.push_back(split_of[i]);
      if (split_of[i] == Split::test)
        leak.test_lines_verbatim +=
            train_verses.contains(verse.substr(verse.find(' ') + 1));
    }
    tally(by_line, leak.line_split_test_lines, leak.line_split_neighbour);
    tally(by_document, leak.test_lines, leak.test_lines_neighbour);
  }
  return leak;
}
// endregion: leakage

}  // namespace

// The fixture by the rule, the broken inputs, then the King James text with the
// committed manifest (read_partitions checks the hash and every document), and the
// exercises and the misconception on both.
Step<Evidence> gather() {
  Evidence e;
  const Corpus fixture = LLMFS_TRY_AT(
      "fixture corpus", llmfs::text::read_corpus(LLMFS_FIXTURE_CORPUS_PATH));
  for (const Document& document : fixture.documents)
    e.fixture_rows.push_back(LLMFS_TRY(place(document)));
  const Partitions fixture_rule =
      LLMFS_TRY_AT("fixture rule", llmfs::text::assign_partitions(fixture));
  e.fixture = prove_partition(fixture, fixture_rule, fixture_rule);
  e.corpus_errors = corpus_outcomes();
  e.manifest_errors = manifest_outcomes(fixture);
  const auto [kjv, partitions] = LLMFS_TRY_AT(
      "course corpus",
      llmfs::text::read_partitioned_corpus(LLMFS_CORPUS_PATH, LLMFS_PARTITIONS_PATH));
  e.kjv_sha256 = llmfs::text::corpus_sha256(kjv);
  e.pinned_sha256 = pinned_hash(file_text(LLMFS_CORPUS_PIN_PATH));
  e.manifest_head = manifest_head(file_text(LLMFS_PARTITIONS_PATH));
  const Partitions kjv_rule =
      LLMFS_TRY_AT("course rule", llmfs::text::assign_partitions(kjv));
  e.kjv = prove_partition(kjv, partitions, kjv_rule);
  e.exercises = LLMFS_TRY(solve_exercises(fixture, kjv, partitions));
  e.leakage = LLMFS_TRY(measure_leakage(kjv, partitions));
  return e;
}

// region: regenerate
// `--write-manifest PATH`: the rule applied to the corpus, written atomically.
Step<std::size_t> regenerate_manifest(const std::string& corpus_path,
                                      const std::string& out) {
  const Corpus corpus =
      LLMFS_TRY_AT("read corpus", llmfs::text::read_corpus(corpus_path));
  const Partitions partitions =
      LLMFS_TRY_AT("partition rule", llmfs::text::assign_partitions(corpus));
  LLMFS_TRY_AT("write manifest", llmfs::text::write_manifest(out, corpus, partitions));
  return corpus.documents.size();
}
// endregion: regenerate

}  // namespace ch02
