// Chapter 33
#include <cmath>
#include <numbers>

#include <fmt/format.h>

#include <llmfs/core/try.hpp>
#include <llmfs/training/schedule.hpp>

namespace llmfs::training {

std::expected<void, TrainingError> check_schedule(const LearningRateSchedule& s) {
  if (!(s.peak > 0.0 && std::isfinite(s.peak) && s.floor > 0.0 && s.floor <= s.peak))
    return reject(
        TrainingErrorCode::bad_schedule, "schedule",
        fmt::format("peak={} floor={}: need 0 < floor <= peak", s.peak, s.floor));
  if (s.total_steps == 0 || s.warmup_steps > s.total_steps)
    return reject(TrainingErrorCode::bad_schedule, "schedule",
                  fmt::format("warmup={} total={}: need 1 <= total, warmup <= total",
                              s.warmup_steps, s.total_steps));
  return {};
}

// region: schedule-rate
std::expected<double, TrainingError> learning_rate(const LearningRateSchedule& s,
                                                   std::size_t step) {
  LLMFS_TRY(check_schedule(s));
  if (step == 0 || step > s.total_steps)
    return reject(TrainingErrorCode::step_range, "schedule",
                  fmt::format("step {} of 1 … {}", step, s.total_steps));
  // Warmup: a straight line from η_max/W at step 1 to η_max at step W
  if (step <= s.warmup_steps)
    return s.peak * static_cast<double>(step) / static_cast<double>(s.warmup_steps);
  // Decay: half a cosine from η_max (just after W) to η_min (at S)
  const double progress = static_cast<double>(step - s.warmup_steps) /
                          static_cast<double>(s.total_steps - s.warmup_steps);
  return s.floor +
         0.5 * (s.peak - s.floor) * (1.0 + std::cos(std::numbers::pi * progress));
}
// endregion: schedule-rate

}  // namespace llmfs::training
