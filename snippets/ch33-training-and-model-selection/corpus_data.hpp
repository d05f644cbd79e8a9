// Chapter 33
#pragma once
// The King James corpus as the trainer's example sets: every document of a partition
// (Chapter 2) encoded as bytes (V = 258, Chapter 4's tokenizer with no merges), framed
// by BOS and EOS and cut into windows of T tokens every T (Chapter 5). Chapter 34
// reuses it for the test partition.

#include <cstddef>

#include <llmfs/text/partition.hpp>
#include <llmfs/training/trainer.hpp>

#include "../common/chapter.hpp"

namespace ch33 {

/// One partition as examples, and the UTF-8 bytes its predicted positions spell.
struct CorpusSet {
  llmfs::training::ExampleSet set;  ///< framed sequences and their windows
  std::size_t bytes = 0;            ///< bytes of the predicted tokens (EOS counts 0)
  std::size_t documents = 0;        ///< documents read
};

/// The first `documents` documents (0: all) of `split`, windows of T every T, keeping
/// the first `limit` examples (0: all).
[[nodiscard]] snippets::Step<CorpusSet> corpus_set(llmfs::text::Split split,
                                                   std::size_t documents,
                                                   std::size_t context,
                                                   std::size_t limit);

}  // namespace ch33
