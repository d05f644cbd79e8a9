// Chapter 32
#pragma once
// Chapter 32's program: every value its report and trace print, gathered once from the
// library, and the functions that render them. The chapter's tests read the same
// struct; the claims themselves are checked by the tests.

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <llmfs/autograd/gradcheck.hpp>
#include <llmfs/models/decoder.hpp>
#include <llmfs/tensor/tensor.hpp>

#include "../common/chapter.hpp"
#include "fixture.hpp"

namespace ch32 {

using llmfs::tensor::Tensor;
using snippets::Step;

/// One component's share of the parameters.
struct Component {
  std::string name;   ///< `embedding (tied)`, `blocks.0`, ..., `final_norm`
  std::size_t count;  ///< its learned scalars
};

/// One point of the residual stream through the demo model.
struct StreamPoint {
  std::string stage;        ///< `embeddings`, `blocks.0`, ...
  double stream_rms = 0.0;  ///< RMS of x_i over every position and coordinate
  double attention_rms = 0.0, ffn_rms = 0.0;  ///< the block's two branch outputs
};

/// The exercise answers, each computed by running the library.
struct Exercises {
  std::size_t gpt_sized_tied = 0, gpt_sized_untied_extra = 0;    ///< exercise 1
  double demo_embedding_share = 0.0, gpt_embedding_share = 0.0;  ///< exercise 2
  std::vector<std::pair<std::string, std::string>> configs;      ///< exercise 3
  double loss_minus_log_vocab = 0.0;                             ///< exercise 4
};

/// Everything the report and the trace print.
struct Evidence {
  // The Predict model.
  Tensor fixture_logits;
  double fixture_loss = 0.0;
  std::vector<std::size_t> fixture_predicted;  ///< argmax of each position's logits
  std::size_t fixture_parameters = 0;
  // The demo model.
  std::vector<llmfs::models::ParameterSpec> specs;
  std::size_t parameter_count = 0, formula_count = 0;
  std::vector<Component> components;
  llmfs::autograd::TokenGrid inputs, targets;
  Tensor logits;
  double loss = 0.0, log_vocab = 0.0;
  std::vector<StreamPoint> stream;
  // The tied table's gradient, split by the path it came along.
  double table_gradient_norm = 0.0, output_path_norm = 0.0, input_path_norm = 0.0;
  std::size_t rows_read = 0;  ///< distinct input ids: rows the lookup path reaches
  std::size_t rows_with_gradient = 0;
  std::vector<std::size_t> changed_per_position;  ///< last input token changed
  std::size_t reset_mismatches = 0;  ///< logits after reset_tape() vs before
  llmfs::autograd::GradientCheckReport gradcheck;  ///< the whole tiny model
  std::vector<std::pair<std::string, std::string>> errors;
  Exercises exercises;
};

[[nodiscard]] Step<Exercises> answer_exercises(const Evidence& evidence);
[[nodiscard]] Step<std::vector<std::pair<std::string, std::string>>> gather_errors();
/// Every value the program prints.
[[nodiscard]] Step<Evidence> gather_evidence();
/// The report: one `key=...` line per fact, then the exercises.
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The trace records behind the chapter's diagram.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch32
