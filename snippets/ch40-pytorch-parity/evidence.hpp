// Chapter 40
// The appendix's evidence: the committed PyTorch data (tests/reference/data/ch40_*.txt)
// next to what the library computes from the same inputs; the lesson's steps with one
// deliberate mistake each (variants.cpp); the exercises' answers (exercises.cpp), which
// tests/parity compares with the same questions answered by torch.
#pragma once

#include <cstddef>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <llmfs/tensor/error.hpp>
#include <llmfs/tensor/shape.hpp>
#include <llmfs/tensor/tensor.hpp>

#include "../common/chapter.hpp"
#include "support/reference_data.hpp"

namespace ch40 {

/// The float64 criterion: max-norm error / max-norm of the reference.
inline constexpr double kFloat64Relative = 1e-12;
/// float32's unit roundoff u = 2^-24.
inline constexpr double kFloat32UnitRoundoff = 0x1p-24;
/// The float32 criterion: |library − torch float32| ≤ kFloat32Factor · u · max|ref|.
inline constexpr double kFloat32Factor = 128.0;
/// The lesson's absolute float32 tolerance between its code and nn.MultiheadAttention.
inline constexpr double kLessonTolerance = 2e-5;
/// The output bias used by the "bias that is not zero" variant.
inline constexpr double kBiasValue = 1e-3;
/// The seed-123 example's configuration (seed 002).
inline constexpr std::size_t kBatch = 2, kTokens = 5, kHeads = 4, kHeadWidth = 8,
                             kWidth = 32;

// The lesson's multi-head attention written step by step with this library's tensor
// ops, with one deliberate mistake from the lesson's failure-modes table (or none).

/// One row of the lesson's failure-modes table, as code.
enum class Mistake {
  none,                ///< the correct steps
  split_order,         ///< reshape [B,T,d] -> [B,h,T,d_h] directly (no transpose)
  missing_transpose,   ///< reshape to [B,T,h,d_h] and attend over axis 2 (the heads)
  missing_contiguity,  ///< PyTorch's transpose-then-view; here transpose already copies
  merge_order,         ///< reshape [B,h,T,d_h] -> [B,T,d] without transposing back
  mask_batch_only,     ///< a causal mask [B,T,T]: no head axis, so it cannot broadcast
  output_bias,         ///< W_O followed by a bias of `bias_value` on every coordinate
};

/// Every mistake, in table order (none first).
inline constexpr Mistake kMistakes[] = {Mistake::none,
                                        Mistake::split_order,
                                        Mistake::missing_transpose,
                                        Mistake::missing_contiguity,
                                        Mistake::merge_order,
                                        Mistake::mask_batch_only,
                                        Mistake::output_bias};

/// A short name, e.g. "split_order".
[[nodiscard]] std::string_view mistake_name(Mistake mistake) noexcept;

/// What one variant produced: the output and how many learned scalars it uses.
struct LessonForward {
  llmfs::tensor::Tensor output;   ///< [B,T,d]
  std::size_t parameter_count{};  ///< 3d² + d² (+ d with an output bias)
};

/// x [B,T,d], w_in [d,3d], w_o [d,d] -> output [B,T,d], causal, no RoPE, `heads` heads,
/// following the lesson's steps with `mistake` made on purpose. `bias_value` is the
/// output bias of Mistake::output_bias (0.0 is how nn.MultiheadAttention initialises
/// it). \return the tensor op's typed error where the mistake makes shapes disagree.
[[nodiscard]] std::expected<LessonForward, llmfs::tensor::TensorError> lesson_forward(
    const llmfs::tensor::Tensor& x, const llmfs::tensor::Tensor& w_in,
    const llmfs::tensor::Tensor& w_o, std::size_t heads, Mistake mistake,
    double bias_value = 0.0);

// The appendix's exercises (seed 002's four), answered by code.

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
  std::vector<std::size_t> split_strides;       ///< 2: transpose(1,2) swaps two
  bool split_contiguous{};                      ///< 2: false: not row-major
  std::vector<std::size_t> contiguous_strides;  ///< 2: row-major, [B,h,T,d_head]
  llmfs::tensor::Shape mask_shape;              ///< 3: [1,1,T,T]
  llmfs::tensor::Shape scores_shape;            ///< 3: [B,h,T,T]
  llmfs::tensor::Shape mask_broadcast_shape;    ///< 3: broadcast of the two
  std::string mask_line;                        ///< 3: the one line of PyTorch
  std::size_t combined_parameters{};            ///< 4: W_in [d,3d]
  std::size_t separate_parameters{};            ///< 4: W_Q, W_K, W_V each [d,d]
};

/// Answers for `config`.
[[nodiscard]] ExerciseAnswers answer_exercises(const ExerciseConfig& config = {});

/// What the library computed for one case: output, per-head weights, the gradients of
/// loss = Σ output ⊙ upstream, and the shapes of its forward record.
struct LibraryRun {
  llmfs::tensor::Tensor output, weights;              ///< [B,T,d], [B,h,T,T]
  llmfs::tensor::Tensor grad_x, grad_w_in, grad_w_o;  ///< [B,T,d], [d,3d], [d,d]
  std::size_t parameter_count{};                      ///< learned scalars in the layer
  llmfs::tensor::Shape split_shape, head_output_shape, merged_shape;
};

