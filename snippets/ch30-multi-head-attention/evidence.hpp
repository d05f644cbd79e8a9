// Chapter 30
#pragma once
// Chapter 30's program: every value its report and trace print, gathered once from the
// library, and the functions that render them. The chapter's tests read the same
// struct; the invariants themselves are checked by the tests, not here.

#include <array>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <llmfs/attention/multi_head.hpp>
#include <llmfs/autograd/tape.hpp>
#include <llmfs/autograd/tape_gradcheck.hpp>
#include <llmfs/tensor/shape.hpp>
#include <llmfs/tensor/tensor.hpp>

#include "../common/chapter.hpp"
#include "fixture.hpp"

namespace ch30 {

using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
using snippets::Step;

/// One run of the fixture layer on its own tape; the input and the four matrices are
/// tape parameters, so one backward pass fills every gradient.
struct FixtureRun {
  llmfs::autograd::Tape tape;
  llmfs::autograd::TensorValue input;
  std::vector<llmfs::autograd::TensorValue> weights;  ///< W_Q, W_K, W_V, W_O
  llmfs::attention::MultiHeadAttention layer;
  llmfs::attention::MultiHeadForward forward;
};

/// The fixture layer, with `query_weight` as W_Q, run on `input` from `offset`.
[[nodiscard]] Step<FixtureRun> run_fixture(const Tensor& input,
                                           std::size_t offset = kOffset,
                                           const Tensor& query_weight = identity());
/// The value of a tape node.
[[nodiscard]] Step<Tensor> value_of(const llmfs::autograd::TensorValue& node);

/// Exercise 1: what create() said to one head count at d_model = 6.
struct HeadChoice {
  std::size_t heads = 0;
  std::string verdict;         ///< accepted, odd_head_width or not_divisible
  std::size_t head_width = 0;  ///< d_model / h when h divides d_model, else 0
};

/// The exercise answers, each computed by running the library.
struct Exercises {
  std::vector<HeadChoice> width_six;                       ///< exercise 1
  std::vector<std::pair<std::string, Shape>> shape_trace;  ///< exercise 2
  std::array<std::vector<std::size_t>, 2> visible_keys;    ///< exercise 3
  Tensor concatenated, swapped, off_block;                 ///< exercise 5, [1,1,4]
  Tensor dense_query_heads;  ///< exercise 7: query heads with (W_Q)[3][0] = 1
  std::size_t wide_model_width = 0, wide_heads = 0, wide_parameters = 0;  ///< ex. 8
};

/// Everything the report and the trace print.
struct Evidence {
  // The fixture's forward record, read off the tape.
  Tensor input, projected_query_heads, projected_key_heads, projected_value_heads,
      rotated_query_heads, rotated_key_heads, masked_scores, attention_weights,
      head_outputs, merged, output_weight, output;
  // The four matrices as the layer lists them.
  std::vector<std::string> parameter_names;
  std::vector<Shape> parameter_shapes;
  std::size_t parameter_count = 0;
  bool output_bias = false;  ///< whether W_O carries a bias
  // L = Σ output ⊙ U, one backward pass, and the central-difference check.
  Tensor upstream, input_gradient;
  double loss = 0.0;
  std::array<Tensor, 4> parameter_gradients;  ///< W_Q, W_K, W_V, W_O, [in,out]
  llmfs::autograd::GradientCheckReport gradcheck;
  // The prefix check and the boundaries.
  Tensor prefix_perturbed_output;
  Shape empty_batch_weights, empty_batch_output, single_token_weights;
  /// One refused configuration or input per entry: its name and the library's message.
  std::vector<std::pair<std::string, std::string>> errors;
  // The history contrast: one 2014 context, one full-width causal table [1,3,3].
  std::array<double, 2> earlier_weighted_context{};
  Tensor single_head_weights;
  Exercises exercises;
};

[[nodiscard]] Step<decltype(Evidence::errors)> gather_errors();
[[nodiscard]] Step<void> historical_contrast(Evidence& out);
[[nodiscard]] Step<Exercises> answer_exercises(const Evidence& evidence);
/// Every value the program prints.
[[nodiscard]] Step<Evidence> gather_evidence();

/// How many coordinates of each output row differ, bit for bit, between `a` and `b`.
[[nodiscard]] std::vector<std::size_t> changed_per_row(const Tensor& a,
                                                       const Tensor& b);
/// The report: one `key=...` line per fact, then the exercises.
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The 34 trace records behind the chapter's diagram.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch30
