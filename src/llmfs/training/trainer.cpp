// Chapter 33
#include <cmath>
#include <numeric>
#include <string>

#include <fmt/format.h>

#include <llmfs/core/try.hpp>
#include <llmfs/training/clipping.hpp>
#include <llmfs/training/trainer.hpp>

namespace llmfs::training {

// region: trainer-check
std::expected<void, TrainingError> check_train_config(const TrainConfig& config,
                                                      const ExampleSet& train,
                                                      const ExampleSet& validation) {
  LLMFS_TRY(check_schedule(config.schedule));
  const bool norm_ok =
      config.max_gradient_norm > 0.0 && std::isfinite(config.max_gradient_norm);
  if (config.batch_size == 0 || config.eval_every == 0 || !norm_ok ||
      config.windows.context == 0)
    return reject(
        TrainingErrorCode::bad_config, "train config",
        fmt::format("B={} k={} c={} T={}: each must be at least 1 (c above 0)",
                    config.batch_size, config.eval_every, config.max_gradient_norm,
                    config.windows.context));
  if (train.examples.size() < config.batch_size || validation.examples.empty())
    return reject(TrainingErrorCode::bad_config, "train config",
                  fmt::format("{} training examples for B={}, {} validation examples",
                              train.examples.size(), config.batch_size,
                              validation.examples.size()));
  return {};
}
// endregion: trainer-check

// region: validation-loss
std::expected<double, TrainingError> validation_loss(
    const LossFunction& model, std::span<const tensor::Tensor> values,
    const ExampleSet& validation, const TrainConfig& config) {
  // The same examples in the same order every time: the only change is the values
  std::vector<std::size_t> order(validation.examples.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  const BatchConfig batching{config.batch_size, LastBatch::keep};
  const std::size_t count =
      LLMFS_TRY_AT(std::string("validation"), batch_count(order.size(), batching));
  std::vector<double> losses;
  std::vector<std::size_t> positions;
  for (std::size_t index = 0; index < count; ++index) {
    const Batch batch = LLMFS_TRY_AT(
        std::string("validation"), make_batch(validation.sequences, validation.examples,
                                              order, index, batching, config.windows));
    const auto pass =
        LLMFS_TRY_AT(std::string("validation"), model(values, batch, false));
    losses.push_back(pass.loss);
    positions.push_back(batch.targets.ids.size());
  }
  return position_weighted_mean(losses, positions);
}
// endregion: validation-loss

namespace {

/// Batch s (1 … S) of the run: batch (s − 1) mod n of epoch ⌊(s − 1)/n⌋, with n = ⌊N/B⌋
/// full batches per epoch; `order` caches the current epoch's order.
[[nodiscard]] std::expected<Batch, BatchError> training_batch(
    const ExampleSet& train, const TrainConfig& config, std::size_t step,
    std::vector<std::size_t>& order) {
  const BatchConfig batching{config.batch_size, LastBatch::drop};
  const std::size_t per_epoch = train.examples.size() / config.batch_size;
  const std::size_t index = (step - 1) % per_epoch;
  if (index == 0 || order.empty())
    order = epoch_order(train.examples.size(), config.seed, (step - 1) / per_epoch);
  return make_batch(train.sequences, train.examples, order, index, batching,
                    config.windows);
}

}  // namespace

// region: trainer-loop
std::expected<TrainResult, TrainingError> train(
    std::vector<tensor::Tensor> values, AdamW& optimizer, const LossFunction& model,
    const ExampleSet& train_set, const ExampleSet& validation,
    const TrainConfig& config, TrainingMonitor* monitor) {
  LLMFS_TRY(check_train_config(config, train_set, validation));
  TrainResult result;
  const std::size_t total = config.schedule.total_steps;
  std::vector<std::size_t> order;
  for (std::size_t step = 0; step <= total; ++step) {
    if (step > 0) {
      const std::string stage = fmt::format("train step {}", step);
      const Batch batch =
          LLMFS_TRY_AT(stage, training_batch(train_set, config, step, order));
      const double eta = LLMFS_TRY(learning_rate(config.schedule, step));
      LLMFS_TRY_AT(stage, optimizer.set_learning_rate(eta));
      auto pass = LLMFS_TRY_AT(stage, model(values, batch, true));
      const ClipReport clip =
          clip_by_global_norm(pass.gradients, config.max_gradient_norm);
      LLMFS_TRY_AT(stage, optimizer.step(values, pass.gradients));
      const std::size_t tokens = step * batch.targets.ids.size();
      result.steps.push_back({step, eta, pass.loss, clip.norm, clip.scale, tokens});
      if (monitor) monitor->on_step(result.steps.back(), total);
    }
    if (step % config.eval_every != 0 && step != total) continue;
    // Validate, then let the selection rule keep a copy if this step is the best
    const double loss = LLMFS_TRY(validation_loss(model, values, validation, config));
    const bool best = result.selected.offer(step, loss, values);
    result.evaluations.push_back({step, loss, best});
    if (monitor) LLMFS_TRY(monitor->on_eval(result.evaluations.back()));
  }
  if (monitor) LLMFS_TRY(monitor->finish());
  result.final_values = std::move(values);
  return result;
}
// endregion: trainer-loop

}  // namespace llmfs::training
