// Chapter 33
// The evidence: the fixtures through the library, the reference run replayed, and
// the corpus run trained twice from one seed.
#include "evidence.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include <llmfs/training/selection.hpp>

namespace ch33 {

using llmfs::tensor::Shape;
using llmfs::tensor::Tensor;
namespace training = llmfs::training;

namespace {

/// The fixture: schedule, clipping and selection.
void run_fixtures(Evidence& e) {
  for (std::size_t s = 1; s <= kSchedule.total_steps; ++s)
    e.schedule.push_back(training::learning_rate(kSchedule, s).value_or(0.0));
  std::vector<Tensor> g;
  for (const auto& v : kGradients)
    g.push_back(Tensor::from(Shape{v.size()}, v).value());
  e.clip = training::clip_by_global_norm(g, kMaxNorm);
  for (const Tensor& t : g)
    e.clipped.emplace_back(t.values().begin(), t.values().end());
  training::BestStep best;
  for (const auto& [step, loss] : kCurve) {
    const std::vector<Tensor> values{Tensor::scalar(static_cast<double>(step))};
    e.selection.kept.push_back(best.offer(step, loss, values));
  }
  e.selection.step = best.step();
  e.selection.loss = best.loss();
}

/// `KIND|key=value|…` records of the reference file.
using Record = std::map<std::string, std::string>;
std::vector<Record> read_records(const std::string& path) {
  std::vector<Record> out;
  std::ifstream file(path);
  for (std::string line; std::getline(file, line);) {
    if (line.empty() || line[0] == '#') continue;
    Record r;
    std::istringstream fields(line);
    std::string field;
    std::getline(fields, field, '|');
    r["kind"] = field;
    while (std::getline(fields, field, '|')) {
      const auto eq = field.find('=');
      r[field.substr(0, eq)] = field.substr(eq + 1);
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<double> numbers(const std::string& text) {
  std::vector<double> out;
  std::istringstream parts(text);
  for (std::string item; std::getline(parts, item, ',');)
    out.push_back(std::stod(item));
  return out;
}

double relative(double got, double want) {
  return std::abs(got - want) / std::max(std::abs(want), 1e-300);
}

}  // namespace

Step<Setup> demo_setup(const llmfs::models::DecoderConfig& model, std::size_t context,
                       std::size_t batch, std::size_t steps, std::size_t warmup,
                       std::size_t every) {
  const auto decoder =
      LLMFS_TRY_AT("create", llmfs::models::DecoderModel::create(model));
  Setup setup;
  setup.values = LLMFS_TRY_AT("values", decoder.values());
  setup.config.batch_size = batch;
  setup.config.windows = {context, context};
  setup.config.schedule = {kPeak, kFloor, warmup, steps};
  setup.config.max_gradient_norm = kMaxGradientNorm;
  setup.config.eval_every = every;
  setup.config.seed = kSeed;
  return setup;
}

// region: corpus-run
Step<CorpusRun> run_corpus(training::TrainingMonitor* monitor) {
  using llmfs::text::Split;
  const auto train =
      LLMFS_TRY(corpus_set(Split::train, kDemoDocuments, kDemoContext, 0));
  const auto validation =
      LLMFS_TRY(corpus_set(Split::validation, 1, kDemoContext, kDemoValidation));
  const auto setup = LLMFS_TRY(demo_setup(kDemoModel, kDemoContext, kDemoBatch,
                                          kDemoSteps, kWarmup, kDemoEvery));
  const auto loss = training::decoder_loss(kDemoModel);
  // Twice from the same seed: the second run must equal the first, bit for bit
  std::vector<training::TrainResult> runs;
  for (int run = 0; run < 2; ++run) {
    auto optimizer = LLMFS_TRY_AT(
        "adamw", training::AdamW::create(
                     kHyper, training::decoder_groups(kDemoModel, kWeightDecay)));
    runs.push_back(LLMFS_TRY_AT(
        "train",
        training::train(setup.values, optimizer, loss, train.set, validation.set,
                        setup.config, run == 0 ? monitor : nullptr)));
  }
  CorpusRun out{train.documents,
                train.set.examples.size(),
                validation.set.examples.size(),
                0,
                std::move(runs[0]),
                false};
  for (const Tensor& v : setup.values)
    out.parameters += v.size();
  const auto& again = runs[1];
  out.reproducible = out.result.steps == again.steps &&
                     out.result.evaluations == again.evaluations &&
                     std::ranges::equal(out.result.final_values, again.final_values,
                                        [](const Tensor& x, const Tensor& y) {
                                          return llmfs::tensor::bitwise_equal(x, y);
                                        });
  return out;
}
// endregion: corpus-run

Step<Replay> replay_reference() {
  const auto records = read_records(LLMFS_TRAINING_REFERENCE_PATH);
  Record cfg, run;
  training::ExampleSet train, validation;
  std::vector<Tensor> initial;
  std::map<std::string, std::vector<double>> final_values, best_values;
  std::vector<Record> steps, evals;
  for (const Record& r : records) {
    const std::string& kind = r.at("kind");
    if (kind == "CONFIG") cfg = r;
    if (kind == "RUN") run = r;
    if (kind == "SEQUENCE") {
      std::vector<llmfs::text::TokenId> ids;
      for (double x : numbers(r.at("ids")))
        ids.push_back(static_cast<llmfs::text::TokenId>(x));
      (r.at("split") == "train" ? train : validation).sequences.push_back(ids);
    }
    if (kind == "INIT") {
      std::vector<std::size_t> dims;
      for (double x : numbers(r.at("shape")))
        dims.push_back(static_cast<std::size_t>(x));
      initial.push_back(LLMFS_TRY_AT(
          "reference value", Tensor::from(Shape(dims), numbers(r.at("values")))));
    }
    if (kind == "FINAL") final_values[r.at("name")] = numbers(r.at("values"));
    if (kind == "BEST") best_values[r.at("name")] = numbers(r.at("values"));
    if (kind == "STEP") steps.push_back(r);
    if (kind == "EVAL") evals.push_back(r);
  }
  const auto n = [&](const Record& r, const char* key) { return std::stod(r.at(key)); };
  const auto z = [&](const Record& r, const char* key) {
    return static_cast<std::size_t>(std::stoull(r.at(key)));
  };
  const llmfs::models::DecoderConfig model{
      z(cfg, "V"),         z(cfg, "d"),    z(cfg, "h"),
      z(cfg, "N"),         z(cfg, "d_ff"), z(cfg, "T_max"),
      n(cfg, "rope_base"), n(cfg, "eps"),  0};
  training::TrainConfig config;
  config.batch_size = z(cfg, "B");
  config.windows = {z(cfg, "T"), z(cfg, "stride")};
  config.schedule = {n(run, "peak"), n(run, "floor"), z(run, "warmup"),
                     z(run, "steps")};
  config.max_gradient_norm = n(run, "clip");
  config.eval_every = z(run, "every");
  config.seed = z(run, "seed");
  train.examples = LLMFS_TRY_AT(
      "windows", llmfs::text::make_examples(train.sequences, config.windows));
  validation.examples = LLMFS_TRY_AT(
      "windows", llmfs::text::make_examples(validation.sequences, config.windows));
  auto optimizer = LLMFS_TRY_AT(
      "adamw",
      training::AdamW::create(
          {n(run, "peak"), n(run, "beta1"), n(run, "beta2"), n(run, "adam_eps")},
          training::decoder_groups(model, n(run, "decay"))));
  const auto result = LLMFS_TRY_AT(
      "train", training::train(initial, optimizer, training::decoder_loss(model), train,
                               validation, config));
  Replay out;
  out.steps = result.steps.size();
  out.parameters = result.final_values.size();
  for (std::size_t s = 0; s < steps.size() && s < result.steps.size(); ++s) {
    out.loss_max_relative = std::max(
        out.loss_max_relative, relative(result.steps[s].loss, n(steps[s], "loss")));
    out.norm_max_relative =
        std::max(out.norm_max_relative,
                 relative(result.steps[s].gradient_norm, n(steps[s], "norm")));
    out.clipped_steps += result.steps[s].clip_scale < 1.0 ? 1 : 0;
  }
  double best = 1e300;
  for (std::size_t k = 0; k < evals.size() && k < result.evaluations.size(); ++k) {
    out.validation_max_relative =
        std::max(out.validation_max_relative,
                 relative(result.evaluations[k].validation_loss, n(evals[k], "loss")));
    if (n(evals[k], "loss") < best)
      best = n(evals[k], "loss"), out.torch_best_step = z(evals[k], "step");
  }
  const auto specs = llmfs::models::decoder_parameter_specs(model);
  for (std::size_t p = 0; p < specs.size(); ++p) {
    const auto& want = final_values.at(specs[p].name);
    const auto got = result.final_values[p].values();
    out.elements += got.size();
    for (std::size_t i = 0; i < got.size(); ++i)
      out.values_max_relative =
          std::max(out.values_max_relative, relative(got[i], want[i]));
    const auto& torch_best = best_values.at(specs[p].name);
    const auto kept = result.selected.values()[p].values();
    for (std::size_t i = 0; i < kept.size(); ++i)
      out.selected_max_relative =
          std::max(out.selected_max_relative, relative(kept[i], torch_best[i]));
  }
  out.selected_step = result.selected.step();
  out.selected_loss = result.selected.loss();
  out.final_loss = result.evaluations.back().validation_loss;
  return out;
}

Step<Evidence> gather() {
  Evidence e;
  run_fixtures(e);
  e.replay = LLMFS_TRY(replay_reference());
  e.corpus = LLMFS_TRY(run_corpus(nullptr));
  // Refusals: each names its stage and its numbers
  e.errors.push_back(
      {"schedule_floor_above_peak",
       snippets::error_text(training::learning_rate({0.01, 0.02, 0, 6}, 1))});
  e.errors.push_back({"schedule_step_past_end",
                      snippets::error_text(training::learning_rate(kSchedule, 7))});
  training::TrainConfig bad;
  bad.schedule = kSchedule;
  bad.batch_size = 8;
  bad.windows = {4, 4};
  bad.eval_every = 0;
  e.errors.push_back({"config_no_eval_interval",
                      snippets::error_text(training::check_train_config(bad, {}, {}))});
  // Exercises
  auto no_warmup = kSchedule;
  no_warmup.warmup_steps = 0;
  e.exercises.no_warmup_first_rate =
      training::learning_rate(no_warmup, 1).value_or(0.0);
  e.exercises.unclipped_from = e.clip.norm + training::kClipGuard;
  e.exercises.last_minus_selected = e.replay.final_loss - e.replay.selected_loss;
  e.exercises.clipped_steps = e.replay.clipped_steps;
  return e;
}

}  // namespace ch33
