// Chapter 39
#pragma once
// The end-to-end pipeline, one function for the demo and the long run: the corpus in
// tokens, the decoder trained with selection (Chapter 33), every validation token
// scored (Chapter 7), the selected model tested once beside the uniform model and the
// bigram (Chapter 34), the last state saved (Chapter 35), and samples (Chapter 36).

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include <llmfs/eval/final_evaluation.hpp>
#include <llmfs/models/ngram_mlp.hpp>
#include <llmfs/training/training_log.hpp>

#include "corpus.hpp"
#include "fixture.hpp"
#include "generate.hpp"

namespace ch39 {

/// Everything that decides one run of the pipeline.
struct RunSettings {
  llmfs::models::DecoderConfig model;  ///< sizes, seed of the initial values
  std::size_t batch = 0, steps = 0, every = 0, warmup = 0;
  double peak = 0.0, floor = 0.0;
  std::size_t sample_tokens = 0;  ///< tokens generated per prompt and setting
};

/// The demo's settings and the long run's (fixture.hpp).
[[nodiscard]] RunSettings demo_settings();
[[nodiscard]] RunSettings long_settings();

/// One sample: prompt, setting index into kSettings, and the continuation.
struct Sample {
  std::string prompt;
  std::size_t setting = 0;
  std::vector<llmfs::text::TokenId> ids;
  std::string text;
};

/// What one run produced.
struct PipelineResult {
  std::size_t parameters = 0;
  std::size_t train_documents = 0, train_examples = 0, train_tokens = 0;
  std::size_t validation_examples = 0;
  llmfs::training::TrainResult run;  ///< steps, validations, selection
  Nats validation;                   ///< the selected model on every validation token
  std::size_t validation_bytes = 0;
  double validation_bpb = 0.0;
  double bigram_alpha = 0.0;
  std::size_t test_examples = 0, test_tokens = 0, test_bytes = 0;
  std::vector<llmfs::eval::FinalScore> table;  ///< uniform, bigram, [ngram,] decoder
  std::vector<Sample> samples;
  double train_wall_seconds = 0.0, train_cpu_seconds = 0.0;
};

// region: pipeline-api
/// Runs the pipeline on `corpus`; `monitor` (optional) logs the training; the last
/// state is saved to `checkpoint` and the selected model to `model_file` when given;
/// `ngram` (optional: Chapter 23's long run, read by models::load_ngram_weights) joins
/// the final table as the row `ngram`, scored in the same opening of the test set.
[[nodiscard]] Step<PipelineResult> run_pipeline(
    const RunSettings& settings, const Corpus& corpus,
    llmfs::training::TrainingMonitor* monitor, const std::filesystem::path& checkpoint,
    const std::filesystem::path& model_file,
    const llmfs::models::NgramMlp* ngram = nullptr);

/// Chapter 23's n-gram as a contender on token windows: target t of a window is
/// predicted from the window's inputs t−n+1 … t, BOS standing in for positions before
/// the window (the decoder, too, sees nothing before its window); the loss is the
/// batch's mean −ln p over its B·T positions. A failing forward pass is a ModelFailure.
/// The function refers to `model`, which must outlive it (run_pipeline's scoring).
[[nodiscard]] llmfs::training::LossFunction ngram_window_loss(
    const llmfs::models::NgramMlp& model, llmfs::text::TokenId bos);
// endregion: pipeline-api

/// The bits per byte of `nats` over a text of `bytes` bytes (Chapter 7).
[[nodiscard]] double bits_per_byte(double nats, std::size_t bytes);

}  // namespace ch39
