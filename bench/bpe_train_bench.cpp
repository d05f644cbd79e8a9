// Chapter 3: learning byte-level BPE merges on the King James text.
//
//   bpe/fast/full           train_bpe, V = 4,096 (3,838 merges), training partition
//   bpe/sentencepiece/full  SentencePiece's BPE trainer (libsentencepiece 0.1.97, C++
//                           API, one thread) on the same lines, set to learn 3,838 too
//   bpe/naive/slice         train_bpe_naive on the first kSliceDocuments documents
//   bpe/fast/slice          train_bpe on the same slice: the speed-up in the same run
//   bpe/fast/nospace-chunk  train_bpe, 3,838 merges, on 400,000 random bytes a/b
//                           (SplitMix64 seed 3), no space or newline: one chunk
//   bpe/fast/nospace-lines  train_bpe on the same bytes as 100 documents of 4,000
//   bpe/sentencepiece/nospace-lines
//                           SentencePiece on the same 100 lines; its BPE trainer keeps
//                           a position within a word in 16 bits and stops with an
//                           error on a 100,000-character word, so not on one chunk
//
// The training documents: chapter 2's training partition (tools/corpus-partitions.tsv),
// read with chapter 2's corpus reader. Before the benchmarks run, the program prints
// what both trainers learned on the full text (how many of our 3,838 tokens
// SentencePiece also learned, and how long the merge orders agree) as `bpe-compare:`
// lines; after them, the same for the text without spaces, as `bpe-nospace:` lines. Run
// through tools/run-bpe-bench.sh, which prints the ratios and writes the data file.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <llmfs/core/splitmix64.hpp>
#include <llmfs/text/bpe_train.hpp>
#include <llmfs/text/partition.hpp>

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

namespace {

constexpr std::size_t kCourseVocab = 4096;  // 256 bytes + 3,838 merges + BOS + EOS
constexpr std::size_t kSliceDocuments = 40;
constexpr std::size_t kSliceVocab = 258 + 200;
constexpr std::size_t kSpacelessBytes = 400'000;
constexpr std::size_t kSpacelessLine = 4'000;
constexpr std::uint64_t kSpacelessSeed = 3;

struct BenchCorpus {
  llmfs::text::Corpus corpus;               // chapter 2's reader
  std::vector<std::string_view> documents;  // the training partition's texts
  std::vector<std::string> lines;           // every line of those documents, no '\n'
  std::size_t characters = 0;               // distinct characters SentencePiece sees
};

const BenchCorpus& bench_corpus() {
  static const BenchCorpus corpus = [] {
    BenchCorpus c;
    auto loaded =
        llmfs::text::read_partitioned_corpus(LLMFS_CORPUS_PATH, LLMFS_PARTITIONS_PATH);
    if (!loaded) {
      fmt::print(stderr, "bpe bench: {}\n", loaded.error());
      std::exit(1);
    }
    c.corpus = std::move(loaded->corpus);
    for (std::size_t index : loaded->partitions.train)
      c.documents.push_back(c.corpus.documents[index].text);
    std::set<char> seen;
    for (std::string_view document : c.documents) {
      for (std::size_t start = 0; start < document.size();) {
        const std::size_t stop = document.find('\n', start);
        c.lines.emplace_back(document.substr(start, stop - start));
        start = stop + 1;
      }
      seen.insert(document.begin(), document.end());
    }
    seen.erase('\n');  // SentencePiece's sentences are the lines; ' ' becomes U+2581
    c.characters = seen.size();
    return c;
  }();
  return corpus;
}

// SentencePiece reads the lines from memory through this iterator.
class LineIterator : public sentencepiece::SentenceIterator {
 public:
  explicit LineIterator(const std::vector<std::string>& lines) : lines_(lines) {}
  bool done() const override { return index_ >= lines_.size(); }
  void Next() override { ++index_; }
  const std::string& value() const override { return lines_[index_]; }
  sentencepiece::util::Status status() const override { return {}; }

