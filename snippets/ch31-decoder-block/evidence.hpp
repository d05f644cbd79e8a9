// Chapter 31
#pragma once
// Chapter 31's program: every value its report and trace print, gathered once from the
// library, and the functions that render them. The chapter's tests read the same
// struct; the claims themselves are checked by the tests.

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <llmfs/autograd/tape.hpp>
#include <llmfs/models/decoder_block.hpp>
#include <llmfs/tensor/shape.hpp>
#include <llmfs/tensor/tensor.hpp>

#include "../common/chapter.hpp"
#include "fixture.hpp"

namespace ch31 {

using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
using snippets::Step;

/// The six intermediates of one block pass, read off the tape (plus the input).
struct Stages {
  Tensor input, attention_input, attention_output, hidden, ffn_input, ffn_output,
      output;
  Tensor attention_weights;  ///< `[1,2,3,3]`
};

/// The fixture block on its own tape, run on `input`. `zero_branches` sets W_O and W₂
/// to zero (both branches then output exactly 0).
[[nodiscard]] Step<Stages> run_fixture(const Tensor& input, bool zero_branches = false);

/// The exercise answers, each computed by running the library.
struct Exercises {
  std::size_t wide_model_width = 0, wide_heads = 0, wide_hidden = 0;  ///< exercise 1
  std::size_t wide_parameters = 0;                                    ///< exercise 1
  std::vector<std::pair<std::string, double>> scale_changes;          ///< exercise 2
  std::size_t x_gradient_paths = 0;  ///< exercise 3: tape nodes whose parent is x
};

/// Everything the report and the trace print.
struct Evidence {
  Stages fixture;         ///< the block on X
  Stages scaled;          ///< the block on 10·X
  Stages zero_branches;   ///< W_O = W₂ = 0
  Tensor post_norm_zero;  ///< the post-norm arrangement with both branches 0
  std::size_t identity_mismatches =
      0;  ///< coordinates where the zero-branch output ≠ X
  std::vector<std::string> parameter_names;
  std::vector<Shape> parameter_shapes;
  std::size_t parameter_count = 0;
  std::size_t formula_count = 0;             ///< block_parameter_count(d, d_ff)
  std::vector<std::size_t> changed_per_row;  ///< last row perturbed
  std::vector<std::pair<std::string, std::string>> errors;
  Exercises exercises;
};

[[nodiscard]] Step<Exercises> answer_exercises(const Evidence& evidence);
/// Every value the program prints.
[[nodiscard]] Step<Evidence> gather_evidence();
/// The report: one `key=...` line per fact, then the exercises.
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The trace records behind the chapter's diagram.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch31
