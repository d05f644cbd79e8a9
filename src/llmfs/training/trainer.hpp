// Chapter 33
#pragma once
/// \file
/// \brief The training loop of Chapter 33: mini-batches (Chapter 21), the model's loss
/// and gradients, global-norm clipping, AdamW (Chapter 22) on a warmup + cosine
/// schedule, validation at fixed intervals, and selection of the best validated step.
///
/// Units: B examples per batch, T tokens of context, so B·T predicted positions per
/// step; losses are mean cross-entropies in nats per predicted position.

#include <cstddef>
#include <cstdint>
#include <expected>
#include <functional>
#include <span>
#include <vector>

#include <llmfs/tensor/tensor.hpp>
#include <llmfs/text/windows.hpp>
#include <llmfs/training/adamw.hpp>
#include <llmfs/training/batches.hpp>
#include <llmfs/training/schedule.hpp>
#include <llmfs/training/selection.hpp>
#include <llmfs/training/training_error.hpp>
#include <llmfs/training/training_log.hpp>

namespace llmfs::training {

// region: trainer-model
/// What the model computes for one batch: its mean loss and, when asked, ∂loss/∂θ for
/// every parameter value, in the order of the values.
struct LossAndGradients {
  double loss = 0.0;                      ///< mean cross-entropy, nats per position
  std::vector<tensor::Tensor> gradients;  ///< one per value (empty when not asked)
};

/// The model as the trainer sees it: a function of the parameter values and a batch.
/// `with_gradients` is false for validation. A model records its graph on a fresh
/// tape at every call (Chapter 15), so nothing of one step survives into the next.
using LossFunction = std::function<std::expected<LossAndGradients, ModelFailure>(
    std::span<const tensor::Tensor> values, const Batch& batch, bool with_gradients)>;
// endregion: trainer-model

// region: trainer-config
/// The sequences of one partition and the examples cut from them (Chapter 5).
struct ExampleSet {
  std::vector<std::vector<text::TokenId>> sequences;  ///< framed documents
  std::vector<text::Example> examples;                ///< windows of T + 1 tokens
};

/// Everything that decides a run besides the model, the data and the optimizer.
struct TrainConfig {
  std::size_t batch_size = 0;       ///< B ≥ 1, at most the training examples
  text::WindowConfig windows{};     ///< T (and the stride the examples were cut with)
  LearningRateSchedule schedule{};  ///< η per step; its S is the number of steps
  double max_gradient_norm = 1.0;   ///< c > 0: the clipping bound
  std::size_t eval_every = 0;       ///< ≥ 1: validate at step 0, every k steps, and S
  std::uint64_t seed = 0;           ///< the epoch orders' seed (Chapter 21)
};

/// A finished run: every step and validation, the selected step and the last values.
struct TrainResult {
  std::vector<StepRecord> steps;        ///< one per step, 1 … S
  std::vector<EvalRecord> evaluations;  ///< step 0, every k steps, and S
  BestStep selected;                    ///< the step with the lowest validation loss
  std::vector<tensor::Tensor> final_values;  ///< the parameters after step S
};
// endregion: trainer-config

/// Checks B ≥ 1, k ≥ 1, c > 0, T ≥ 1, the schedule, and at least B training and one
/// validation example. \return TrainingErrorCode::bad_config or bad_schedule.
[[nodiscard]] std::expected<void, TrainingError> check_train_config(
    const TrainConfig& config, const ExampleSet& train, const ExampleSet& validation);

/// The mean loss per position over every validation example, in example order, in
/// batches of B (the last one partial): Chapter 21's position-weighted mean.
/// \return stage_failed wrapping the batch's or the model's error.
[[nodiscard]] std::expected<double, TrainingError> validation_loss(
    const LossFunction& model, std::span<const tensor::Tensor> values,
    const ExampleSet& validation, const TrainConfig& config);

// region: trainer-api
/// Trains `values` (in the optimizer's slot order) for S = config.schedule.total_steps
/// steps. Step s takes batch s of the epochs' orders (full batches only), sets η(s),
/// computes loss and gradients, clips them to c, and takes one AdamW step; the
/// validation loss is measured at step 0, every k steps and at S, and `selected` keeps
/// the parameters of the lowest. The same arguments give the same result, bit for bit.
/// `monitor`, when given, logs every record and shows progress.
/// \return check_train_config()'s errors, or stage_failed wrapping the first error of
///         a batch, the model or the optimizer (stage `train step s`).
[[nodiscard]] std::expected<TrainResult, TrainingError> train(
    std::vector<tensor::Tensor> values, AdamW& optimizer, const LossFunction& model,
    const ExampleSet& train_set, const ExampleSet& validation,
    const TrainConfig& config, TrainingMonitor* monitor = nullptr);
// endregion: trainer-api

}  // namespace llmfs::training
