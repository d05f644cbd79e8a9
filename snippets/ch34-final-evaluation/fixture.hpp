// Chapter 34
#pragma once
// Chapter 34's frozen fixture and settings, shared by the demo and
// tests/chapters/ch34_*_test.cpp.

#include <array>
#include <cmath>
#include <cstddef>
#include <vector>

#include <llmfs/training/trainer.hpp>

namespace ch34 {

// region: fixture
/// One framed document of 7 byte tokens (BOS = 256, EOS = 257), windows of T = 2 every
/// 2: examples at 0, 2 and 4, so 6 predicted positions spelling 5 bytes and EOS.
inline const llmfs::training::ExampleSet kFixtureTest{
    {{256, 'a', 'b', 'a', 'b', 'a', 257}}, {{0, 0}, {0, 2}, {0, 4}}};
/// The bytes those positions spell: five letters; EOS spells none.
inline constexpr std::size_t kFixtureBytes = 5;
/// A model that gives every next token probability 1/4: a loss of ln 4 per position.
inline const double kFixtureLoss = std::log(4.0);
// endregion: fixture

// region: test-settings
/// The test partition's first kTestDocuments documents, at most kTestExamples windows
/// of Chapter 33's T = 32, scored in batches of B = 8.
inline constexpr std::size_t kTestDocuments = 2, kTestExamples = 128;
/// The bigram's α, chosen on the validation examples by Chapter 33's rule.
inline constexpr std::array<double, 3> kAlphas = {1.0, 0.1, 0.01};
// endregion: test-settings

}  // namespace ch34
