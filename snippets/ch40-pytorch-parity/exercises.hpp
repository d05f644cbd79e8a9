// Chapter 40
#pragma once
// The appendix's exercises (seed 002's four), answered by code; tests compare the
// answers with the same questions answered by torch
// (tests/reference/data/ch40_exercises.txt).
#include <cstddef>
#include <string>
#include <vector>

#include <llmfs/tensor/shape.hpp>

namespace ch40 {

/// The exercises' configuration: B=3, T=10, h=8, d_head=16.
struct ExerciseConfig {
  std::size_t batch = 3;
  std::size_t tokens = 10;
  std::size_t heads = 8;
  std::size_t head_width = 16;
};

/// Every answer, computed from the configuration.
struct ExerciseAnswers {
  std::size_t model_width{};              ///< 1: d = h·d_head
  llmfs::tensor::Shape w_in_shape;        ///< 1: [d, 3d] (ours; PyTorch stores [3d, d])
  llmfs::tensor::Shape w_o_shape;         ///< 1: [d, d]
  std::vector<std::size_t> view_strides;  ///< 2: strides of view(B,T,h,d_head)
  llmfs::tensor::Shape split_shape;       ///< 2: [B,h,T,d_head]
  std::vector<std::size_t>
      split_strides;        ///< 2: after transpose(1,2): two strides swap
  bool split_contiguous{};  ///< 2: false: the strides are not row-major
  std::vector<std::size_t>
      contiguous_strides;             ///< 2: row-major strides of [B,h,T,d_head]
  llmfs::tensor::Shape mask_shape;    ///< 3: [1,1,T,T]
  llmfs::tensor::Shape scores_shape;  ///< 3: [B,h,T,T]
  llmfs::tensor::Shape mask_broadcast_shape;  ///< 3: broadcast of the two
  std::string mask_line;                      ///< 3: the one line of PyTorch
  std::size_t combined_parameters{};          ///< 4: W_in [d,3d]
  std::size_t separate_parameters{};          ///< 4: W_Q, W_K, W_V each [d,d]
};

/// Answers for `config`.
[[nodiscard]] ExerciseAnswers answer_exercises(const ExerciseConfig& config = {});

}  // namespace ch40
