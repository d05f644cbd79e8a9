// Chapter 4
// Trains the course tokenizer: Chapter 3's trainer (train_bpe) on the documents of
// Chapter 2's training partition, written as a merges file (Chapter 4's format).
//
//   llmfs-train-tokenizer CORPUS MANIFEST VOCAB_SIZE OUT
//
// tools/train-tokenizer.sh runs it to (re)write tools/kjv-4096.merges, and with --check
// to compare a fresh training with the committed file byte for byte (ctest
// ch04.golden.tokenizer).
#include <charconv>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include <llmfs/text/bpe_train.hpp>
#include <llmfs/text/merges_file.hpp>
#include <llmfs/text/partition.hpp>

int main(int argc, char** argv) {
  if (argc != 5) {
    fmt::print(stderr, "usage: {} CORPUS MANIFEST VOCAB_SIZE OUT\n", argv[0]);
    return 2;
  }
  std::size_t vocab_size = 0;
  const std::string_view vocab_text = argv[3];
  const auto [end, error] = std::from_chars(
      vocab_text.data(), vocab_text.data() + vocab_text.size(), vocab_size);
  if (error != std::errc{} || end != vocab_text.data() + vocab_text.size()) {
    fmt::print(stderr, "train-tokenizer: VOCAB_SIZE '{}' is not a whole number\n",
               vocab_text);
    return 2;
  }
  const auto loaded = llmfs::text::read_partitioned_corpus(argv[1], argv[2]);
  if (!loaded) {
    fmt::print(stderr, "train-tokenizer: {}\n", loaded.error());
    return 1;
  }
  std::vector<std::string_view> train;
  for (std::size_t index : loaded->partitions.train)
    train.push_back(loaded->corpus.documents[index].text);
  const auto trained = llmfs::text::train_bpe(train, vocab_size);
  if (!trained) {
    fmt::print(stderr, "train-tokenizer: {}\n", trained.error());
    return 1;
  }
  const std::size_t wanted = vocab_size - llmfs::text::kReservedTokens;
  if (trained->table.merges.size() != wanted) {
    fmt::print(stderr, "train-tokenizer: learned {} merges, not {} ({})\n",
               trained->table.merges.size(), wanted, describe(trained->stop));
    return 1;
  }
  const auto written = llmfs::text::write_merges(argv[4], trained->table);
  if (!written) {
    fmt::print(stderr, "train-tokenizer: {}\n", written.error());
    return 1;
  }
  fmt::print("train-tokenizer: {} training documents, {} merges (V = {}) -> {}\n",
             train.size(), trained->table.merges.size(), vocab_size, argv[4]);
  return 0;
}
