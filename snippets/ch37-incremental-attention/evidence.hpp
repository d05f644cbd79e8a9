// Chapter 37
#pragma once
// Chapter 37's program: every value its report and trace print, gathered once from the
// library, and the functions that render them. The chapter's tests read the same
// struct; the claims themselves are checked by the tests.

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <llmfs/attention/multi_head.hpp>
#include <llmfs/generation/kv_cache.hpp>
#include <llmfs/tensor/tensor.hpp>

#include "../common/chapter.hpp"
#include "fixture.hpp"

namespace ch37 {

using llmfs::tensor::Tensor;
using snippets::Step;

/// One call of attention_step(): what it was given and what it found.
struct StepRecord {
  std::size_t first_position = 0;  ///< the first new token's position (old length)
  std::size_t tokens = 0;          ///< T_new
  std::size_t length_after = 0;    ///< the cache's length after the step
  Tensor output;                   ///< `[B,T_new,d_model]`
  double max_difference = 0.0;     ///< against the full forward's rows, max |·|
  Tensor last_weights;  ///< the last new query's weights over the slots, `[length]`
};

/// One filled slot of the Predict cache.
struct Slot {
  std::size_t position = 0;           ///< the slot index is the position
  std::vector<double> key;            ///< rotated at `position`
  std::vector<double> value;          ///< unrotated
  std::vector<double> unrotated_key;  ///< `x·W_K` before RoPE, for comparison
};

/// The exercise answers, each computed by running the library.
struct Exercises {
  std::size_t gpt_layer_doubles = 0;      ///< exercise 1: B 1, h 12, d_h 64, T_max 1024
  std::size_t decode_steps_accepted = 0;  ///< exercise 2: prefill 3 into T_max 8
  std::string refusal;                    ///< exercise 2: the refusal's text
  std::size_t rows_cached = 0, rows_recomputed = 0;  ///< exercise 3: K/V rows
  double chunk_vs_single = 0.0;  ///< exercise 4: prefill in one call vs one by one
};

/// Everything the report and the trace print.
struct Evidence {
  // The Predict layer.
  std::vector<StepRecord> fixture_steps;  ///< prefill of 2, then 2 single tokens
  std::vector<Slot> fixture_slots;        ///< the full cache, slots 0..3
  std::string fixture_refusal;            ///< a fifth token
  std::size_t fixture_length_after_refusal = 0;
  std::size_t fixture_bytes = 0, fixture_doubles = 0;  ///< measured, derived
  // The demo layer.
  std::vector<StepRecord> demo_steps;
  std::size_t old_slots_changed = 0;  ///< prompt slots that changed in later steps
  std::size_t demo_bytes = 0, demo_doubles = 0;
  std::vector<std::pair<std::string, std::string>> errors;
  Exercises exercises;
};

/// Runs attention_step() on positions [begin, end) of `input` and compares with the
/// same rows of `full`.
[[nodiscard]] Step<StepRecord> run_step(
    const llmfs::attention::MultiHeadAttention& layer, const Tensor& input,
    const Tensor& full, std::size_t begin, std::size_t end,
    llmfs::generation::KvCache& cache);
/// Positions [begin, end) of a `[B,T,d]` tensor.
[[nodiscard]] Tensor token_rows(const Tensor& x, std::size_t begin, std::size_t end);
[[nodiscard]] Step<Exercises> answer_exercises();
[[nodiscard]] Step<std::vector<std::pair<std::string, std::string>>> gather_errors();
/// Every value the program prints.
[[nodiscard]] Step<Evidence> gather_evidence();
/// The report: one `key=...` line per fact, then the exercises.
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The trace records behind the chapter's diagram.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch37