 private:
  const std::vector<std::string>& lines_;
  std::size_t index_ = 0;
};

// SentencePiece set as close to the chapter's rules as it goes: BPE, whitespace split
// with the space as a piece prefix, no normalisation, no dummy prefix, every character
// kept, one thread; 3 special pieces + the characters + 3,838 merges.
std::string train_sentencepiece(const std::vector<std::string>& sentences,
                                std::size_t characters,
                                std::size_t max_piece_length = 16) {
  const std::size_t vocab = 3 + characters + (kCourseVocab - 258);
  const std::unordered_map<std::string, std::string> args{
      {"model_type", "bpe"},
      {"vocab_size", std::to_string(vocab)},
      {"character_coverage", "1.0"},
      {"normalization_rule_name", "identity"},
      {"add_dummy_prefix", "false"},
      {"split_by_unicode_script", "false"},
      {"split_by_number", "false"},
      {"split_by_whitespace", "true"},
      {"num_threads", "1"},
      {"minloglevel", "2"},
      {"max_sentence_length", "100000"},
      {"max_sentencepiece_length", std::to_string(max_piece_length)}};
  LineIterator lines(sentences);
  std::string model;
  const auto status = sentencepiece::SentencePieceTrainer::Train(args, &lines, &model);
  if (!status.ok()) fmt::print(stderr, "sentencepiece: {}\n", status.ToString());
  return model;
}

std::string train_sentencepiece(const BenchCorpus& c) {
  return train_sentencepiece(c.lines, c.characters);
}

// Text without a space or newline (code, Chinese, minified data): random bytes a and b,
// one SplitMix64 draw each (the top bit), as one chunk and as lines of kSpacelessLine.
struct SpacelessCorpus {
  std::string text;
  std::vector<std::string> lines;
  std::vector<std::string_view> line_views;
};

const SpacelessCorpus& spaceless_corpus() {
  static const SpacelessCorpus corpus = [] {
    SpacelessCorpus c;
    llmfs::SplitMix64 rng(kSpacelessSeed);
    c.text.resize(kSpacelessBytes);
    for (char& byte : c.text)
      byte = (rng.next_u64() >> 63) == 0 ? 'a' : 'b';
    for (std::size_t start = 0; start < c.text.size(); start += kSpacelessLine)
      c.lines.push_back(c.text.substr(start, kSpacelessLine));
    c.line_views.assign(c.lines.begin(), c.lines.end());
    return c;
  }();
  return corpus;
}

// SentencePiece's longest piece is 16 bytes unless told; on this text its merges go
// longer, so the limit is raised past anything either trainer learns here.
constexpr std::size_t kSpacelessPieceLimit = 64;

void BM_FastFull(benchmark::State& state) {
  const BenchCorpus& c = bench_corpus();
  for (auto _ : state) {
    auto trained = llmfs::text::train_bpe(c.documents, kCourseVocab);
    benchmark::DoNotOptimize(trained);
  }
  state.counters["merges"] = static_cast<double>(kCourseVocab - 258);
}

void BM_SentencePieceFull(benchmark::State& state) {
  const BenchCorpus& c = bench_corpus();
  for (auto _ : state) {
    std::string model = train_sentencepiece(c);
    benchmark::DoNotOptimize(model);
  }
  state.counters["merges"] = static_cast<double>(kCourseVocab - 258);
}

void BM_Slice(benchmark::State& state, bool naive) {
  const BenchCorpus& c = bench_corpus();
  const std::span slice(c.documents.data(),
                        std::min(kSliceDocuments, c.documents.size()));
  for (auto _ : state) {
    auto trained = naive ? llmfs::text::train_bpe_naive(slice, kSliceVocab)
                         : llmfs::text::train_bpe(slice, kSliceVocab);
    benchmark::DoNotOptimize(trained);
  }
  state.counters["merges"] = static_cast<double>(kSliceVocab - 258);
}

void BM_FastSpacelessChunk(benchmark::State& state) {
  const std::vector<std::string_view> one_chunk{spaceless_corpus().text};
  for (auto _ : state) {
    auto trained = llmfs::text::train_bpe(one_chunk, kCourseVocab);
    benchmark::DoNotOptimize(trained);
  }
  state.counters["merges"] = static_cast<double>(kCourseVocab - 258);
}

void BM_FastSpacelessLines(benchmark::State& state) {
  const SpacelessCorpus& c = spaceless_corpus();
  for (auto _ : state) {
    auto trained = llmfs::text::train_bpe(c.line_views, kCourseVocab);
    benchmark::DoNotOptimize(trained);
  }
  state.counters["merges"] = static_cast<double>(kCourseVocab - 258);
}

std::string& spaceless_sentencepiece_model() {
  static std::string model;  // the last run's, for the comparison after the benchmarks
  return model;
}

void BM_SentencePieceSpacelessLines(benchmark::State& state) {
  const SpacelessCorpus& c = spaceless_corpus();
  for (auto _ : state) {
    spaceless_sentencepiece_model() =
        train_sentencepiece(c.lines, 2, kSpacelessPieceLimit);
    benchmark::DoNotOptimize(spaceless_sentencepiece_model());
  }
  state.counters["merges"] = static_cast<double>(kCourseVocab - 258);
}

// What both trainers learned on the full text: our tokens with ' ' written as U+2581,
// looked up among SentencePiece's pieces; and the first rank where the orders differ.
void compare_vocabularies(const BenchCorpus& c) {
  const auto ours = llmfs::text::train_bpe(c.documents, kCourseVocab);
  sentencepiece::SentencePieceProcessor sp;
  if (!ours || !sp.LoadFromSerializedProto(train_sentencepiece(c)).ok()) {
    fmt::print("bpe-compare: failed\n");
    return;
  }
  const auto bytes = llmfs::text::token_bytes(ours->table);
  std::vector<std::string> learned;  // SentencePiece's merges in order (ids 3 ...)
  for (int id = 3; id < sp.GetPieceSize() && learned.size() < ours->counts.size(); ++id)
    learned.push_back(sp.IdToPiece(id));
  const std::set<std::string> theirs(learned.begin(), learned.end());
  std::size_t shared = 0, with_newline = 0, prefix = 0;
  bool same_so_far = true;
  for (std::size_t r = 0; r < ours->counts.size(); ++r) {
    std::string piece;
    for (char byte : bytes[256 + r])
      piece += byte == ' ' ? "\u2581" : std::string(1, byte);
    with_newline += piece.find('\n') != std::string::npos ? 1 : 0;
    shared += theirs.count(piece);
    same_so_far = same_so_far && r < learned.size() && learned[r] == piece;
    prefix += same_so_far ? 1 : 0;
  }
  std::size_t text_bytes = 0;
  for (std::string_view document : c.documents)
    text_bytes += document.size();
  fmt::print(
      "bpe-compare: training_documents={} of {} text_bytes={} lines={} characters={}\n",
      c.documents.size(), c.corpus.documents.size(), text_bytes, c.lines.size(),
      c.characters);
  fmt::print("bpe-compare: merges={} stop={} last_count={}\n", ours->counts.size(),
             describe(ours->stop), ours->counts.back());
  fmt::print(
      "bpe-compare: sentencepiece_pieces={} shared={} ours_with_newline={} "
      "same_order_prefix={}\n",
      learned.size(), shared, with_newline, prefix);
}

// What the trainers learned on the text without spaces: our merges on one chunk and on
// the lines, and how many of our tokens on the lines SentencePiece learned as well.
void compare_spaceless() {
  const SpacelessCorpus& c = spaceless_corpus();
  sentencepiece::SentencePieceProcessor sp;
  const auto chunk =
      llmfs::text::train_bpe(std::vector<std::string_view>{c.text}, kCourseVocab);
  const auto lines = llmfs::text::train_bpe(c.line_views, kCourseVocab);
  if (!chunk || !lines || spaceless_sentencepiece_model().empty() ||
      !sp.LoadFromSerializedProto(spaceless_sentencepiece_model()).ok())
    return;  // the SentencePiece case was filtered out, or failed (said on stderr)
  std::set<std::string> theirs;
  std::size_t longest_theirs = 0;
  for (int id = 0; id < sp.GetPieceSize(); ++id) {
    if (sp.IsControl(id) || sp.IsUnknown(id)) continue;
    theirs.insert(sp.IdToPiece(id));
    longest_theirs = std::max(longest_theirs, sp.IdToPiece(id).size());
  }
  std::size_t shared = 0, longest_ours = 0;
  const auto bytes = llmfs::text::token_bytes(lines->table);
  for (std::size_t id = 256; id < bytes.size(); ++id) {
    shared += theirs.count(bytes[id]);
    longest_ours = std::max(longest_ours, bytes[id].size());
  }
  fmt::print("bpe-nospace: bytes={} seed={} lines={} of {} bytes\n", c.text.size(),
             kSpacelessSeed, c.lines.size(), kSpacelessLine);
  fmt::print(
      "bpe-nospace: one_chunk merges={} last_count={}; lines merges={} last_count={}\n",
      chunk->counts.size(), chunk->counts.back(), lines->counts.size(),
      lines->counts.back());
  fmt::print(
      "bpe-nospace: sentencepiece_pieces={} (characters included) shared_with_lines={} "
      "longest_ours={} longest_theirs={}\n",
      theirs.size(), shared, longest_ours, longest_theirs);
}

}  // namespace

BENCHMARK(BM_FastFull)
    ->Name("bpe/fast/full")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(5);
BENCHMARK(BM_SentencePieceFull)
    ->Name("bpe/sentencepiece/full")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_Slice, naive, true)
    ->Name("bpe/naive/slice")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_Slice, fast, false)
    ->Name("bpe/fast/slice")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(20);
BENCHMARK(BM_FastSpacelessChunk)
    ->Name("bpe/fast/nospace-chunk")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);
BENCHMARK(BM_FastSpacelessLines)
    ->Name("bpe/fast/nospace-lines")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);
BENCHMARK(BM_SentencePieceSpacelessLines)
    ->Name("bpe/sentencepiece/nospace-lines")
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  compare_vocabularies(bench_corpus());
  std::fflush(stdout);
  benchmark::RunSpecifiedBenchmarks();
  compare_spaceless();
  benchmark::Shutdown();
  return 0;
}
