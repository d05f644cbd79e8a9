// Chapter 3
#pragma once
// Chapter 3's program: every value its report and trace print, gathered once from the
// library (src/llmfs/text/bpe_train.hpp), and the functions that render them.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <llmfs/text/bpe_train.hpp>

#include "../common/chapter.hpp"
#include "fixture.hpp"

namespace ch03 {

using llmfs::text::BpeTraining;
using llmfs::text::MergeTable;
using llmfs::text::TokenPair;
using snippets::Step;

/// A pair and its count at one step of training.
struct Candidate {
  TokenPair pair;          ///< the two token ids
  std::int64_t count = 0;  ///< its non-overlapping occurrences in all chunks
};

/// One merge of the fixture, with what the trainer saw before making it.
struct MergeStep {
  TokenPair pair;                   ///< the merge learned at this rank
  std::int64_t count = 0;           ///< its count when chosen
  std::vector<Candidate> repeated;  ///< every pair counted at least twice, best first
  std::size_t single_pairs = 0;     ///< how many pairs were counted once
  std::vector<std::string>
      segments;  ///< each chunk after the merge, tokens split by '|'
};

/// A corpus trained by both trainers, and the learned tokens' bytes.
struct Training {
  BpeTraining fast;                 ///< train_bpe
  BpeTraining naive;                ///< train_bpe_naive
  std::vector<std::string> tokens;  ///< token_bytes(fast.table): [256 + M']
};

/// The fixture: its chunks, every step replayed with the counts, and the training.
struct FixtureRun {
  std::vector<std::string> chunks;  ///< split_chunks of each document, in order
  std::vector<MergeStep> steps;     ///< one per learned merge
  MergeStep after;                  ///< the counts once training stopped
  std::size_t bytes = 0;            ///< bytes of the fixture's documents
  std::size_t tokens_after = 0;     ///< tokens in all its chunks after the last merge
  Training training;                ///< both trainers on kFixture
};

/// What the training partition looks like to the trainer, and both trainers on its
/// first documents.
struct CorpusRun {
  std::size_t corpus_documents = 0;  ///< documents in the corpus file
  std::size_t documents = 0;         ///< documents of the training partition
  std::size_t bytes = 0;             ///< their bytes of text (headings excluded)
  std::size_t chunks = 0;            ///< chunks of all of them
  std::size_t distinct_chunks = 0;   ///< rows of the chunk frequency table
  std::string top_chunk;             ///< the most frequent chunk
  std::int64_t top_chunk_count = 0;  ///< how often it occurs
  std::size_t slice_bytes = 0;       ///< bytes of the first kSliceDocuments of them
  Training slice;                    ///< both trainers on the slice, V = kSliceVocab
  std::size_t identical_merges = 0;  ///< ranks where naive and fast agree
};

/// The answers of the chapter's exercises, computed by the library.
struct Exercises {
  std::int64_t run_count = 0;          ///< 1: (a,a) in aaaaa under the chapter's rule
  std::int64_t overlapping_count = 0;  ///< 1: the same, counting every adjacent pair
  Candidate fourth;                    ///< 2: the fixture's best pair once it stopped
  BpeTraining two_merges;              ///< 3: the fixture with V = 260
  std::size_t course_merges = 0;       ///< 4: M for V = 4,096
};

/// Everything the report and the trace print.
struct Evidence {
  FixtureRun fixture;                       ///< the prediction, step by step
  Training run_case;                        ///< kRunCase
  Training tie_case;                        ///< kTieCase
  std::vector<std::string> vocab_outcomes;  ///< kVocabCases: error text or merge count
  Training empty;                           ///< no documents at all
  CorpusRun corpus;                         ///< the King James text and its slice
  Exercises exercises;                      ///< the exercise answers
};

/// Everything but the real corpus (`corpus` stays empty): what the chapter's tests
/// read, fast enough under sanitizers.
[[nodiscard]] Step<Evidence> gather_fixture();
/// Runs the whole chapter once: gather_fixture(), then the King James text's training
/// partition (chapter 2) and its slice.
[[nodiscard]] Step<Evidence> gather();

/// A token's bytes for printing: a space as `␣`, a newline as `\n`.
[[nodiscard]] std::string show(const std::string& bytes);
/// The report, one `key=value` line per fact.
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The trace records the diagram is drawn from.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch03
