// Chapter 29
#pragma once
// Every value the report and the trace print, gathered once from the library.

#include <string>
#include <utility>

#include "../common/chapter.hpp"
#include "fixture.hpp"

namespace ch29 {

using snippets::Step;

/// Rotated rows and their unscaled score table `S = Q̃·K̃ᵀ` at one offset.
struct RelativeScores {
  llmfs::tensor::Tensor rotated_query;  ///< [1, T, d]
  llmfs::tensor::Tensor scores;         ///< [1, T, T], unscaled
};

/// Causal attention on rotated queries and keys: the real layer (values unrotated) and
/// the contrast that rotates the values as well.
struct ValuePolicy {
  llmfs::tensor::Tensor weights;                   ///< [1, T, T]
  llmfs::tensor::Tensor output;                    ///< [1, T, d], weights · V
  llmfs::tensor::Tensor output_if_values_rotated;  ///< [1, T, d], weights · RoPE(V)
};

/// The fixture at one offset.
struct OffsetRun {
  std::size_t offset = 0;
  RelativeScores relative;
  ValuePolicy attention;
};

/// The exercise answers, each computed with the library.
struct ExerciseAnswers {
  std::vector<double> rates_width8_base10000;    ///< 1
  double slow_pair_period = 0.0;                 ///< 2: 2π/θ_1 of the fixture
  double score_5_2 = 0.0;                        ///< 3: content at query 5, key 2
  double score_3_0 = 0.0;                        ///< 3: the same gap from offset 0
  std::size_t largest_offset = 0;                ///< 4
  std::string first_invalid;                     ///< 4: the error of largest_offset + 1
  std::vector<double> position0_real;            ///< 5: output row 0 at offset 3
  std::vector<double> position0_values_rotated;  ///< 5: the same if values were rotated
  std::vector<double> counter_rotated_row;       ///< 6: R(-2)[1,0]
  std::vector<double> counter_rotated_result;    ///< 6: RoPE at position 2 of that row
};

/// Every value the report and the trace print.
struct Evidence {
  llmfs::attention::RotaryEmbedding rope;  ///< the fixture's layer: rates and tables
  std::array<OffsetRun, 2> runs{};         ///< offsets 0 and 3
  /// Each rejected input the chapter names, with the library's message.
  std::vector<std::pair<std::string, std::string>> errors{};
  ExerciseAnswers exercises{};
};

[[nodiscard]] Step<Evidence> gather_evidence();
[[nodiscard]] std::string render_report(const Evidence& evidence);
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch29
