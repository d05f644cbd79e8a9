#include <cstdint>

#include <gtest/gtest.h>

#include <llmfs/core/splitmix64.hpp>

namespace {

using llmfs::SplitMix64;

// Seed 0: the first outputs of Vigna's reference splitmix64.c (x = 0), as published in
// many test vectors (e.g. the Xoshiro seeding examples).
TEST(SplitMix64, SeedZeroMatchesReferenceOutputs) {
  SplitMix64 rng(0);
  EXPECT_EQ(rng.next_u64(), 0xE220A8397B1DCDAFULL);
  EXPECT_EQ(rng.next_u64(), 0x6E789E6AA1B965F4ULL);
  EXPECT_EQ(rng.next_u64(), 0x06C45D188009454FULL);
  EXPECT_EQ(rng.next_u64(), 0xF88BB8A8724C81ECULL);
  EXPECT_EQ(rng.next_u64(), 0x1B39896A51A8749BULL);
}

// Seed 1234567: the Rosetta Code "Pseudo-random numbers/Splitmix64" task lists these
// five outputs; they were also re-derived from the algorithm description with Python
// integers.
TEST(SplitMix64, Seed1234567MatchesPublishedOutputs) {
  SplitMix64 rng(1234567);
  EXPECT_EQ(rng.next_u64(), 6457827717110365317ULL);
  EXPECT_EQ(rng.next_u64(), 3203168211198807973ULL);
  EXPECT_EQ(rng.next_u64(), 9817491932198370423ULL);
  EXPECT_EQ(rng.next_u64(), 4593380528125082431ULL);
  EXPECT_EQ(rng.next_u64(), 16408922859458223821ULL);
}

// Hand derivation of the first step for seed 0: state = 0x9E3779B97F4A7C15, and the
// mixing steps are a pure function of it, so the state after n draws is n times the
// increment.
TEST(SplitMix64, StateAdvancesByTheGoldenRatioIncrement) {
  SplitMix64 rng(5);
  rng.next_u64();
  rng.next_u64();
  EXPECT_EQ(rng.state(), 5ULL + 2ULL * 0x9E3779B97F4A7C15ULL);
}

TEST(SplitMix64, NextUnitUsesTheTop53Bits) {
  SplitMix64 rng(0);
  SplitMix64 copy = rng;
  const double unit = rng.next_unit();
  EXPECT_EQ(unit, static_cast<double>(copy.next_u64() >> 11) * 0x1.0p-53);
  EXPECT_GE(unit, 0.0);
  EXPECT_LT(unit, 1.0);
  EXPECT_NEAR(unit, 0.8833108082136426, 1e-15);  // (0xE220A8397B1DCDAF >> 11) / 2^53
}

TEST(SplitMix64, CopiesDrawTheSameSequence) {
  SplitMix64 first(42);
  SplitMix64 second = first;
  EXPECT_EQ(first, second);
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(first.next_u64(), second.next_u64());
  EXPECT_EQ(first, second);
  first.next_u64();
  EXPECT_NE(first, second);
}

}  // namespace
