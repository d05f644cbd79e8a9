// Chapter 39
#include "pipeline.hpp"

#include <chrono>
#include <cmath>
#include <ctime>
#include <numbers>

#include <llmfs/core/read_file.hpp>
#include <llmfs/models/bigram.hpp>
#include <llmfs/training/checkpoint.hpp>
#include <llmfs/training/decoder_loss.hpp>

#include "../ch34-final-evaluation/evidence.hpp"  // bigram_loss, the α choices

namespace ch39 {

namespace training = llmfs::training;
namespace eval = llmfs::eval;
using llmfs::tensor::Tensor;

RunSettings demo_settings() {
  return {kDemoModel,  kDemoBatch, kDemoSteps, kDemoEvery,
          kDemoWarmup, kDemoPeak,  kDemoFloor, 6};
}

RunSettings long_settings() {
  return {kModel, kBatch, kSteps, kEvery, kWarmup, kPeak, kFloor, kSampleTokens};
}

double bits_per_byte(double nats, std::size_t bytes) {
  return nats / (std::numbers::ln2 * static_cast<double>(bytes));
}

namespace {

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

training::LossFunction constant_loss(double loss) {
  return [loss](std::span<const Tensor>, const training::Batch&, bool)
             -> std::expected<training::LossAndGradients, training::ModelFailure> {
    return training::LossAndGradients{loss, {}};
  };
}

// The bytes the predicted tokens of `set` spell (EOS none).
std::size_t window_bytes(const training::ExampleSet& set, std::size_t context,
                         const llmfs::text::Tokenizer& tokenizer) {
  std::size_t bytes = 0;
  for (const auto& e : set.examples)
    for (std::size_t t = 1; t <= context; ++t) {
      const auto id = set.sequences[e.sequence][e.start + t];
      if (id != tokenizer.eos() && id != tokenizer.bos())
        bytes += tokenizer.token_bytes(id).size();
    }
  return bytes;
}

// Every document without its BOS and EOS (the bigram frames them itself).
std::vector<llmfs::models::TokenSequence> documents_of(const Partition& p) {
  std::vector<llmfs::models::TokenSequence> out;
  for (const auto& s : p.sequences)
    out.emplace_back(s.begin() + 1, s.end() - 1);
  return out;
}

[[nodiscard]] Step<std::string> partition_hash() {
  const auto manifest =
      LLMFS_TRY_AT("manifest", llmfs::read_file(LLMFS_PARTITIONS_PATH));
  return training::sha256_hex_of(manifest);
}

// The last state of the run as Chapter 35's checkpoint.
[[nodiscard]] Step<void> save_last(const std::filesystem::path& path,
                                   const RunSettings& s, const training::AdamW& adamw,
                                   const training::TrainResult& run,
                                   const llmfs::text::Tokenizer& tokenizer) {
  training::TrainingState state;
  const auto specs = llmfs::models::decoder_parameter_specs(s.model);
  for (std::size_t i = 0; i < specs.size(); ++i)
    state.parameters.push_back({specs[i].name, run.final_values[i]});
  state.optimizer = adamw.state();
  state.step = run.steps.size();
  state.rng = llmfs::SplitMix64(kSeed);
  state.tokenizer = tokenizer.merges();
  state.config = {{"V", fmt::format("{}", s.model.vocab_size)},
                  {"d", fmt::format("{}", s.model.model_width)},
                  {"h", fmt::format("{}", s.model.heads)},
                  {"N", fmt::format("{}", s.model.layers)},
                  {"d_ff", fmt::format("{}", s.model.hidden_width)},
                  {"T_max", fmt::format("{}", s.model.context_length)},
                  {"B", fmt::format("{}", s.batch)},
                  {"steps", fmt::format("{}", s.steps)}};
  state.partition_sha256 = LLMFS_TRY(partition_hash());
  LLMFS_TRY_AT("checkpoint", training::save_checkpoint(path, state));
  return {};
}

}  // namespace

training::LossFunction ngram_window_loss(const llmfs::models::NgramMlp& model,
                                         llmfs::text::TokenId bos) {
  return [&model, bos](std::span<const Tensor>, const training::Batch& batch, bool)
             -> std::expected<training::LossAndGradients, training::ModelFailure> {
    const std::size_t n = model.config().context, T = batch.inputs.time;
    const std::size_t rows = batch.inputs.ids.size();
    llmfs::models::NgramBatch examples{{rows, n, {}}, {rows, 1, batch.targets.ids}};
    examples.contexts.ids.reserve(rows * n);
    for (std::size_t p = 0; p < rows; ++p)
      for (std::size_t j = 0; j < n; ++j) {  // inputs t−n+1+j of p's window, or BOS
        const std::size_t t = p % T, back = n - 1 - j;
        examples.contexts.ids.push_back(t >= back ? batch.inputs.ids[p - back] : bos);
      }
    const auto scored = llmfs::models::score(model, examples, 0, 1024);
    if (!scored)
      return std::unexpected(training::ModelFailure{fmt::format("{}", scored.error())});
    return training::LossAndGradients{scored->total_nats / static_cast<double>(rows),
                                      {}};
  };
}

// region: pipeline-train
Step<PipelineResult> run_pipeline(const RunSettings& s, const Corpus& corpus,
                                  training::TrainingMonitor* monitor,
                                  const std::filesystem::path& checkpoint,
                                  const std::filesystem::path& model_file,
                                  const llmfs::models::NgramMlp* ngram) {
  const std::size_t T = s.model.context_length;
  PipelineResult out;
  const auto train_set = LLMFS_TRY(windows(corpus.train, T));
  const auto validation_set = LLMFS_TRY(windows(corpus.validation, T));
  out.train_documents = corpus.train.sequences.size();
  out.train_examples = train_set.examples.size();
  out.train_tokens = corpus.train.tokens;
  out.validation_examples = validation_set.examples.size();
  // 1. Train with selection on the validation windows (Chapter 33)
  const auto initial =
      LLMFS_TRY_AT("create", llmfs::models::DecoderModel::create(s.model));
  out.parameters = initial.parameter_count();
  training::TrainConfig config{s.batch, {T, T},  {s.peak, s.floor, s.warmup, s.steps},
                               kClip,   s.every, kSeed};
  auto adamw = LLMFS_TRY_AT(
      "adamw",
      training::AdamW::create({s.peak, kHyper.beta1, kHyper.beta2, kHyper.epsilon},
                              training::decoder_groups(s.model, kWeightDecay)));
  const double wall0 =
      static_cast<double>(std::chrono::steady_clock::now().time_since_epoch().count());
  const double cpu0 = cpu_seconds();
  out.run = LLMFS_TRY_AT(
      "train", training::train(LLMFS_TRY_AT("values", initial.values()), adamw,
                               training::decoder_loss(s.model), train_set,
                               validation_set, config, monitor));
  out.train_cpu_seconds = cpu_seconds() - cpu0;
  out.train_wall_seconds =
      (static_cast<double>(
           std::chrono::steady_clock::now().time_since_epoch().count()) -
       wall0) *
      std::chrono::steady_clock::period::num / std::chrono::steady_clock::period::den;
  if (!checkpoint.empty())
    LLMFS_TRY(save_last(checkpoint, s, adamw, out.run, *corpus.tokenizer));
  // endregion: pipeline-train
  // region: pipeline-score
  // 2. The selected model on every validation token (Chapter 7's bits per byte)
  const auto& selected = out.run.selected.values();
  out.validation =
      LLMFS_TRY(score_every_token(s.model, selected, corpus.validation, s.batch));
  out.validation_bytes = corpus.validation.bytes;
  out.validation_bpb = bits_per_byte(out.validation.total, out.validation_bytes);
  const TrainedModel trained{
      s.model, {selected.begin(), selected.end()}, out.run.selected.step()};
  if (!model_file.empty())
    LLMFS_TRY_AT("model file", save_model(model_file, trained, *corpus.tokenizer));
  // 3. The bigram's α chosen on the validation windows, as Chapter 34 chose it
  const auto counted = LLMFS_TRY_AT(
      "bigram", llmfs::models::BigramModel::fit(
                    documents_of(corpus.train),
                    {corpus.tokenizer->vocab_size(), corpus.tokenizer->bos(),
                     corpus.tokenizer->eos(), 1.0}));
  training::BestStep best_alpha;
  for (std::size_t k = 0; k < ch34::kAlphas.size(); ++k) {
    auto smoothed = LLMFS_TRY_AT("bigram", counted.with_alpha(ch34::kAlphas[k]));
    const double loss =
        LLMFS_TRY_AT("bigram validation",
                     training::validation_loss(ch34::bigram_loss(std::move(smoothed)),
                                               {}, validation_set, config));
    (void)best_alpha.offer(k, loss, {});
  }
  out.bigram_alpha = ch34::kAlphas[best_alpha.step()];
  // endregion: pipeline-score
  // region: pipeline-test
  // 4. The test partition sealed, then scored once for every contender (Chapter 34)
  auto test_set = LLMFS_TRY(windows(corpus.test, T));
  out.test_examples = test_set.examples.size();
  out.test_tokens = test_set.examples.size() * T;
  out.test_bytes = window_bytes(test_set, T, *corpus.tokenizer);
  auto sealed = eval::SealedTestSet::seal(std::move(test_set), out.test_bytes);
  std::vector<eval::Contender> contenders{
      {"uniform",
       constant_loss(std::log(static_cast<double>(corpus.tokenizer->vocab_size()))),
       {}},
      {"bigram",
       ch34::bigram_loss(LLMFS_TRY_AT("bigram", counted.with_alpha(out.bigram_alpha))),
       {}},
      {"decoder", training::decoder_loss(s.model), {selected.begin(), selected.end()}}};
  if (ngram != nullptr)
    contenders.insert(
        contenders.end() - 1,
        {"ngram", ngram_window_loss(*ngram, corpus.tokenizer->bos()), {}});
  out.table = LLMFS_TRY_AT(
      "final", eval::final_evaluation(std::move(sealed), contenders, config));
  // 5. Samples from the selected model (Chapter 36's settings)
  for (const auto prompt : kPrompts)
    for (std::size_t k = 0; k < kSettings.size(); ++k) {
      auto ids = LLMFS_TRY_AT(
          "sample", generate(trained, *corpus.tokenizer, prompt, s.sample_tokens,
                             kSettings[k], kSampleSeed + k));
      out.samples.push_back(
          {std::string(prompt), k, ids, continuation_text(*corpus.tokenizer, ids)});
    }
  return out;
}
// endregion: pipeline-test

}  // namespace ch39
