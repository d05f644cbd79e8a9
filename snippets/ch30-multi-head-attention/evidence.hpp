// Chapter 30
#pragma once
// Chapter 30's program: the frozen fixture, every value its report and trace print, and
// the functions that gather and render them. The chapter's tests read the same structs.

#include <array>
#include <cstddef>
#include <expected>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <llmfs/attention/multi_head.hpp>
#include <llmfs/autograd/tape.hpp>
#include <llmfs/tensor/shape.hpp>
#include <llmfs/tensor/tensor.hpp>

#include "../common/expect.hpp"

namespace ch30 {

// the fixture

inline constexpr std::size_t kBatch = 1;
inline constexpr std::size_t kTokens = 3;
inline constexpr std::size_t kModelWidth = 4;
inline constexpr std::size_t kHeads = 2;
inline constexpr std::size_t kHeadWidth = kModelWidth / kHeads;
inline constexpr std::size_t kMaxPositions = 6;
inline constexpr double kRopeBase = 100.0;
inline constexpr std::size_t kOffset = 0;
/// The shared offset of the relative-position check: positions 3..5 instead of 0..2.
inline constexpr std::size_t kSharedOffset = 3;

/// W_O stored [in, out]: row r receives concatenated coordinate r; it swaps the head
/// blocks.
inline constexpr std::array<double, 16> kOutputWeight = {0, 0, 1, 0,  //
                                                         0, 0, 0, 1,  //
                                                         1, 0, 0, 0,  //
                                                         0, 1, 0, 0};
/// ∂L/∂output for L = Σ output ⊙ upstream.
inline constexpr std::array<double, 12> kUpstream = {1.0, -0.5, 0.25, 0.75, -0.3, 0.8,
                                                     1.2, -0.4, 0.6,  0.1,  -0.7, 0.9};
/// The prefix check replaces the last input row with this one.
inline constexpr std::array<double, 4> kPerturbedLastRow = {3.0, -2.0, -1.0, 4.0};
/// The head-isolation check adds this to input[0] (token 0, feature 0: head 0's lane).
inline constexpr double kIsolationNudge = 0.25;

inline constexpr double kInvariantTolerance = 1e-12;
inline constexpr double kGradientStep = 1e-6;
inline constexpr double kGradientTolerance = 8e-6;

inline constexpr const char* kParameterPrefix = "attention";

/// The input X [1,3,4]: rows [1,0,1,0], [cos 1,−sin 1,0,1], [cos 2,−sin 2,1,1].
[[nodiscard]] llmfs::tensor::Tensor fixture_input();
/// The d×d identity (W_Q = W_K = W_V in the fixture).
[[nodiscard]] llmfs::tensor::Tensor identity(std::size_t width);
/// kOutputWeight as a [4,4] tensor.
[[nodiscard]] llmfs::tensor::Tensor fixture_output_weight();

/// The errors of this program: a library error formatted with the step that raised it.
using Failure = std::string;

/// Formats any library error with the step of the program that met it.
using snippets::need;

/// One run of the fixture layer: its tape, input node and every forward intermediate.
struct FixtureRun {
  llmfs::autograd::Tape tape;
  llmfs::autograd::TensorValue input;  ///< a tape parameter, so it receives a gradient
  std::vector<llmfs::autograd::TensorValue> weights;  ///< W_Q, W_K, W_V, W_O nodes
  llmfs::attention::MultiHeadAttention layer;
  llmfs::attention::MultiHeadForward forward;
};

/// Builds the fixture layer (exact matrices, or `query_weight` instead of I) on a fresh
/// tape and runs it on `input` from `offset`.
[[nodiscard]] std::expected<FixtureRun, Failure> run_fixture(
    const llmfs::tensor::Tensor& input, std::size_t offset,
    const llmfs::tensor::Tensor& query_weight = identity(kModelWidth));

/// The value of a tape node, or the failure naming `what`.
[[nodiscard]] std::expected<llmfs::tensor::Tensor, Failure> value_of(
    const llmfs::autograd::TensorValue& node, std::string_view what);

// evidence

/// The fixture's tensors, its invariants and its gradients.
struct PrimaryEvidence {
  llmfs::tensor::Tensor input;
  llmfs::tensor::Tensor projected_query_heads;  ///< [1,2,3,2]
  llmfs::tensor::Tensor projected_key_heads;
  llmfs::tensor::Tensor projected_value_heads;
  llmfs::tensor::Tensor rotated_query_heads;
  llmfs::tensor::Tensor rotated_key_heads;
  llmfs::tensor::Tensor masked_scores;  ///< RoPE(Q)·RoPE(K)ᵀ/√d_h + M, [1,2,3,3]
  llmfs::tensor::Tensor attention_weights;  ///< [1,2,3,3]
  llmfs::tensor::Tensor head_outputs;       ///< [1,2,3,2]
  llmfs::tensor::Tensor merged;             ///< [1,3,4]
  llmfs::tensor::Tensor output_weight;      ///< [4,4]
  llmfs::tensor::Tensor output;             ///< [1,3,4]

