// Chapter 6
#pragma once
// The King James corpus as token sequences: the training and validation partitions
// (Chapter 2) encoded two ways, as bytes (a tokenizer with zero merges, V = 258) and
// with the course's 4,096-token tokenizer (Chapter 4). Chapter 7 reuses it.

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include <llmfs/models/bigram.hpp>

#include "../common/chapter.hpp"

namespace ch06 {

/// One partition, encoded: a token sequence per document (no specials) and the UTF-8
/// size of the documents' text.
struct EncodedPartition {
  std::vector<llmfs::models::TokenSequence> documents;  ///< one per document
  std::size_t bytes = 0;                                ///< Σ document text bytes
};

/// The corpus under one tokenizer.
struct EncodedCorpus {
  std::string name;                    ///< `bytes` or `bpe4096`
  llmfs::models::BigramConfig config;  ///< V, BOS, EOS (α = 1)
  EncodedPartition train;              ///< the training partition
  EncodedPartition validation;         ///< the validation partition
  std::function<std::string(std::span<const llmfs::models::TokenId>)>
      decode;  ///< ids -> text
};

/// Both tokenizations of the corpus (bytes first); empty while the corpus reader or
/// the tokenizer is not available.
[[nodiscard]] snippets::Step<std::vector<EncodedCorpus>> encode_corpus();

}  // namespace ch06
