// Chapter 29
#pragma once
// Chapter 29, rotary position embedding: the frozen fixture and everything the chapter
// shows.

#include <array>
#include <cstddef>
#include <expected>
#include <string>
#include <vector>

#include <llmfs/attention/rope.hpp>
#include <llmfs/tensor/tensor.hpp>

namespace ch29 {

// region: fixture
/// One row of content at three positions: width 4, base 100, capacity 6.
/// Every query and key row is `content`; value row t is e_t, so an
/// output row spells out its attention weights. Offset 3 is the
/// largest that fits three tokens into six positions.
struct Fixture {
  static constexpr std::size_t width = 4;     // d: pairs (x0,x1) and (x2,x3)
  static constexpr std::size_t tokens = 3;    // T
  static constexpr std::size_t capacity = 6;  // P: positions 0..5
  static constexpr double base = 100.0;       // θ_0 = 1, θ_1 = 100^(-1/2) = 0.1
  static constexpr std::array<std::size_t, 2> offsets{0, 3};
  static constexpr std::array<double, width> content{1.0, 0.0, 1.0, 0.0};
  static constexpr std::array<double, tokens * width> values{
      1.0, 0.0, 0.0, 0.0,  // v_0
      0.0, 1.0, 0.0, 0.0,  // v_1
      0.0, 0.0, 1.0, 0.0,  // v_2
  };
};
// endregion: fixture

/// The fixture's layer; `tokens` rows of `content` as a `[1, T, d]` tensor; the value
/// rows.
[[nodiscard]] std::expected<llmfs::attention::RotaryEmbedding, std::string>
fixture_rope();
[[nodiscard]] llmfs::tensor::Tensor fixture_content_rows();
[[nodiscard]] llmfs::tensor::Tensor fixture_value_rows();

/// Rotated rows and their unscaled score table `S = Q̃·K̃ᵀ` at one offset.
struct RelativeScores {
  llmfs::tensor::Tensor rotated_query;  ///< [1, T, d]
  llmfs::tensor::Tensor rotated_key;    ///< [1, T, d]
  llmfs::tensor::Tensor scores;         ///< [1, T, T], unscaled
};

/// Rotates `query` and `key` ([1, T, d]) at `offset` and takes every dot product.
[[nodiscard]] std::expected<RelativeScores, std::string> relative_scores(
    const llmfs::attention::RotaryEmbedding& rope, const llmfs::tensor::Tensor& query,
    const llmfs::tensor::Tensor& key, std::size_t offset);

/// Largest |a − b| over two score tables, and over each diagonal of one table (how far
/// a table is from depending on the gap p − s alone).
[[nodiscard]] double max_difference(const llmfs::tensor::Tensor& a,
                                    const llmfs::tensor::Tensor& b);
[[nodiscard]] double max_diagonal_spread(const llmfs::tensor::Tensor& scores);

/// Causal attention on rotated queries and keys: the real layer (values unrotated) and
/// the contrast that rotates the values as well.
struct ValuePolicy {
  llmfs::tensor::Tensor weights;  ///< [1, T, T]
  llmfs::tensor::Tensor output;   ///< [1, T, d], weights · V
  llmfs::tensor::Tensor
      output_if_values_rotated;  ///< [1, T, d], weights · RoPE(V): not done
};

[[nodiscard]] std::expected<ValuePolicy, std::string> value_policy(
    const llmfs::attention::RotaryEmbedding& rope, const llmfs::tensor::Tensor& query,
    const llmfs::tensor::Tensor& key, const llmfs::tensor::Tensor& value,
    std::size_t offset);

/// Everything at one offset of the fixture.
struct OffsetRun {
  std::size_t offset = 0;
  RelativeScores relative;
  ValuePolicy attention;
  std::vector<double> angles;        ///< [T · pairs], p·θ_i
  std::vector<double> norms_before;  ///< per token
  std::vector<double> norms_after;   ///< per token
};

/// The formatted message of every typed error the chapter names.
struct ErrorCases {
  std::string zero_width;
  std::string odd_width;
  std::string base;
  std::string zero_capacity;
  std::string capacity;
  std::string offset_overflow;
};

/// Central differences on the fixture's rotation at the second offset.
struct GradientEvidence {
  std::size_t coordinates = 0;
  double max_abs_error = 0.0;
  double step = 0.0;
  double tolerance = 0.0;
  bool passed = false;
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

[[nodiscard]] std::expected<ExerciseAnswers, std::string> answer_exercises();

/// Every value the report and the trace print.
struct Evidence {
  std::vector<double> theta;             ///< [pairs]
  llmfs::tensor::Tensor cos_table;       ///< [P, pairs]
  llmfs::tensor::Tensor sin_table;       ///< [P, pairs]
  llmfs::tensor::Tensor input;           ///< [1, T, d]
  llmfs::tensor::Tensor values;          ///< [1, T, d]
  std::array<OffsetRun, 2> runs;         ///< offsets 0 and 3
  double score_shift_difference = 0.0;   ///< max |S(offset 0) − S(offset 3)|
  double score_diagonal_spread = 0.0;    ///< max spread along a diagonal, both offsets
  double weight_shift_difference = 0.0;  ///< max |A(offset 0) − A(offset 3)|
  double output_shift_difference = 0.0;  ///< max |O(offset 0) − O(offset 3)|
  double norm_difference = 0.0;          ///< max | |x̃_t| − |x_t| |
  bool position0_output_is_v0 = false;   ///< bitwise, at both offsets
  GradientEvidence gradient;
  ErrorCases errors;
  ExerciseAnswers exercises;
};

/// The tolerance of every "equal up to rounding" claim in this chapter.
inline constexpr double kTolerance = 1e-12;

[[nodiscard]] std::expected<Evidence, std::string> gather_evidence();
[[nodiscard]] std::string render_report(const Evidence& evidence);
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch29
