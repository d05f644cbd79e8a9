// Chapter 33
// The long run (`make train-decoder`): the decoder of fixture.hpp's kLongModel on the
// whole training partition, progress on stderr when it is a terminal, the log as JSON
// lines (tools/plot-training-log.py draws the figure from it).
#include <fmt/format.h>

#include "evidence.hpp"

namespace ch33 {

namespace training = llmfs::training;

namespace {

[[nodiscard]] Step<training::TrainResult> long_run(const std::string& log_path) {
  using llmfs::text::Split;
  const auto train = LLMFS_TRY(corpus_set(Split::train, 0, kLongContext, 0));
  const auto validation =
      LLMFS_TRY(corpus_set(Split::validation, 0, kLongContext, kLongValidation));
  const auto setup = LLMFS_TRY(demo_setup(kLongModel, kLongContext, kLongBatch,
                                          kLongSteps, kLongWarmup, kLongEvery));
  auto optimizer = LLMFS_TRY_AT(
      "adamw", training::AdamW::create(
                   kHyper, training::decoder_groups(kLongModel, kWeightDecay)));
  const std::string header = fmt::format(
      R"({{"kind":"config","V":{},"d":{},"h":{},"N":{},"d_ff":{},"T":{},"B":{},)"
      R"("steps":{},"every":{},"train_examples":{},"validation_examples":{},)"
      R"("peak":{},"floor":{},"warmup":{},"clip":{},"seed":{}}})",
      kLongModel.vocab_size, kLongModel.model_width, kLongModel.heads,
      kLongModel.layers, kLongModel.hidden_width, kLongContext, kLongBatch, kLongSteps,
      kLongEvery, train.set.examples.size(), validation.set.examples.size(), kPeak,
      kFloor, kLongWarmup, kMaxGradientNorm, kSeed);
  training::TrainingMonitor monitor(header, log_path, training::stderr_is_terminal());
  return LLMFS_TRY_AT(
      "train",
      training::train(setup.values, optimizer, training::decoder_loss(kLongModel),
                      train.set, validation.set, setup.config, &monitor));
}

}  // namespace

int train_long(const std::string& log_path) {
  const auto result = long_run(log_path);
  if (!result) {
    fmt::print(stderr, "ch33 long run: {}\n", result.error());
    return 1;
  }
  fmt::print("selected step {} (validation loss {:.6f}); log: {}\n",
             result->selected.step(), result->selected.loss(), log_path);
  return 0;
}

}  // namespace ch33