  bool uniform_head_zero = false;      ///< head 0 rows are 1, 1/2, 1/3 on visible keys
  bool distinct_head_weights = false;  ///< head 1's table differs from head 0's
  bool future_probabilities_zero =
      false;  ///< every weight above the diagonal is exactly 0.0

  llmfs::tensor::Tensor
      prefix_perturbed_output;         ///< output after replacing the last row
  bool prefix_zero_unchanged = false;  ///< output row 0 bitwise equal
  bool prefix_one_unchanged = false;   ///< output row 1 bitwise equal
  bool suffix_changed = false;         ///< output row 2 differs

  bool split_merge_bitwise = false;  ///< merge(split(X)) == X bit for bit
  bool split_is_reshape_transpose =
      false;  ///< the query heads equal transpose(reshape(X·W_Q), 1, 2) bit for bit
  bool head_isolation_before_output =
      false;  ///< nudging head 0's lane leaves head 1 alone
  bool common_offset_weights_preserved =
      false;  ///< offset 3 keeps the weights to 1e-12

  llmfs::tensor::Tensor upstream;  ///< [1,3,4]
  double loss = 0.0;               ///< Σ output ⊙ upstream
  llmfs::tensor::Tensor input_gradient;
  std::array<llmfs::tensor::Tensor, 4>
      parameter_gradients;  ///< W_Q, W_K, W_V, W_O, [in,out]
  bool tape_finite =
      false;  ///< every kept intermediate, the loss and every gradient finite
};

/// Names, shapes and counts of the four matrices.
struct ParameterEvidence {
  std::vector<std::string> names;
  std::vector<llmfs::tensor::Shape> shapes;
  std::size_t count = 0;
  bool bias_free = false;
  bool node_distinct = false;
};

/// Central differences on every coordinate of X and the four matrices.
struct GradientEvidence {
  std::size_t input_checks = 0;
  std::size_t query_checks = 0;
  std::size_t key_checks = 0;
  std::size_t value_checks = 0;
  std::size_t output_checks = 0;
  double max_abs_error = 0.0;
  bool passed = false;
  [[nodiscard]] std::size_t total() const noexcept {
    return input_checks + query_checks + key_checks + value_checks + output_checks;
  }
};

/// Every stage's shape, plus the empty-batch and single-token boundaries.
struct ShapeEvidence {
  llmfs::tensor::Shape input, split, rotated, weights, head_output, merged,
      output_weight, output;
  llmfs::tensor::Shape empty_batch_weights, empty_batch_output, single_token_weights;
  bool empty_batch_backward = false;  ///< backward through the empty batch succeeded
};

/// One refused configuration or input: whether it failed with the expected code, and
/// how the library worded it.
struct RejectedCase {
  bool rejected = false;
  std::string message;
};

/// The typed errors, one case each.
struct ErrorEvidence {
  RejectedCase zero_model_width, zero_heads, nondivisible, odd_head_width, input_rank,
      input_width, empty_tokens, offset_overflow, position_range, released_input;
  bool rng_untouched =
      false;  ///< every refused create() left the generator where it was
};

/// The history contrast: one weighted context, one full-width table, two head tables.
struct HistoryEvidence {
  std::array<double, 2> earlier_weighted_context{};
  std::size_t earlier_distributions_per_target = 0;
  llmfs::tensor::Tensor single_head_weights;  ///< [1,3,3]
  llmfs::tensor::Shape multi_head_weight_shape;
  std::size_t single_head_tables = 0;
  std::size_t multi_head_tables = 0;
  bool all_rows_normalized = false;
};

/// Exercise answers, each computed by running the library.
struct HeadChoice {
  std::size_t heads = 0;
  std::string verdict;         ///< accepted, odd_head_width or not_divisible
  std::size_t head_width = 0;  ///< d_model / h when h divides d_model, else 0
};

struct ExerciseAnswers {
  std::vector<HeadChoice> width_six;  ///< exercise 1
  std::vector<std::pair<std::string, llmfs::tensor::Shape>>
      shape_trace;  ///< exercise 2
  std::array<std::vector<std::size_t>, 2>
      visible_keys;  ///< exercise 3, per head and query
  bool blocked_exact_zero = false;
  bool triangles_equal = false;
  bool allowed_probabilities_equal = true;
  std::array<double, 2> single_head_row_one{};  ///< exercise 4
  std::array<double, 2> head_zero_row_one{};
  std::array<double, 2> head_one_row_one{};
  std::array<double, 4> symbolic{};              ///< exercise 5: a, b, c, d
  llmfs::tensor::Tensor concatenated;            ///< [1,1,4]
  llmfs::tensor::Tensor swapped;                 ///< through the fixture W_O
  llmfs::tensor::Tensor off_block;               ///< through I with (W_O)[0][2] = 1
  std::array<double, 2> dense_query_identity{};  ///< exercise 7: head 0 query, token 1
  std::array<double, 2> dense_query_mixed{};     ///< with (W_Q)[3][0] = 1
  std::size_t wide_model_width = 0;              ///< exercise 8
  std::size_t wide_heads = 0;
  std::size_t wide_parameter_count = 0;
};

/// Everything the report and the trace print.
struct Evidence {
  PrimaryEvidence primary;
  ParameterEvidence parameters;
  GradientEvidence gradients;
  ShapeEvidence shapes;
  ErrorEvidence errors;
  HistoryEvidence history;
  ExerciseAnswers exercises;
  bool replay_bitwise = false;  ///< a second full run gave the same bits everywhere
};

[[nodiscard]] std::expected<PrimaryEvidence, Failure> gather_primary();
[[nodiscard]] std::expected<ParameterEvidence, Failure> gather_parameters();
[[nodiscard]] std::expected<GradientEvidence, Failure> gather_gradients();
[[nodiscard]] std::expected<ShapeEvidence, Failure> gather_shapes();
[[nodiscard]] ErrorEvidence gather_errors();
[[nodiscard]] std::expected<HistoryEvidence, Failure> historical_contrast(
    const PrimaryEvidence& primary);
[[nodiscard]] std::expected<ExerciseAnswers, Failure> answer_exercises(
    const PrimaryEvidence& primary, const HistoryEvidence& history);
/// Every value the program prints, gathered twice to prove bitwise replay.
[[nodiscard]] std::expected<Evidence, Failure> gather_evidence();

/// The report: one `key=...` line per fact, in the seed's key order, then the
/// exercises.
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The 34 trace records behind the chapter's diagram.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

/// True when the two tensors have the same shape and bits.
[[nodiscard]] bool same_bits(const llmfs::tensor::Tensor& a,
                             const llmfs::tensor::Tensor& b);

}  // namespace ch30
