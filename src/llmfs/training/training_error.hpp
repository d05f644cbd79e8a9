// Chapter 33
#pragma once
/// \file
/// \brief The one error type of Chapter 33's training loop: its schedule, its clipping,
/// its selection and its log, and the lower errors of the batches (Chapter 21), the
/// optimizer (Chapter 22), the model and the log file that it wraps.

#include <string>
#include <string_view>
#include <variant>

#include <fmt/format.h>

#include <llmfs/core/error.hpp>
#include <llmfs/core/file_error.hpp>
#include <llmfs/training/adamw.hpp>
#include <llmfs/training/batches.hpp>

namespace llmfs::training {

// region: training-errors
/// What is wrong with a training run's configuration, or which lower stage failed.
enum class TrainingErrorCode {
  bad_schedule,  ///< learning rates not 0 < η_min ≤ η_max, or W > S, or S = 0
  step_range,    ///< a step outside 1 … S was asked of the schedule
  bad_config,    ///< B = 0, no evaluation interval, max norm ≤ 0, too few examples
  stage_failed,  ///< the batches, the model, the optimizer or the log file failed
};

/// A model's refusal, kept as its formatted text: the trainer knows no model's types.
struct ModelFailure {
  std::string text;  ///< the model's error, formatted (its stage and cause chain)
  /// Equal when the texts are equal.
  friend bool operator==(const ModelFailure&, const ModelFailure&) = default;
};

/// The fixed description of a code, e.g. `"step outside the schedule"`.
[[nodiscard]] std::string_view describe(TrainingErrorCode code) noexcept;

/// A training error: code, stage (`"schedule"`, `"train config"`, `"train step 12"`,
/// `"validation at step 40"`, `"training log"`), the numbers in the detail, and for
/// TrainingErrorCode::stage_failed the lower error.
using TrainingError =
    StageError<TrainingErrorCode, TrainingErrorCode::stage_failed,
               std::variant<BatchError, OptimizerError, ModelFailure, FileError>>;
// endregion: training-errors

}  // namespace llmfs::training

/// Formats a ModelFailure as its text.
template <>
struct fmt::formatter<llmfs::training::ModelFailure>
    : fmt::formatter<fmt::string_view> {
  /// Writes the text.
  auto format(const llmfs::training::ModelFailure& failure,
              fmt::format_context& ctx) const {
    return fmt::formatter<fmt::string_view>::format(failure.text, ctx);
  }
};
