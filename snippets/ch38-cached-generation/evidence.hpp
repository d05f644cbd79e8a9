// Chapter 38
#pragma once
// Chapter 38's program: every value its report and trace print, gathered once from the
// library, and the functions that render them. The chapter's tests read the same
// struct; the claims themselves are checked by the tests.

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <llmfs/generation/generate.hpp>
#include <llmfs/models/decoder.hpp>
#include <llmfs/tensor/tensor.hpp>

#include "../common/chapter.hpp"
#include "fixture.hpp"

namespace ch38 {

using llmfs::tensor::Tensor;
using snippets::Step;

/// The exercise answers, each computed by running the library.
struct Exercises {
  std::size_t gpt_cache_bytes = 0;     ///< exercise 1: N 12, d 768, T_max 1024, B 1
  std::size_t break_even_context = 0;  ///< exercise 2: cache bytes ≥ parameter bytes
  std::size_t parameter_bytes = 0;     ///< exercise 2: the demo model's parameters
  double batch_vs_alone = 0.0;         ///< exercise 3: row 0 of B = 2 vs alone
  std::size_t cached_100 = 0, uncached_100 = 0;  ///< exercise 4: positions, L 1, n 100
};

/// Everything the report and the trace print.
struct Evidence {
  // The Predict model.
  llmfs::generation::Generation fixture;
  std::size_t fixture_derived_bytes = 0, fixture_measured_bytes = 0;
  std::string fixture_too_long;  ///< one more new token than fits
  // The demo model.
  llmfs::autograd::TokenGrid prompt;
  llmfs::generation::Generation cached, uncached;
  std::size_t token_mismatches = 0;   ///< cached vs uncached ids
  double max_logit_difference = 0.0;  ///< cached vs uncached, every step and row
  double max_against_full = 0.0;      ///< cached vs Chapter 32's forward
  std::size_t derived_bytes = 0, measured_bytes = 0;
  std::vector<std::pair<std::string, std::string>> errors;
  Exercises exercises;
};

/// The largest |a − b| over two equally long lists of `[B,V]` logits.
/// The demo's chooser, fresh (its generators at their seeds).
[[nodiscard]] llmfs::generation::NextTokenChooser demo_chooser();
[[nodiscard]] double max_step_difference(const std::vector<Tensor>& a,
                                         const std::vector<Tensor>& b);
[[nodiscard]] Step<Exercises> answer_exercises(const Evidence& evidence);
[[nodiscard]] Step<std::vector<std::pair<std::string, std::string>>> gather_errors();
/// Every value the program prints.
[[nodiscard]] Step<Evidence> gather_evidence();
/// The report: one `key=...` line per fact, then the exercises.
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The trace records behind the chapter's diagram.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch38
