// Chapter 40
#pragma once
// Chapter 40 (appendix): everything the report, the trace and the tests need, gathered
// from the committed PyTorch data (tests/reference/data/ch40_*.txt) and from running
// the library.
#include <cstddef>
#include <expected>
#include <optional>
#include <string>
#include <vector>

#include <llmfs/tensor/shape.hpp>
#include <llmfs/tensor/tensor.hpp>

#include "exercises.hpp"
#include "support/reference_data.hpp"
#include "variants.hpp"

namespace ch40 {

/// The float64 criterion: max-norm error / max-norm of the reference.
inline constexpr double kFloat64Relative = 1e-12;
/// float32's unit roundoff u = 2^-24.
inline constexpr double kFloat32UnitRoundoff = 0x1p-24;
/// The float32 criterion: |library − torch float32| ≤ kFloat32Factor · u ·
/// max|reference|.
inline constexpr double kFloat32Factor = 128.0;
/// The lesson's absolute float32 tolerance between its manual code and
/// nn.MultiheadAttention.
inline constexpr double kLessonTolerance = 2e-5;
/// The output bias used by the "bias that is not zero" variant.
inline constexpr double kBiasValue = 1e-3;

/// The seed-123 example's configuration (seed 002).
inline constexpr std::size_t kBatch = 2, kTokens = 5, kHeads = 4, kHeadWidth = 8,
                             kWidth = 32;

/// What the library computed for one case: output, per-head weights and the gradients
/// of loss = Σ output ⊙ upstream.
struct LibraryRun {
  llmfs::tensor::Tensor output;            ///< [B,T,d]
  llmfs::tensor::Tensor weights;           ///< [B,h,T,T]
  llmfs::tensor::Tensor grad_x;            ///< [B,T,d]
  llmfs::tensor::Tensor grad_w_in;         ///< [d,3d]
  llmfs::tensor::Tensor grad_w_o;          ///< [d,d]
  std::size_t parameter_count{};           ///< learned scalars in the layer
  llmfs::tensor::Shape split_shape;        ///< projected query heads, [B,h,T,d_h]
  llmfs::tensor::Shape head_output_shape;  ///< weights·V per head, [B,h,T,d_h]
  llmfs::tensor::Shape merged_shape;       ///< heads concatenated, [B,T,d]
};

/// Runs llmfs::attention::MultiHeadAttention built from the case's combined W_in and
/// W_O (no RoPE, or RoPE with the case's base and offset when it has one) on its X and
/// upstream.
[[nodiscard]] std::expected<LibraryRun, std::string> run_library(
    const llmfs::testing::ReferenceData& data);

/// One tensor compared with its reference.
struct TensorParity {
  std::string name;   ///< e.g. "output", "grad_W_in"
  double relative{};  ///< max|library − reference| / max|reference|
  double max_abs{};   ///< max|library − reference|
  bool passed{};      ///< relative ≤ the criterion
};

/// One case: the library against the lesson's manual code and against
/// nn.MultiheadAttention.
struct CaseParity {
  std::string name;  ///< data file name, e.g. "ch40_random_b1_t7_h2"
  std::size_t batch{}, tokens{}, heads{}, head_width{};
  bool rope{};                       ///< RoPE on Q and K (manual reference only)
  std::vector<TensorParity> manual;  ///< vs the lesson's manual code
  std::vector<TensorParity> module;  ///< vs nn.MultiheadAttention (empty with RoPE)
  [[nodiscard]] bool passed() const;
};

/// The float32 finding for one tensor: errors in units of u·max|reference|.
struct Float32Tensor {
  std::string name;
  double reference_max{};  ///< max|float64 result on the float32 inputs|
  double manual_abs{};     ///< max|library − torch float32 manual|
  double module_abs{};     ///< max|library − torch float32 nn.MultiheadAttention|
  double manual_factor{};  ///< manual_abs / (u · reference_max)
  double module_factor{};  ///< module_abs / (u · reference_max)
  bool passed{};           ///< both factors ≤ kFloat32Factor
};

/// The seed-123 example in float32: the lesson's 2e-5 claim and the criterion used
/// instead.
struct Float32Finding {
  double manual_vs_module{};  ///< max|manual float32 − nn.MultiheadAttention float32|,
                              ///< outputs
  double output_max{};        ///< max|output|
  double output_spacing{};    ///< float32 spacing (ulp) at output_max
  bool lesson_claim_holds{};  ///< manual_vs_module < kLessonTolerance
  double exact_relative{};    ///< library vs the float64 run of the same float32 inputs
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
  std::optional<bool> matches_torch_variant;  ///< same output as torch's same mistake
  std::string torch_says;  ///< torch's error for the same mistake, if it raised one
  [[nodiscard]] bool caught() const;  ///< error, or output or parameter count differ
  [[nodiscard]] std::string caught_by()
      const;  ///< "typed error", "output", "parameter count", "not caught"
};

/// Where the worked example's numbers come from, and a few of them.
struct WorkedExample {
  std::string torch_version, blas;         ///< from the data file's header
  std::vector<double> input_row;           ///< X[0,0,0:4]
  std::vector<double> torch_output_row;    ///< nn.MultiheadAttention output[0,0,0:4]
  std::vector<double> library_output_row;  ///< library output[0,0,0:4]
  std::vector<double>
      torch_weights_last;        ///< weights[0,0,4,:] (the last query, head 0)
  std::size_t rows = 0;          ///< attention rows B·h·T
  std::size_t rows_one_hot = 0;  ///< rows whose largest weight is > 0.99
  llmfs::tensor::Shape in_proj_weight_shape,
      out_proj_weight_shape;     ///< PyTorch's [out,in]
  bool in_proj_is_transpose{};   ///< in_proj_weight == W_inᵀ element for element
  bool out_proj_is_transpose{};  ///< out_proj.weight == W_Oᵀ
  bool masks_agree{};            ///< additive mask −∞ exactly where tril is false
  std::size_t parameters{},
      torch_parameters{};  ///< library vs nn.MultiheadAttention(bias=False)
  std::size_t torch_parameters_with_bias{};  ///< nn.MultiheadAttention(bias=True)
  /// The shape trace, from the library's run: X, X·W_in, one of Q/K/V, split, scores
  /// and weights, the mask, head outputs, merged, output.
  llmfs::tensor::Shape input_shape, qkv_shape, chunk_shape, split_shape, weights_shape,
      mask_shape, head_output_shape, merged_shape, output_shape, w_in_shape, w_o_shape;
};

/// Everything the appendix shows.
struct Evidence {
  WorkedExample example;
  std::vector<CaseParity> cases;
  Float32Finding float32;
  std::vector<FailureOutcome> failures;  ///< on the seed-123 float64 example
  std::vector<FailureOutcome>
      failures_t_eq_h;  ///< on ch40_random_b1_t4_h4 (T == h, B == 1)
  ExerciseAnswers exercises;
};

/// The folder holding the committed data (tests/reference/data under the source tree).
[[nodiscard]] std::string default_data_dir();

/// Loads the data files, runs the library and every variant; an error names the stage.
[[nodiscard]] std::expected<Evidence, std::string> gather_evidence(
    const std::string& data_dir = default_data_dir());

/// Runs one variant against a loaded case.
[[nodiscard]] FailureOutcome run_variant(const llmfs::testing::ReferenceData& data,
                                         Mistake mistake, double bias = 0.0);

/// A tensor from a reference entry (shape and values).
[[nodiscard]] llmfs::tensor::Tensor to_tensor(
    const llmfs::testing::ReferenceTensor& reference);

/// The case names compared with the library, in report order.
inline const std::vector<std::string>& parity_case_names() {
  static const std::vector<std::string> names{
      "ch40_seed123_float64", "ch40_random_b1_t7_h2", "ch40_random_b1_t4_h4",
      "ch40_random_b3_t4_h3_rope", "ch40_random_b2_t6_h8_rope"};
  return names;
}

/// "<=1e-15": the smallest power of ten at or above a small error ("0" for an exact
/// match).
[[nodiscard]] std::string decade(double value);
/// Three significant digits in scientific notation, e.g. "6.29e-05".
[[nodiscard]] std::string sci(double value);

/// The report on stdout (`key=value` lines).
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The trace records behind the diagram.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch40
