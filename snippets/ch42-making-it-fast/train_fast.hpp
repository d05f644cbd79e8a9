// Chapter 42
#pragma once
// The run the course builds to (`make train-fast`): a decoder of 1.3 million parameters
// trained on the King James training partition with the fast matmul, validated on the
// whole validation partition, its selected model written and sampled; and the step
// timed for tools/run-train-bench.sh beside PyTorch (`--bench-train`).

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <llmfs/attention/streaming.hpp>

#include "../ch39-the-end-to-end-llm/pipeline.hpp"

namespace ch42 {

// region: fast-run
/// The run's attention: chapter 41's streaming kernel, 64 keys a block — the same
/// function as stored weights to about 1e-12, and about a tenth faster per step here
/// (bench/results/ch42-train.txt).
inline constexpr llmfs::attention::AttentionKernel kFastAttention{
    "streaming", 64, &llmfs::attention::streaming_causal_attention};
/// The run's model: V = 4096, d = 128, h = 4, N = 4, d_ff = 344 (⌈8/3·d⌉ to a multiple
/// of 8), T_max = 128: 1,315,968 parameters, 524,288 of them the tied table.
inline constexpr llmfs::models::DecoderConfig kFastModel{
    4096, 128, 4, 4, 344, 128, 10000.0, 1e-6, 42, kFastAttention};
/// B = 16 windows of T = 128: 2,048 predicted tokens a step; S = 948 steps (about
/// 2.2 epochs), validated on every validation window at step 0 and every 316 steps.
inline constexpr std::size_t kFastBatch = 16, kFastSteps = 948, kFastEvery = 316;
/// η rises to 4·10⁻³ over 30 steps, then falls along a cosine to 4·10⁻⁴ (chapter 39's
/// peak and floor; its clipping, β and decay).
inline constexpr double kFastPeak = 4e-3, kFastFloor = 4e-4;
inline constexpr std::size_t kFastWarmup = 30;
// endregion: fast-run

/// The run's settings (chapter 39's RunSettings; clipping, β and decay are its too).
[[nodiscard]] ch39::RunSettings fast_settings();

/// What the run produced.
struct FastRun {
  std::size_t parameters = 0;
  llmfs::training::TrainResult run;   ///< steps, validations, selection
  ch39::Nats validation;              ///< the selected model on every validation token
  double validation_bpb = 0.0;        ///< Chapter 7's bits per byte of `validation`
  std::vector<ch39::Sample> samples;  ///< Chapter 39's prompts and settings
  double wall_seconds = 0.0;          ///< training with its validations, wall clock
};

/// Trains `s.model` on every training window of `corpus` (T every T, Chapter 33's
/// trainer with selection on every validation window), scores the selected model on
/// every validation token, writes it to `model_file` when given (Chapter 39's format,
/// what `make generate MODEL=…` reads) and samples Chapter 39's prompts from it.
/// \return the first failing stage's error.
[[nodiscard]] ch39::Step<FastRun> run_fast(const ch39::RunSettings& s,
                                           const ch39::Corpus& corpus,
                                           llmfs::training::TrainingMonitor* monitor,
                                           const std::filesystem::path& model_file);

/// `--train-fast --out PREFIX --model FILE [--steps S]`: the run; writes
/// PREFIX-train.jsonl, PREFIX-summary.json, PREFIX-samples.tsv and the selected model.
/// 0, 1 (failure) or 2 (usage).
int train_fast(int argc, char** argv);

/// `--bench-train --steps K [--streaming BLOCK]`: K training steps of kFastModel (with
/// chapter 41's streaming attention, BLOCK keys a block, when asked) on seeded random
/// batches (a step's cost does not depend on which ids it reads); prints one JSON
/// object with the seconds of each step, the thread count and the attention kernel.
int bench_train(int argc, char** argv);

}  // namespace ch42
