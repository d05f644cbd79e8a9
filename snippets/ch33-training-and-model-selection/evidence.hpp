// Chapter 33
#pragma once
// Chapter 33's program: every value its report and trace print, gathered once from
// training/ (schedule, clipping, selection, trainer) and the PyTorch reference run,
// and the functions that render them.

#include <array>
#include <string>
#include <vector>

#include <llmfs/training/clipping.hpp>
#include <llmfs/training/decoder_loss.hpp>
#include <llmfs/training/trainer.hpp>

#include "../common/chapter.hpp"
#include "corpus_data.hpp"
#include "fixture.hpp"

namespace ch33 {

using snippets::Step;

/// The selection rule on the fixture's curve.
struct Selection {
  std::vector<bool> kept;  ///< offer()'s answer at each point
  std::size_t step = 0;    ///< the step it selected
  double loss = 0.0;       ///< its loss
};

/// The 50-step run replayed against the PyTorch reference.
struct Replay {
  std::size_t steps = 0, parameters = 0, elements = 0;  ///< its size
  double loss_max_relative = 0.0;      ///< max over steps of |L − L_torch|/|L_torch|
  double norm_max_relative = 0.0;      ///< the same for ‖g‖ before clipping
  double values_max_relative = 0.0;    ///< max over final elements, relative
  double selected_max_relative = 0.0;  ///< selection's copy against torch's best step
  double validation_max_relative = 0.0;  ///< max over validations, relative
  std::size_t clipped_steps = 0;         ///< steps with scale < 1
  std::size_t selected_step = 0;         ///< the step selection kept (C++)
  std::size_t torch_best_step = 0;  ///< the lowest validation loss in the reference
  double selected_loss = 0.0, final_loss = 0.0;  ///< validation at those steps
};

/// The corpus run: its data, its settings and what the trainer returned.
struct CorpusRun {
  std::size_t train_documents = 0, train_examples = 0, validation_examples = 0;
  std::size_t parameters = 0;           ///< learned scalars of the decoder
  llmfs::training::TrainResult result;  ///< steps, evaluations, selection
  bool reproducible = false;  ///< a second run from the same seed equals it bit for bit
};

/// The exercise answers, computed.
struct Exercises {
  double no_warmup_first_rate = 0.0;  ///< 1: η(1) of the fixture with W = 0
  double unclipped_from = 0.0;        ///< 2: the smallest c leaving 3-4-5 unclipped
  double last_minus_selected = 0.0;   ///< 3: reference run, val(50) − val(selected)
  std::size_t clipped_steps = 0;      ///< 4: reference steps that were clipped
};

/// Everything the report and the trace print.
struct Evidence {
  std::vector<double> schedule;  ///< η(1 … 6) of the fixture
  llmfs::training::ClipReport clip;
  std::vector<std::vector<double>> clipped;  ///< the fixture's gradients after
  Selection selection;
  Replay replay;
  CorpusRun corpus;
  std::vector<std::array<std::string, 2>> errors;  ///< name and error text
  Exercises exercises;
};

/// The trainer's settings and optimizer for the decoder `config` on T-token windows.
struct Setup {
  llmfs::training::TrainConfig config;        ///< B, T, schedule, c, k, seed
  std::vector<llmfs::tensor::Tensor> values;  ///< the decoder's initial values
};
/// The demo's (or the long run's) setup.
[[nodiscard]] Step<Setup> demo_setup(const llmfs::models::DecoderConfig& model,
                                     std::size_t context, std::size_t batch,
                                     std::size_t steps, std::size_t warmup,
                                     std::size_t every);
/// Trains the demo's decoder on the corpus; `monitor` may be null.
[[nodiscard]] Step<CorpusRun> run_corpus(llmfs::training::TrainingMonitor* monitor);
/// The 50-step reference run, replayed.
[[nodiscard]] Step<Replay> replay_reference();
/// The long run of `make train-decoder`, logging to `log_path`.
[[nodiscard]] int train_long(const std::string& log_path);
/// Runs the whole chapter once.
[[nodiscard]] Step<Evidence> gather();

/// The report, one `key=value` line per fact.
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The trace records the diagram is drawn from.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch33
