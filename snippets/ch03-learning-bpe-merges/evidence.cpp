// Chapter 3
#include "evidence.hpp"

#include <algorithm>
#include <functional>
#include <span>
#include <tuple>

#include <llmfs/text/chunks.hpp>
#include <llmfs/text/partition.hpp>

namespace ch03 {

using llmfs::text::PairCounts;
using llmfs::text::TokenId;

std::string show(const std::string& bytes) {
  std::string shown;
  for (char byte : bytes) {
    if (byte == ' ')
      shown += "␣";
    else if (byte == '\n')
      shown += "\\n";
    else
      shown += byte;
  }
  return shown;
}

namespace {

// The bytes of a chunk as token ids 0–255.
std::vector<TokenId> byte_ids(std::string_view chunk) {
  std::vector<TokenId> ids;
  for (char byte : chunk)
    ids.push_back(static_cast<unsigned char>(byte));
  return ids;
}

// region: train-both
// One corpus through both trainers, and the bytes of what they learned.
[[nodiscard]] Step<Training> train_both(std::span<const std::string_view> documents,
                                        std::size_t vocab_size) {
  Training t;
  t.fast = LLMFS_TRY_AT("train_bpe", llmfs::text::train_bpe(documents, vocab_size));
  t.naive = LLMFS_TRY_AT("train_bpe_naive",
                         llmfs::text::train_bpe_naive(documents, vocab_size));
  t.tokens = llmfs::text::token_bytes(t.fast.table);
  return t;
}
// endregion: train-both

// Every pair's count in the chunks as they are now, with the library's own counting:
// the pairs seen at least twice best first, and the pair the trainer would pick.
MergeStep count_step(const std::vector<std::vector<TokenId>>& chunks) {
  PairCounts counts;
  for (const std::vector<TokenId>& chunk : chunks)
    llmfs::text::add_pair_counts(chunk, 1, counts);
  MergeStep step;
  for (const auto& [pair, count] : counts) {
    if (count >= llmfs::text::kMinPairCount)
      step.repeated.push_back({pair, count});
    else
      ++step.single_pairs;
  }
  std::ranges::stable_sort(step.repeated, std::greater{}, &Candidate::count);
  std::tie(step.pair, step.count) = llmfs::text::best_pair(counts);
  return step;
}

// region: replay-steps

// The fixture trained, then its merges replayed one by one on its chunks, keeping the
// counts before each merge and the chunks after it.
[[nodiscard]] Step<FixtureRun> run_fixture() {
  FixtureRun run;
  run.training = LLMFS_TRY(train_both(kFixture, kCourseVocab));
  std::vector<std::vector<TokenId>> chunks;
  for (std::string_view document : kFixture)
    for (std::string_view chunk : llmfs::text::split_chunks(document)) {
      run.chunks.emplace_back(chunk);
      chunks.push_back(byte_ids(chunk));
    }
  const auto& merges = run.training.fast.table.merges;
  for (std::size_t r = 0; r < merges.size(); ++r) {
    MergeStep step = count_step(chunks);
    for (std::vector<TokenId>& chunk : chunks) {
      llmfs::text::merge_pair(chunk, merges[r], MergeTable::token_of_rank(r));
      std::string segmented;
      for (TokenId id : chunk)
        segmented += (segmented.empty() ? "" : "·") + show(run.training.tokens[id]);
      step.segments.push_back(segmented);
    }
    run.steps.push_back(step);
  }
  run.after = count_step(chunks);
  for (std::size_t d = 0; d < kFixture.size(); ++d)
    run.bytes += kFixture[d].size();
  for (const std::vector<TokenId>& chunk : chunks)
    run.tokens_after += chunk.size();
  return run;
}
// endregion: replay-steps

// region: corpus-run
// The chunk frequency table of the training documents, then both trainers on the
// first kSliceDocuments of them.
[[nodiscard]] Step<CorpusRun> run_corpus(std::span<const std::string_view> documents) {
  CorpusRun c;
  c.documents = documents.size();
  for (std::string_view document : documents)
    c.bytes += document.size();
  const auto table = llmfs::text::count_chunks(documents);
  c.distinct_chunks = table.size();
  for (const llmfs::text::ChunkCount& row : table)
    c.chunks += static_cast<std::size_t>(row.count);
  const auto top = std::ranges::max_element(table, {}, &llmfs::text::ChunkCount::count);
  if (top != table.end()) {
    c.top_chunk = std::string(top->chunk);
    c.top_chunk_count = top->count;
  }
  const auto slice = documents.first(std::min(kSliceDocuments, documents.size()));
  for (std::string_view document : slice)
    c.slice_bytes += document.size();
  c.slice = LLMFS_TRY(train_both(slice, kSliceVocab));
  const auto& fast = c.slice.fast.table.merges;
  const auto& naive = c.slice.naive.table.merges;
  for (std::size_t r = 0; r < std::min(fast.size(), naive.size()); ++r)
    c.identical_merges += fast[r] == naive[r] ? 1 : 0;
  return c;
}
// endregion: corpus-run

// region: exercises
// Exercise 1 counts a run both ways; 2 reads the fixture's counts after it stopped;
// 3 retrains with room for two merges; 4 asks the library for M.
[[nodiscard]] Step<Exercises> solve_exercises(const FixtureRun& fixture) {
  Exercises x;
  const std::vector<TokenId> run = byte_ids(kFiveRun);
  PairCounts counts;
  llmfs::text::add_pair_counts(run, 1, counts);
  x.run_count = counts[{'a', 'a'}];
  for (std::size_t i = 0; i + 1 < run.size(); ++i)
    x.overlapping_count += run[i] == 'a' && run[i + 1] == 'a' ? 1 : 0;
  x.fourth = {fixture.after.pair, fixture.after.count};
  x.two_merges =
      LLMFS_TRY_AT("exercise 3", llmfs::text::train_bpe(kFixture, kTwoMergeVocab));
  x.course_merges =
      LLMFS_TRY_AT("exercise 4", llmfs::text::merges_for_vocab(kCourseVocab));
  return x;
}
// endregion: exercises

// A vocabulary size through the trainer: its error's text, or how many merges it made.
std::string vocab_outcome(std::size_t vocab_size) {
  const std::array documents{kRunCase};
  const auto trained = llmfs::text::train_bpe(documents, vocab_size);
  if (!trained) return fmt::format("error:{}", trained.error());
  return fmt::format("ok:{} merges ({})", trained->table.merges.size(),
                     describe(trained->stop));
}

}  // namespace

// The chapter in one pass: the fixture, the two rule cases, the refused sizes, an
// empty corpus and the exercises (all a test needs); then the King James text's
// training partition, read with chapter 2's corpus reader and manifest.
Step<Evidence> gather_fixture() {
  Evidence e;
  e.fixture = LLMFS_TRY(run_fixture());
  e.run_case = LLMFS_TRY(train_both(std::array{kRunCase}, kCourseVocab));
  e.tie_case = LLMFS_TRY(train_both(std::array{kTieCase}, kCourseVocab));
  for (std::size_t vocab_size : kVocabCases)
    e.vocab_outcomes.push_back(vocab_outcome(vocab_size));
  e.empty = LLMFS_TRY(train_both({}, kCourseVocab));
  e.exercises = LLMFS_TRY(solve_exercises(e.fixture));
  return e;
}

Step<Evidence> gather() {
  Evidence e = LLMFS_TRY(gather_fixture());
  const auto loaded = LLMFS_TRY_AT(
      "read corpus",
      llmfs::text::read_partitioned_corpus(LLMFS_CORPUS_PATH, LLMFS_PARTITIONS_PATH));
  std::vector<std::string_view> train;  // chapter 2's training partition only
  for (std::size_t index : loaded.partitions.train)
    train.push_back(loaded.corpus.documents[index].text);
  e.corpus = LLMFS_TRY(run_corpus(train));
  e.corpus.corpus_documents = loaded.corpus.documents.size();
  return e;
}

}  // namespace ch03