/// The library's MultiHeadAttention from the case's combined W_in and W_O (with RoPE
/// when the case has a base and offset), run on its X and seeded with its upstream.
[[nodiscard]] snippets::Step<LibraryRun> run_library(
    const llmfs::testing::ReferenceData& data);

/// One tensor against its reference: max|library − ref| / max|ref| (infinite when
/// the sizes or the places of −∞ differ).
struct TensorParity {
  std::string name;  ///< e.g. "output", "grad_W_in"
  double relative{};
};

/// One case against the lesson's manual code and against nn.MultiheadAttention.
struct CaseParity {
  std::string name;  ///< data file name, e.g. "ch40_random_b1_t7_h2"
  std::size_t batch{}, tokens{}, heads{}, head_width{};
  bool rope{};                       ///< RoPE on Q and K (manual reference only)
  std::vector<TensorParity> manual;  ///< vs the lesson's manual code
  std::vector<TensorParity> module;  ///< vs nn.MultiheadAttention (empty with RoPE)
};

/// The float32 finding for one tensor: errors in units of u·max|reference|.
struct Float32Tensor {
  std::string name;
  double reference_max{};             ///< max|float64 result on the float32 inputs|
  double manual_abs{}, module_abs{};  ///< max|library − torch float32|
  double manual_factor{}, module_factor{};  ///< the same over u · reference_max
};

/// The seed-123 example in float32: the lesson's 2e-5 claim, and the criterion used.
struct Float32Finding {
  double manual_vs_module{};  ///< max|manual − nn.MultiheadAttention|, float32 outputs
  double output_max{};        ///< max|output|
  double output_spacing{};    ///< float32 spacing (ulp) at output_max
  double exact_relative{};    ///< library vs torch float64 on the same float32 inputs
  std::vector<Float32Tensor> tensors;
};

/// One deliberately wrong variant run on one case.
struct FailureOutcome {
  Mistake mistake{};
  double bias{};                       ///< the output bias (output_bias only)
  std::optional<std::string> error;    ///< the library's typed error, formatted
  double relative{};                   ///< output vs the torch reference (when it ran)
  std::size_t parameters{};            ///< learned scalars of the variant (when it ran)
  std::size_t reference_parameters{};  ///< nn.MultiheadAttention(bias=False)
  /// Relative difference from torch's output for the same mistake, when torch ran it.
  std::optional<double> torch_variant_relative;
  std::string torch_says;  ///< torch's error for the same mistake, if it raised one
  [[nodiscard]] bool caught() const;  ///< error, or output or parameter count differ
  /// "typed error", "output", "parameter count", both of the last two, "not caught".
  [[nodiscard]] std::string caught_by() const;
};

/// Where the worked example's numbers come from, a few of them, and its shape trace.
struct WorkedExample {
  std::string torch_version, blas;  ///< from the data file's header
  std::vector<double> input_row, torch_output_row, library_output_row;  ///< [0,0,0:4]
  std::vector<double> torch_weights_last;  ///< weights[0,0,4,:]: last query, head 0
  std::size_t rows = 0;                    ///< attention rows B·h·T
  std::size_t rows_one_hot = 0;            ///< rows whose largest weight is > 0.99
  llmfs::tensor::Shape in_proj_weight_shape, out_proj_weight_shape;  ///< [out,in]
  double in_proj_gap{}, out_proj_gap{};  ///< max|in_proj_weightᵀ − W_in|, for W_O
  std::size_t mask_minus_inf{};          ///< −∞ entries of torch's additive mask
  std::size_t parameters{}, torch_parameters{}, torch_parameters_with_bias{};
  llmfs::tensor::Shape input_shape, qkv_shape, chunk_shape, split_shape, weights_shape,
      mask_shape, head_output_shape, merged_shape, output_shape, w_in_shape, w_o_shape;
};

/// Everything the appendix shows.
struct Evidence {
  WorkedExample example;
  std::vector<CaseParity> cases;
  Float32Finding float32;
  std::vector<FailureOutcome> failures;         ///< on the seed-123 float64 example
  std::vector<FailureOutcome> failures_t_eq_h;  ///< on ch40_random_b1_t4_h4
  ExerciseAnswers exercises;
};

/// Loads the data, runs the library and every variant (the criteria are asserted by
/// tests/parity/parity_test.cpp).
[[nodiscard]] snippets::Step<Evidence> gather();

/// Runs one variant against a loaded case.
[[nodiscard]] FailureOutcome run_variant(const llmfs::testing::ReferenceData& data,
                                         Mistake mistake, double bias = 0.0);

/// A tensor from a reference entry (the loader checked that the values fill the shape).
[[nodiscard]] llmfs::tensor::Tensor to_tensor(
    const llmfs::testing::ReferenceTensor& reference);

/// "<=1e-15": the smallest power of ten at or above a small error ("0" for an exact
/// match, "mismatch" for an infinite one).
[[nodiscard]] std::string decade(double value);

/// The report on stdout (`key=value` lines).
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The trace records behind the diagram.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch40
