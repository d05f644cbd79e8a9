// Chapter 16
#pragma once
// Chapter 16's frozen fixture, shared by the demo and tests/chapters/ch16_*_test.cpp: a
// vocabulary of V = 3 tokens, embeddings of width D = 2 and one 2-token sequence.

#include <cmath>
#include <vector>

#include <llmfs/autograd/model_ops.hpp>

namespace ch16 {

// region: fixture
/// The embedding table E [V=3, D=2]: token 0 ↦ (0,0), 1 ↦ (1,0), 2 ↦ (0,1).
inline const std::vector<double> kTable = {0, 0, 1, 0, 0, 1};
/// The output weights W [D=2, V=3]: logits = h·W. Row 0 is (ln 2, 0, 0), row 1 (0, 1,
/// 0).
inline const std::vector<double> kOutput = {std::log(2.0), 0, 0, 0, 1, 0};
/// The sequence [B=1, T=2]: tokens 0 then 1.
inline const llmfs::autograd::TokenGrid kInputs{1, 2, {0, 1}};
/// What should come next at each position: token 0, then token 2.
inline const llmfs::autograd::TokenGrid kTargets{1, 2, {0, 2}};
// endregion: fixture

}  // namespace ch16
