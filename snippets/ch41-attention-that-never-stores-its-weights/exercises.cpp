// Chapter 41
// Chapter 41's exercise answers, each computed by the library (checked by
// tests/chapters/ch41_attention_that_never_stores_its_weights_test.cpp).

#include <array>
#include <cmath>

#include "evidence.hpp"

namespace ch41 {

namespace at = llmfs::attention;

Step<Exercises> answer_exercises() {
  Exercises x;
  // 1. Scores [4, 1, 6, 6, 2, 9], three keys a block: m, α and ℓ after each block
  constexpr std::array<double, 6> row{4, 1, 6, 6, 2, 9};
  x.steps = LLMFS_TRY_AT("exercise 1", at::online_softmax(row, 3));
  // 2. The Predict row plus 1000: the statistics, and the naive sum of exp(s)
  std::array<double, kScores.size()> shifted{};
  for (std::size_t j = 0; j < kScores.size(); ++j) {
    shifted[j] = kScores[j] + 1000.0;
    x.naive_total += std::exp(shifted[j]);
  }
  x.shifted = LLMFS_TRY_AT("exercise 2", at::online_softmax(shifted, kBlock));
  // 3. Tiles the forward pass visits at T = 2048 with 128 keys a block
  const std::size_t blocks = 2048 / 128;
  for (std::size_t q = 0; q < blocks; ++q)
    for (std::size_t k = 0; k < blocks; ++k)
      x.tiles_visited += k <= q;
  x.tiles_total = blocks * blocks;
  // 4. At T = 16384, h = 8, B = 1: one [B,h,T,T] table against one L per row
  const double tokens = 16384.0;
  x.table_bytes = 8.0 * kBenchHeads * tokens * tokens;
  x.statistics_bytes = 8.0 * kBenchHeads * tokens;
  return x;
}

}  // namespace ch41
