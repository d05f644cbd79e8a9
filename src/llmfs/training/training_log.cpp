// Chapter 33
#include <cmath>
#include <cstdio>

#include <fmt/format.h>

#include <llmfs/core/atomic_file.hpp>
#include <llmfs/training/training_log.hpp>

#include <unistd.h>

namespace llmfs::training {

std::string_view describe(TrainingErrorCode code) noexcept {
  switch (code) {
    case TrainingErrorCode::bad_schedule: return "invalid learning-rate schedule";
    case TrainingErrorCode::step_range: return "step outside the schedule";
    case TrainingErrorCode::bad_config: return "invalid training configuration";
    case TrainingErrorCode::stage_failed: return "a stage of training failed";
  }
  return "unknown training error";
}

std::string step_json(const StepRecord& r, double elapsed_seconds) {
  return fmt::format(
      R"({{"kind":"step","step":{},"lr":{},"loss":{},"grad_norm":{},"clip_scale":{},)"
      R"("tokens":{},"elapsed_s":{:.3f}}})",
      r.step, r.learning_rate, r.loss, r.gradient_norm, r.clip_scale, r.tokens,
      elapsed_seconds);
}

std::string eval_json(const EvalRecord& r, double elapsed_seconds) {
  return fmt::format(
      R"({{"kind":"eval","step":{},"val_loss":{},"best":{},"elapsed_s":{:.3f}}})",
      r.step, r.validation_loss, r.best, elapsed_seconds);
}

std::string progress_line(const Progress& p) {
  const auto eta = static_cast<long long>(std::llround(std::max(0.0, p.eta_seconds)));
  return fmt::format("step {}/{}  loss {:.4f}  lr {:.2e}  {:.0f} tok/s  ETA {}m{:02}s",
                     p.step, p.total_steps, p.loss, p.learning_rate,
                     p.tokens_per_second, eta / 60, eta % 60);
}

TrainingMonitor::TrainingMonitor(std::string config_json,
                                 std::filesystem::path log_path, bool show_progress)
    : lines_{std::move(config_json)},
      log_path_(std::move(log_path)),
      show_progress_(show_progress),
      start_(std::chrono::steady_clock::now()) {}

double TrainingMonitor::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_)
      .count();
}

// region: monitor-step
void TrainingMonitor::on_step(const StepRecord& record, std::size_t total_steps) {
  const double seconds = elapsed();
  lines_.push_back(step_json(record, seconds));
  if (!show_progress_ || seconds <= 0.0) return;
  const double per_step = seconds / static_cast<double>(record.step);
  const Progress progress{record.step,
                          total_steps,
                          record.loss,
                          record.learning_rate,
                          static_cast<double>(record.tokens) / seconds,
                          per_step * static_cast<double>(total_steps - record.step)};
  // \r returns to the start of the line: the terminal shows the latest step only
  fmt::print(stderr, "\r{}\x1b[K", progress_line(progress));
  std::fflush(stderr);
}
// endregion: monitor-step

std::expected<void, TrainingError> TrainingMonitor::on_eval(const EvalRecord& record) {
  lines_.push_back(eval_json(record, elapsed()));
  return write();
}

std::expected<void, TrainingError> TrainingMonitor::finish() {
  if (show_progress_) fmt::print(stderr, "\n");
  return write();
}

std::expected<void, TrainingError> TrainingMonitor::write() const {
  if (log_path_.empty()) return {};
  std::string text;
  for (const std::string& line : lines_)
    text += line + "\n";
  auto written = write_file_atomically(log_path_, text);
  if (!written)
    return at_stage(std::string("training log"), std::move(written.error()));
  return {};
}

bool stderr_is_terminal() noexcept {
  return ::isatty(STDERR_FILENO) == 1;
}

}  // namespace llmfs::training
