// Chapter 23
// The whole chapter gathered once, the report, one `key=value` line per fact, and the
// trace records of the diagram.
#include <cmath>

#include <fmt/ranges.h>

#include "evidence.hpp"

namespace ch23 {

namespace {

using llmfs::models::NgramMlp;

std::string list(const std::vector<double>& v) {
  return fmt::format("[{:.6f}]", fmt::join(v, ","));
}

// Each refusal of the model, as its error text.
[[nodiscard]] Step<std::vector<std::array<std::string, 2>>> refusals() {
  std::vector<std::array<std::string, 2>> out;
  const auto text = [&](std::string name, const auto& result) {
    out.push_back({std::move(name), result ? std::string("accepted")
                                           : fmt::format("{}", result.error())});
  };
  llmfs::SplitMix64 rng(kSeed);
  text("zero_width", NgramMlp::create({4096, 3, 0, 128}, rng));
  auto values = LLMFS_TRY(fixture_model(kValues[3]));
  std::vector<llmfs::tensor::Tensor> copy(values.values().begin(),
                                          values.values().end());
  copy[3] = llmfs::tensor::Tensor::zeros(llmfs::tensor::Shape{4, 1});
  text("value_shape", NgramMlp::from_values(kFixtureConfig, copy));
  auto examples = llmfs::models::ngram_examples(kDocuments, 2, kBos, kEos);
  auto wide = examples;
  wide.contexts.ids[5] = 4;
  text("token_out_of_range", values.forward(wide, true));
  auto narrow = examples;
  narrow.contexts.time = 1;
  text("context_shape", values.forward(narrow, true));
  return out;
}

}  // namespace

Step<Evidence> gather() {
  Evidence e;
  e.fixture = LLMFS_TRY(run_fixture());
  const CorpusExamples corpus = LLMFS_TRY(corpus_examples());
  CorpusRun& run = e.corpus;
  run.vocab = corpus.vocab;
  run.train_examples = corpus.train.targets.batch;
  run.validation_examples = corpus.validation.targets.batch;
  run.subset_documents = corpus.subset_documents;
  run.subset_examples = corpus.subset.targets.batch;
  run.subset_bytes = corpus.subset_bytes;
  run.bigram_subset_bpb = corpus.bigram_subset_bpb;
  run.bigram_subset_loss = corpus.bigram_subset_loss;
  run.bigram_validation_bpb = corpus.bigram_validation_bpb;
  run.uniform_subset_bpb = std::log(static_cast<double>(corpus.vocab)) *
                           static_cast<double>(run.subset_examples) /
                           (std::log(2.0) * static_cast<double>(run.subset_bytes));
  run.curve = LLMFS_TRY(train(corpus, corpus.subset, corpus.subset_bytes, kBatch,
                              kSteps, kEvery, false, [](const CurvePoint&) {}));
  e.replay = LLMFS_TRY(replay_reference());
  e.errors = LLMFS_TRY(refusals());
  const std::array<std::size_t, 3> contexts = {1, kContext, 6};
  for (std::size_t k = 0; k < contexts.size(); ++k) {
    llmfs::SplitMix64 rng(kSeed);
    const auto model = LLMFS_TRY_AT(
        "exercise",
        NgramMlp::create({corpus.vocab, contexts[k], kEmbedding, kHidden}, rng));
    e.exercise_parameters[k] = model.parameter_count();
    if (contexts[k] == kContext) {
      run.parameters = model.parameter_count();
      run.output_parameters = model.values()[3].size() + model.values()[4].size();
    }
  }
  return e;
}

std::string render_report(const Evidence& e) {
  std::vector<std::string> lines;
  const FixtureRun& f = e.fixture;
  lines.push_back(fmt::format("fixture_examples={}", fmt::join(f.examples, " ")));
  lines.push_back(fmt::format("fixture_loss={:.6f} ln(62.5)/3={:.6f}", f.loss,
                              std::log(62.5) / 3.0));
  for (std::size_t k = 0; k < f.gradients.size(); ++k)
    lines.push_back(
        fmt::format("fixture_grad_{}={}", NgramMlp::names()[k], list(f.gradients[k])));
  lines.push_back(
      fmt::format("fixture_gradcheck=coordinates:{} max_abs_error:{:.1e} "
                  "passed:{}",
                  f.checked, f.check_max_error, f.check_passed));
  const CorpusRun& c = e.corpus;
  lines.push_back(
      fmt::format("corpus=V:{} n:{} d:{} h:{} parameters:{} output_layer:{}", c.vocab,
                  kContext, kEmbedding, kHidden, c.parameters, c.output_parameters));
  lines.push_back(fmt::format("corpus_examples=train:{} validation:{}",
                              c.train_examples, c.validation_examples));
  lines.push_back(fmt::format(
      "demo=batch:{} steps:{} lr:{} weight_decay:{} seed:{} scored:first_{}_validation_"
      "documents examples:{} bytes:{}",
      kBatch, kSteps, kHyper.learning_rate, kWeightDecay, kSeed, c.subset_documents,
      c.subset_examples, c.subset_bytes));
  for (const CurvePoint& p : c.curve)
    lines.push_back(fmt::format(
        "demo_step_{}=train_loss:{} validation_loss:{:.6f} validation_bpb:{:.6f}",
        p.step, p.step ? fmt::format("{:.6f}", p.train_loss) : std::string("none"),
        p.validation_loss, p.validation_bpb));
  lines.push_back(fmt::format(
      "demo_bpb_on_subset=ngram:{:.6f} bigram_alpha_0.01:{:.6f} uniform:{:.6f}",
      c.curve.back().validation_bpb, c.bigram_subset_bpb, c.uniform_subset_bpb));
  lines.push_back(fmt::format("bigram_alpha_0.01_whole_validation_bpb={:.6f}",
                              c.bigram_validation_bpb));
  const Replay& r = e.replay;
  lines.push_back(fmt::format("torch_problem=parameters:{} examples:{} adamw_steps:{}",
                              r.parameters, r.examples, r.steps));
  lines.push_back(fmt::format(
      "torch_relative_difference=loss:{:.1e} gradients:{:.1e} after_adamw:{:.1e} "
      "within_1e-12:{}",
      r.loss_relative, r.gradient_relative, r.adamw_relative,
      std::max({r.loss_relative, r.gradient_relative, r.adamw_relative}) <= 1e-12));
  for (const auto& [n, text] : e.errors)
    lines.push_back(fmt::format("error_{}={}", n, text));
  lines.push_back(fmt::format("exercise_1=parameters n=1,3,6:[{}]",
                              fmt::join(e.exercise_parameters, ",")));
  lines.push_back(fmt::format(
      "exercise_2=output_layer_share:{:.6f}",
      static_cast<double>(c.output_parameters) / static_cast<double>(c.parameters)));
  lines.push_back(
      fmt::format("exercise_3=uniform_bpb_on_subset:{:.6f} step_0_bpb:{:.6f}",
                  c.uniform_subset_bpb, c.curve.front().validation_bpb));
  return snippets::join_lines(lines);
}

// region: trace-records
// LOSS per point of the demo's curve, BASELINE for the lines it is drawn against. The
// diagram reads these and recomputes nothing.
std::string render_trace(const Evidence& e) {
  std::vector<std::string> records;
  for (const CurvePoint& p : e.corpus.curve)
    records.push_back(
        fmt::format("LOSS|step={}|train={:.6f}|validation={:.6f}|bpb={:.6f}", p.step,
                    p.train_loss, p.validation_loss, p.validation_bpb));
  const CorpusRun& c = e.corpus;
  records.push_back(
      fmt::format("BASELINE|bigram_loss={:.6f}|bigram_bpb={:.6f}|uniform_loss={:.6f}|"
                  "uniform_bpb={:.6f}",
                  c.bigram_subset_loss, c.bigram_subset_bpb,
                  std::log(static_cast<double>(c.vocab)), c.uniform_subset_bpb));
  return snippets::join_lines(records);
}
// endregion: trace-records

}  // namespace ch23
