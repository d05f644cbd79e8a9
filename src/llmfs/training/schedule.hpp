// Chapter 33
#pragma once
/// \file
/// \brief The learning-rate schedule of Chapter 33: a linear warmup to a peak, then a
/// half cosine down to a floor (Loshchilov and Hutter, "SGDR: stochastic gradient
/// descent with warm restarts", ICLR 2017, for the cosine; Goyal et al., "Accurate,
/// large minibatch SGD", 2017, for the warmup).
///
/// Units: steps count optimizer updates, s = 1 … S; a learning rate is the AdamW step
/// size η of Chapter 22.

#include <cstddef>
#include <expected>

#include <llmfs/training/training_error.hpp>

namespace llmfs::training {

// region: schedule-types
/// Warmup then cosine decay: η rises linearly over the first W steps to η_max, then
/// falls along half a cosine to η_min at the last step S.
struct LearningRateSchedule {
  double peak = 0.0;             ///< η_max > 0: the rate at the end of the warmup
  double floor = 0.0;            ///< η_min, 0 < η_min ≤ η_max: the rate at step S
  std::size_t warmup_steps = 0;  ///< W ≤ S: steps of the linear rise (0: none)
  std::size_t total_steps = 0;   ///< S ≥ 1: the steps of the whole run
};
// endregion: schedule-types

/// Checks 0 < η_min ≤ η_max < ∞ and 1 ≤ S, W ≤ S.
/// \return TrainingErrorCode::bad_schedule, with the numbers.
[[nodiscard]] std::expected<void, TrainingError> check_schedule(
    const LearningRateSchedule& schedule);

/// η at step s (1 … S): η_max·s/W while s ≤ W; afterwards, with progress
/// p = (s − W)/(S − W), η_min + ½(η_max − η_min)(1 + cos πp). So η(W) = η_max and
/// η(S) = η_min; after the warmup every rate is in [η_min, η_max], up to one rounding.
/// \return the errors of check_schedule(), or TrainingErrorCode::step_range for s = 0
/// or s > S.
[[nodiscard]] std::expected<double, TrainingError> learning_rate(
    const LearningRateSchedule& schedule, std::size_t step);

}  // namespace llmfs::training
