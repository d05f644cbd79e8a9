// Chapter 33
#pragma once
/// \file
/// \brief What a training run tells the people watching it: one record per step and
/// per validation, a JSON-lines log (rewritten atomically at every validation, so an
/// interrupted run leaves a whole file), and a progress line on stderr when stderr is a
/// terminal (Chapter 33). Wall-clock time appears in the log and the progress line
/// only, never in a value the loop computes.

#include <chrono>
#include <cstddef>
#include <expected>
#include <filesystem>
#include <string>
#include <vector>

#include <llmfs/training/training_error.hpp>

namespace llmfs::training {

// region: log-records
/// One optimizer step, as the loop measured it.
struct StepRecord {
  std::size_t step = 0;        ///< s, 1 … S: updates done, this one included
  double learning_rate = 0.0;  ///< η of this step (the schedule's)
  double loss = 0.0;           ///< the batch's mean loss before the update, nats/token
  double gradient_norm = 0.0;  ///< ‖g‖ before clipping
  double clip_scale = 1.0;     ///< the factor clipping applied (1: none)
  std::size_t tokens = 0;      ///< predicted positions so far, B·T per step
  /// Equal when every field is equal, bit for bit.
  friend bool operator==(const StepRecord&, const StepRecord&) = default;
};

/// One validation: the mean loss over the fixed validation examples at a step.
struct EvalRecord {
  std::size_t step = 0;          ///< updates done (0: the initial parameters)
  double validation_loss = 0.0;  ///< nats per predicted position
  bool best = false;             ///< whether selection kept this step (so far)
  /// Equal when every field is equal, bit for bit.
  friend bool operator==(const EvalRecord&, const EvalRecord&) = default;
};
// endregion: log-records

/// The JSON line of a step: `{"kind":"step","step":…,"lr":…,"loss":…,
/// "grad_norm":…,"clip_scale":…,"tokens":…,"elapsed_s":…}`; numbers in the shortest
/// form that reads back to the same double.
[[nodiscard]] std::string step_json(const StepRecord& record, double elapsed_seconds);
/// The JSON line of a validation: `{"kind":"eval","step":…,"val_loss":…,"best":…,
/// "elapsed_s":…}`.
[[nodiscard]] std::string eval_json(const EvalRecord& record, double elapsed_seconds);

/// What the progress line shows.
struct Progress {
  std::size_t step = 0;            ///< s
  std::size_t total_steps = 0;     ///< S
  double loss = 0.0;               ///< this step's batch loss
  double learning_rate = 0.0;      ///< this step's η
  double tokens_per_second = 0.0;  ///< positions trained per wall-clock second so far
  double eta_seconds = 0.0;        ///< the remaining steps at the mean pace so far
};
/// `step 120/2000  loss 3.4121  lr 2.90e-04  1834 tok/s  ETA 3m12s`.
[[nodiscard]] std::string progress_line(const Progress& progress);

// region: monitor-class
/// Collects the log lines of a run, writes them to `log_path` (atomically, at every
/// validation and at the end) and prints the progress line on stderr when
/// `show_progress` (the caller passes whether stderr is a terminal).
class TrainingMonitor {
 public:
  /// A monitor whose log starts with `config_json` (one JSON object, no newline);
  /// an empty `log_path` writes no file.
  TrainingMonitor(std::string config_json, std::filesystem::path log_path,
                  bool show_progress);
  /// Logs a step and redraws the progress line.
  void on_step(const StepRecord& record, std::size_t total_steps);
  /// Logs a validation and rewrites the log file.
  /// \return TrainingErrorCode::stage_failed wrapping the FileError (stage
  ///         `training log`).
  [[nodiscard]] std::expected<void, TrainingError> on_eval(const EvalRecord& record);
  /// Ends the progress line and writes the log file once more.
  /// \return as on_eval().
  [[nodiscard]] std::expected<void, TrainingError> finish();
  /// The log's lines so far.
  [[nodiscard]] const std::vector<std::string>& lines() const noexcept {
    return lines_;
  }

 private:
  [[nodiscard]] double elapsed() const;
  [[nodiscard]] std::expected<void, TrainingError> write() const;

  std::vector<std::string> lines_;
  std::filesystem::path log_path_;
  bool show_progress_ = false;
  std::chrono::steady_clock::time_point start_;
};
// endregion: monitor-class

/// Whether stderr is a terminal (isatty), the usual condition for show_progress.
[[nodiscard]] bool stderr_is_terminal() noexcept;

}  // namespace llmfs::training
