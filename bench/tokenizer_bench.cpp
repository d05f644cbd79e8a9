// Chapter 4: encoding throughput of the course tokenizer on the whole King James
// corpus, beside SentencePiece's BPE encoder (Kudo and Richardson 2018) trained inside
// the setup on the same text with the same vocabulary size. Both encode the same lines
// (the corpus cut at each newline). Run through tools/run-tokenizer-bench.sh, which
// prints MB/s and the ratio and writes bench/results/tokenizer-throughput.txt.
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <llmfs/text/merges_file.hpp>
#include <llmfs/text/tokenizer.hpp>

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

namespace {

// The corpus as lines (no newline), read once.
const std::vector<std::string>& ch04_lines() {
  static const std::vector<std::string> lines = [] {
    std::ifstream in(LLMFS_CORPUS_PATH, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " LLMFS_CORPUS_PATH);
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);)
      out.push_back(line);
    return out;
  }();
  return lines;
}

std::size_t ch04_corpus_bytes() {
  std::size_t bytes = 0;
  for (const std::string& line : ch04_lines())
    bytes += line.size();
  return bytes;
}

const llmfs::text::Tokenizer& ch04_tokenizer() {
  static const llmfs::text::Tokenizer tokenizer = [] {
    auto merges = llmfs::text::read_merges(LLMFS_TOKENIZER_PATH);
    if (!merges) throw std::runtime_error(fmt::format("{}", merges.error()));
    auto made = llmfs::text::Tokenizer::create(*std::move(merges));
    if (!made) throw std::runtime_error(fmt::format("{}", made.error()));
    return *std::move(made);
  }();
  return tokenizer;
}

// SentencePiece BPE, vocabulary 4,096, trained on the corpus file in memory (no files
// written): character coverage 1.0 so every byte of this ASCII text is a piece.
const sentencepiece::SentencePieceProcessor& ch04_sentencepiece() {
  static const auto processor = [] {
    std::string model;
    const auto status = sentencepiece::SentencePieceTrainer::Train(
        fmt::format(
            "--input={} --model_type=bpe --vocab_size={} --character_coverage=1.0 "
            "--num_threads=1 --minloglevel=2 --max_sentence_length=100000",
            LLMFS_CORPUS_PATH, ch04_tokenizer().vocab_size()),
        nullptr, &model);
    if (!status.ok()) throw std::runtime_error(status.ToString());
    auto sp = std::make_unique<sentencepiece::SentencePieceProcessor>();
    if (!sp->LoadFromSerializedProto(model).ok())
      throw std::runtime_error("cannot load the SentencePiece model");
    return sp;
  }();
  return *processor;
}

void ch04_report(benchmark::State& state, std::size_t tokens) {
  state.SetBytesProcessed(
      static_cast<std::int64_t>(state.iterations() * ch04_corpus_bytes()));
  state.counters["tokens"] = static_cast<double>(tokens);
  state.counters["bytes_per_token"] =
      static_cast<double>(ch04_corpus_bytes()) / static_cast<double>(tokens);
  state.counters["vocab"] = static_cast<double>(ch04_tokenizer().vocab_size());
}

void BM_Ch04LlmfsEncode(benchmark::State& state) {
  const auto& tokenizer = ch04_tokenizer();
  std::size_t tokens = 0;
  for (auto _ : state) {
    tokens = 0;
    for (const std::string& line : ch04_lines())
      tokens += tokenizer.encode(line).size();
    benchmark::DoNotOptimize(tokens);
  }
  ch04_report(state, tokens);
}

void BM_Ch04LlmfsEncodeNaive(benchmark::State& state) {
  const auto& tokenizer = ch04_tokenizer();
  std::size_t tokens = 0;
  for (auto _ : state) {
    tokens = 0;
    for (const std::string& line : ch04_lines())
      tokens += tokenizer.encode_naive(line).size();
    benchmark::DoNotOptimize(tokens);
  }
  ch04_report(state, tokens);
}

void BM_Ch04SentencePieceEncode(benchmark::State& state) {
  const auto& sp = ch04_sentencepiece();
  std::size_t tokens = 0;
  std::vector<int> ids;
  for (auto _ : state) {
    tokens = 0;
    for (const std::string& line : ch04_lines()) {
      if (!sp.Encode(line, &ids).ok())
        state.SkipWithError("SentencePiece Encode failed");
      tokens += ids.size();
    }
    benchmark::DoNotOptimize(tokens);
  }
  ch04_report(state, tokens);
}

BENCHMARK(BM_Ch04LlmfsEncode)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Ch04LlmfsEncodeNaive)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Ch04SentencePieceEncode)->Unit(benchmark::kMillisecond);

}  // namespace
