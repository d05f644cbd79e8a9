// Chapter 39
#pragma once
// The King James corpus as the end-to-end program sees it: Chapter 2's partitions,
// every document encoded with the course tokenizer (Chapter 4, V = 4096) and framed by
// BOS and EOS (Chapter 5); training windows of T every T; and every predicted token of
// a partition scored once, with Chapter 7's bits per byte.

#include <cstddef>
#include <memory>
#include <vector>

#include <llmfs/models/decoder.hpp>
#include <llmfs/text/partition.hpp>
#include <llmfs/text/tokenizer.hpp>
#include <llmfs/training/trainer.hpp>

#include "../common/chapter.hpp"

namespace ch39 {

using snippets::Step;

/// One partition: each document framed as `BOS t₁ … t_m EOS`, and the UTF-8 bytes of
/// the documents' text (EOS spells none).
struct Partition {
  std::vector<std::vector<llmfs::text::TokenId>> sequences;  ///< framed documents
  std::size_t bytes = 0;                                     ///< Σ document bytes
  std::size_t tokens = 0;  ///< predicted tokens: Σ (m + 1), EOS included
};

/// The tokenizer and the three partitions (the first `documents` of each, 0: all).
struct Corpus {
  std::shared_ptr<const llmfs::text::Tokenizer> tokenizer;
  Partition train, validation, test;
};

/// The course tokenizer (tools/kjv-4096.merges).
[[nodiscard]] Step<std::shared_ptr<const llmfs::text::Tokenizer>> load_tokenizer();

/// Reads the corpus and the merges, encodes every document of every partition.
[[nodiscard]] Step<Corpus> load_corpus(std::size_t documents);

/// The partition as the trainer's examples: windows of T + 1 tokens every T.
[[nodiscard]] Step<llmfs::training::ExampleSet> windows(const Partition& partition,
                                                        std::size_t context);

/// The sum of −ln p over every predicted token of every document, and their count.
struct Nats {
  double total = 0.0;      ///< Σ −ln p(t | context), nats
  std::size_t tokens = 0;  ///< predicted tokens (each document's tokens and its EOS)
};

// region: every-token-api
/// Scores every predicted token of `partition` once: each document in windows of
/// T_max every T_max, the last one shorter, B windows to a forward pass.
/// \return the model's error (stage `score`).
[[nodiscard]] Step<Nats> score_every_token(
    const llmfs::models::DecoderConfig& config,
    std::span<const llmfs::tensor::Tensor> values, const Partition& partition,
    std::size_t batch);
// endregion: every-token-api

}  // namespace ch39
