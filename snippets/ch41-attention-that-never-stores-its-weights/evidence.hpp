// Chapter 41
#pragma once
// Chapter 41's program: every value its report and trace print, gathered once from the
// library, and the functions that render them. The chapter's tests read the same
// struct and call the same helpers (train_losses with 20 steps).

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <llmfs/attention/multi_head.hpp>
#include <llmfs/attention/streaming.hpp>
#include <llmfs/tensor/tensor.hpp>

#include "../common/chapter.hpp"
#include "fixture.hpp"

namespace ch41 {

using llmfs::tensor::Tensor;
using snippets::Step;

/// One (query block, key block) tile of the Predict head and what the kernel does
/// there.
struct Tile {
  std::size_t query_block = 0, key_block = 0;
  std::string
      kind;  ///< `full` (every key visible), `diagonal` (masked in part), `skipped`
};

/// What the tape holds after one multi-head forward pass at T tokens.
struct TapeSize {
  std::size_t tokens = 0;
  std::size_t stored_bytes = 0, streaming_bytes = 0;    ///< Σ node values · 8 bytes
  std::size_t stored_tables = 0, streaming_tables = 0;  ///< nodes shaped `[..., T, T]`
};

/// The exercise answers, each computed by running the library.
struct Exercises {
  std::vector<llmfs::attention::OnlineSoftmaxStep> steps;    ///< exercise 1
  std::vector<llmfs::attention::OnlineSoftmaxStep> shifted;  ///< exercise 2
  double naive_total = 0.0;                                  ///< exercise 2: Σ exp(s)
  std::size_t tiles_visited = 0, tiles_total = 0;            ///< exercise 3
  double table_bytes = 0.0, statistics_bytes = 0.0;          ///< exercise 4
};

/// Everything the report and the trace print.
struct Evidence {
  std::vector<llmfs::attention::OnlineSoftmaxStep> steps;  ///< the Predict row
  double direct_sum = 0.0;  ///< Σ_j exp(s_j − max s) computed in one pass
  Tensor streaming_output, stored_output, log_sum_exp;  ///< the Predict head
  std::vector<Tile> tiles;
  // The sweep: the largest relative difference over every block size 1..T.
  double sweep_output = 0.0, sweep_query = 0.0, sweep_key = 0.0, sweep_value = 0.0;
  std::vector<TapeSize> tape;
  std::vector<double> stored_losses, streaming_losses;  ///< kDemoSteps AdamW steps
  std::vector<std::pair<std::string, std::string>> errors;
  Exercises exercises;
};

/// The mean loss before each of `steps` AdamW steps (η = 1e-2) of the decoder with
/// kTrainConfig and `kernel`, on one fixed batch.
[[nodiscard]] Step<std::vector<double>> train_losses(
    llmfs::attention::AttentionKernel kernel, std::size_t steps);
/// The tape's bytes and tables after one layer forward at `tokens` with both kernels.
[[nodiscard]] Step<TapeSize> tape_size(std::size_t tokens);
/// max |a − b| / max |b|, or max |a − b| when b is all zeros (dQ, dK at T = 1).
[[nodiscard]] double relative_difference(const Tensor& a, const Tensor& b);

[[nodiscard]] Step<Exercises> answer_exercises();
/// Every value the program prints.
[[nodiscard]] Step<Evidence> gather_evidence();
/// The report: one `key=...` line per fact, then the exercises.
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The trace records behind the chapter's diagram.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch41
