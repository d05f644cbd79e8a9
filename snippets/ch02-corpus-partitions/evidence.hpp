// Chapter 2
#pragma once
// Chapter 2's program: the corpus reader and the partition manifest on the fixture and
// on the King James text, every value its report and trace print gathered once from
// the library (src/llmfs/text/corpus.hpp, partition.hpp).

#include <cstdint>
#include <string>
#include <vector>

#include <llmfs/text/corpus.hpp>
#include <llmfs/text/partition.hpp>

#include "../common/chapter.hpp"
#include "fixture.hpp"

namespace ch02 {

using llmfs::text::Corpus;
using llmfs::text::Partitions;
using llmfs::text::Split;
using snippets::Step;

/// One document of the fixture and how the rule places it.
struct DocumentRow {
  std::string title;         ///< its heading without "# "
  std::size_t bytes = 0;     ///< heading line + text, in bytes
  std::string hash_prefix;   ///< the first 16 hex digits of SHA-256(title)
  std::uint64_t bucket = 0;  ///< 0–99
  Split split{};             ///< from the bucket
};

/// The size of one partition.
struct SplitFacts {
  Split split{};              ///< which partition
  std::size_t documents = 0;  ///< how many documents it holds
  std::size_t bytes = 0;      ///< their bytes in the file
};

/// What is proved about a partition of a corpus, each number counted, not assumed.
struct PartitionProof {
  std::size_t documents = 0;       ///< documents in the corpus
  std::size_t bytes = 0;           ///< bytes in the corpus file
  std::size_t listed = 0;          ///< the three lists' lengths, summed
  std::size_t listed_once = 0;     ///< documents found in exactly one list
  std::size_t overlaps = 0;        ///< documents found in two or more lists
  std::size_t unlisted = 0;        ///< documents found in no list
  bool ascending = false;          ///< every list strictly ascending
  bool matches_rule = false;       ///< equal to assign_partitions() of the corpus
  std::vector<SplitFacts> splits;  ///< train, validation, test
};

/// A case and the library's answer: its error's text, or `ok`.
struct Outcome {
  std::string name;    ///< the case's name
  std::string answer;  ///< `error:<message>` or `ok:...`
};

/// Exercise 2: the expected size of a split against the one observed.
struct SplitExpectation {
  Split split{};             ///< which partition
  double expected = 0;       ///< D·p
  double deviation = 0;      ///< √(D·p·(1−p))
  std::size_t observed = 0;  ///< documents in the manifest
};

/// The answers of the chapter's exercises, computed by the library.
struct Exercises {
  DocumentRow hand;                        ///< 1: kHandTitle's hash, bucket, split
  std::uint64_t hand_integer = 0;          ///< 1: the 16 hex digits as an integer
  std::vector<SplitExpectation> expected;  ///< 2: per split, on the King James text
  std::size_t books_hash_test = 0;         ///< 3: books in the hashed test split
  std::size_t books_tail_test = 0;         ///< 3: books in the last 5 % of the file
  std::size_t tail_documents = 0;          ///< 3: documents in that last 5 %
  std::size_t moved_after_append = 0;      ///< 4: old documents whose split changed
  DocumentRow appended;                    ///< 4: the new document's placement
  Outcome renamed;  ///< 5: the old manifest on the renamed corpus
};

/// The misconception: a split of lines instead of documents.
struct Leakage {
  std::size_t test_lines = 0;             ///< verse lines in the test documents
  std::size_t test_lines_neighbour = 0;   ///< ... with a neighbouring line in train
  std::size_t line_split_test_lines = 0;  ///< test lines when each line is hashed alone
  std::size_t line_split_neighbour = 0;   ///< ... with a neighbouring line in train
  std::size_t test_lines_verbatim = 0;    ///< document split: test verse texts that
                                          ///< also occur word for word in train
};

/// Everything the report and the trace print.
struct Evidence {
  std::vector<DocumentRow> fixture_rows;   ///< fixture_corpus.txt, document by document
  PartitionProof fixture;                  ///< its partition by the rule
  std::vector<Outcome> corpus_errors;      ///< kBrokenCorpora and kMissingCorpus
  std::vector<Outcome> manifest_errors;    ///< kBrokenManifests and kMissingManifest
  std::string kjv_sha256;                  ///< corpus_sha256 of the King James text
  std::string pinned_sha256;               ///< the hash in tools/corpus.sha256
  PartitionProof kjv;                      ///< the committed manifest, checked
  std::vector<std::string> manifest_head;  ///< its first lines, tabs shown as `\t`
  Exercises exercises;                     ///< the exercise answers
  Leakage leakage;                         ///< the misconception's numbers
};

/// Reads the corpus at `corpus_path`, applies the rule and writes the manifest to `out`
/// atomically; the number of documents written. The demo's `--write-manifest`.
[[nodiscard]] Step<std::size_t> regenerate_manifest(const std::string& corpus_path,
                                                    const std::string& out);
/// The proof of a partition `p` of `corpus`: every number counted from the lists, and
/// whether they equal `rule`, what assign_partitions() gives for the corpus.
[[nodiscard]] PartitionProof prove_partition(const Corpus& corpus, const Partitions& p,
                                             const Partitions& rule);
/// Runs the whole chapter once.
[[nodiscard]] Step<Evidence> gather();

/// The report, one `key=value` line per fact.
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The trace records the diagram is drawn from.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch02
