// Chapter 23 against PyTorch float64 (tests/reference/make_ngram_reference.py, data in
// tests/reference/data/models/ch23_ngram.txt): the random case's loss, every parameter
// gradient and the values after three AdamW steps agree to 1e-12 relative.

#include <gtest/gtest.h>

#include "evidence.hpp"

namespace {

TEST(Reference, LossGradientsAndAdamWStepsMatchPyTorch) {
  const auto replay = ch23::replay_reference();
  ASSERT_TRUE(replay.has_value());
  EXPECT_EQ(replay->steps, 3u);
  EXPECT_EQ(replay->examples, 7u);
  EXPECT_EQ(replay->parameters, 11u * 4 + 12 * 5 + 5 + 5 * 11 + 11);
  EXPECT_LE(replay->loss_relative, 1e-12);
  EXPECT_LE(replay->gradient_relative, 1e-12);
  EXPECT_LE(replay->adamw_relative, 1e-12);
}

}  // namespace
