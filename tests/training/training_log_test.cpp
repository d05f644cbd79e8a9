// Unit tests of training/training_log (Chapter 33): the JSON lines read back to the
// same doubles, the progress line's layout, and the log file written whole.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include <llmfs/training/training_log.hpp>

#include "support/temp_dir.hpp"

namespace {

using namespace llmfs::training;

TEST(TrainingLog, StepAndEvalLinesAreJsonWithRoundTripNumbers) {
  const StepRecord r{3, 0.1, 2.0 / 3.0, 1.5, 0.25, 96};
  EXPECT_EQ(step_json(r, 1.25),
            R"({"kind":"step","step":3,"lr":0.1,"loss":0.6666666666666666,)"
            R"("grad_norm":1.5,"clip_scale":0.25,"tokens":96,"elapsed_s":1.250})");
  EXPECT_EQ(std::stod("0.6666666666666666"), 2.0 / 3.0);
  EXPECT_EQ(
      eval_json({40, 1.75, true}, 2.0),
      R"({"kind":"eval","step":40,"val_loss":1.75,"best":true,"elapsed_s":2.000})");
}

TEST(TrainingLog, ProgressLineShowsStepLossRateSpeedAndEta) {
  EXPECT_EQ(progress_line({120, 2000, 3.41214, 2.9e-4, 1834.4, 192.4}),
            "step 120/2000  loss 3.4121  lr 2.90e-04  1834 tok/s  ETA 3m12s");
}

TEST(TrainingLog, MonitorWritesTheWholeLogAtEveryEvaluation) {
  const auto dir = llmfs::test::make_temp_dir("ch33-log");
  const auto path = dir / "run.jsonl";
  TrainingMonitor monitor(R"({"kind":"config"})", path, false);
  monitor.on_step({1, 0.1, 2.0, 1.0, 1.0, 8}, 2);
  ASSERT_TRUE(monitor.on_eval({1, 1.9, true}).has_value());
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const std::string written = text.str();
  EXPECT_EQ(std::count(written.begin(), written.end(), '\n'), 3);
  EXPECT_EQ(monitor.lines().size(), 3u);
  EXPECT_EQ(monitor.lines()[0], R"({"kind":"config"})");
  std::filesystem::remove_all(dir);
}

TEST(TrainingLog, AnUnwritableLogIsATypedError) {
  const auto dir = llmfs::test::make_temp_dir("ch33-log");
  TrainingMonitor monitor("{}", dir, false);  // a folder, not a file
  const auto written = monitor.on_eval({0, 1.0, true});
  ASSERT_FALSE(written.has_value());
  EXPECT_EQ(written.error().code, TrainingErrorCode::stage_failed);
  EXPECT_EQ(written.error().stage, "training log");
  std::filesystem::remove_all(dir);
}

}  // namespace
