// Chapter 21
#pragma once
// Chapter 21's frozen fixture, shared by the demo and tests/chapters/ch21_*_test.cpp:
// two framed documents, windows of T = 2 every S = 1 token, batches of B = 4, and a
// bigram table that scores them.

#include <cmath>
#include <cstdint>
#include <vector>

#include <llmfs/tensor/tensor.hpp>
#include <llmfs/text/windows.hpp>
#include <llmfs/training/batches.hpp>

namespace ch21 {

// region: fixture
/// Two documents framed by BOS = 0 and EOS = 1: tokens 2 3 4 5 and tokens 6 7.
inline const std::vector<std::vector<llmfs::text::TokenId>> kSequences = {
    {0, 2, 3, 4, 5, 1}, {0, 6, 7, 1}};
/// T = 2 tokens of context, a window at every token: 4 + 2 = 6 examples.
inline constexpr llmfs::text::WindowConfig kWindows{2, 1};
/// B = 4: one full batch and a partial batch of 2 per epoch.
inline constexpr llmfs::training::BatchConfig kBatches{4};
/// The seed of every epoch's order.
inline constexpr std::uint64_t kSeed = 21;
/// The vocabulary: V = 8 ids, 0 … 7.
inline constexpr std::size_t kVocab = 8;
/// The bigram table [V, V] of logits: ln 8 for the "known" steps 2→3, 3→4, 4→5 and
/// 6→7, 0 elsewhere. A known step costs −ln(8/15) = ln(15/8); every other step of the
/// fixture leaves a row of zeros (BOS, 5 or 7) and costs ln 8.
inline llmfs::tensor::Tensor bigram_table() {
  std::vector<double> table(kVocab * kVocab, 0.0);
  for (const auto& [from, to] : {std::pair{2, 3}, {3, 4}, {4, 5}, {6, 7}})
    table[from * kVocab + to] = std::log(8.0);
  return llmfs::tensor::Tensor::from(llmfs::tensor::Shape{kVocab, kVocab}, table)
      .value();
}
// endregion: fixture

}  // namespace ch21
