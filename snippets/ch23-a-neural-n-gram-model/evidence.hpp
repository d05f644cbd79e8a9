// Chapter 23
#pragma once
// Chapter 23's program: every value its report and trace print, gathered once from
// models/ngram_mlp, training/ and the corpus of Chapters 2–6, and the functions that
// render them; and the long run behind `--train-long`.

#include <array>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <llmfs/models/ngram_mlp.hpp>

#include "../ch06-a-bigram-baseline/corpus_tokens.hpp"
#include "../common/chapter.hpp"
#include "fixture.hpp"

namespace ch23 {

using snippets::Step;

/// The hand fixture through the library.
struct FixtureRun {
  std::vector<std::string> examples;  ///< `context->target` per example, as ids
  double loss = 0.0;                  ///< mean nats over the examples
  std::vector<std::vector<double>> gradients;  ///< per parameter, names() order
  std::size_t checked = 0;       ///< coordinates compared by central differences
  double check_max_error = 0.0;  ///< max |analytic − numeric| over them
  bool check_passed = false;     ///< every coordinate within tolerance
};

/// One point of a loss curve (the library's).
using CurvePoint = llmfs::models::NgramPoint;

/// The model trained on the corpus, and the bigram beside it.
struct CorpusRun {
  std::size_t vocab = 0, parameters = 0, output_parameters = 0;
  std::size_t train_examples = 0, validation_examples = 0;
  std::size_t subset_documents = 0, subset_examples = 0, subset_bytes = 0;
  std::vector<CurvePoint> curve;       ///< step 0, then every kEvery steps
  double bigram_subset_bpb = 0.0;      ///< the α = 0.01 bigram on the same subset
  double bigram_subset_loss = 0.0;     ///< … in nats per token
  double bigram_validation_bpb = 0.0;  ///< … on the whole validation partition
  double uniform_subset_bpb = 0.0;     ///< ln V per token on the subset
};

/// The random model of the reference file replayed against PyTorch.
struct Replay {
  std::size_t parameters = 0, examples = 0, steps = 0;
  double loss_relative = 0.0;      ///< |L − L_torch| / |L_torch|
  double gradient_relative = 0.0;  ///< max over elements, relative to the largest
  double adamw_relative = 0.0;     ///< values after the AdamW steps, same measure
};

/// Everything the report and the trace print.
struct Evidence {
  FixtureRun fixture;
  CorpusRun corpus;
  Replay replay;
  std::vector<std::array<std::string, 2>> errors;    ///< name and error text
  std::array<std::size_t, 3> exercise_parameters{};  ///< n = 1, 3, 6 at d = 32, h = 128
};

/// Both splits of the corpus as n-gram examples, with the subset the demo scores.
struct CorpusExamples {
  llmfs::models::NgramBatch train, validation, subset;
  std::size_t vocab = 0, validation_bytes = 0, subset_bytes = 0, subset_documents = 0;
  double bigram_subset_bpb = 0.0, bigram_validation_bpb = 0.0;
  double bigram_subset_loss = 0.0;  ///< nats per token on the subset
};

/// The fixture model from kValues, with `output_weight` as W₂.
[[nodiscard]] Step<llmfs::models::NgramMlp> fixture_model(
    const std::vector<double>& output_weight);
/// The fixture's examples, loss, gradients and central-difference check.
[[nodiscard]] Step<FixtureRun> run_fixture();
/// The corpus encoded (Chapter 6) and cut into n-gram examples, with the bigram scores.
[[nodiscard]] Step<CorpusExamples> corpus_examples();
/// `steps` AdamW steps from kSeed with batches of `batch`, scoring `scored` (of
/// `bytes` bytes) at step 0 and every `every` steps, η constant or falling linearly
/// (`linear_decay`); `on_point` sees each point and `on_step`, if given, each step's
/// number and batch loss; `trained`, if given, receives the model after the last step.
[[nodiscard]] Step<std::vector<CurvePoint>> train(
    const CorpusExamples& corpus, const llmfs::models::NgramBatch& scored,
    std::size_t bytes, std::size_t batch, std::size_t steps, std::size_t every,
    bool linear_decay, const std::function<void(const CurvePoint&)>& on_point,
    const std::function<void(std::size_t, double)>& on_step = {},
    std::optional<llmfs::models::NgramMlp>* trained = nullptr);
/// The reference file's model, gradients and AdamW steps against ours.
[[nodiscard]] Step<Replay> replay_reference();
/// Runs the whole chapter once.
[[nodiscard]] Step<Evidence> gather();
/// `--train-long --log FILE [--steps N]`: the long run; returns the exit status.
int train_long(int argc, char** argv);

/// The report, one `key=value` line per fact.
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The trace records the diagram is drawn from.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch23
