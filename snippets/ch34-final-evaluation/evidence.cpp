// Chapter 34
// The evidence: the sealed fixture, Chapter 33's demo run, the bigram's α chosen on
// validation, and the one scoring of the test partition.
#include "evidence.hpp"

#include <cmath>
#include <string>

#include <llmfs/eval/ngram_contender.hpp>
#include <llmfs/text/merges_file.hpp>

namespace ch34 {

using llmfs::tensor::Tensor;
namespace eval = llmfs::eval;
namespace training = llmfs::training;

namespace {

/// A model that gives every token the same loss, ignoring its values.
training::LossFunction constant_loss(double loss) {
  return [loss](std::span<const Tensor>, const training::Batch&, bool)
             -> std::expected<training::LossAndGradients, training::ModelFailure> {
    return training::LossAndGradients{loss, {}};
  };
}

/// The fixture: one scoring, then the refusals.
[[nodiscard]] Step<void> run_fixture(Evidence& e) {
  training::TrainConfig config;
  config.batch_size = 2;
  config.windows = {2, 2};
  const std::vector<eval::Contender> quarter{
      {"quarter", constant_loss(kFixtureLoss), {}}};
  auto test = eval::SealedTestSet::seal(kFixtureTest, kFixtureBytes);
  const auto first =
      LLMFS_TRY_AT("fixture", eval::final_evaluation(std::move(test), quarter, config));
  e.fixture = first[0].metrics;
  e.second_scoring =
      snippets::error_text(eval::final_evaluation(std::move(test), quarter, config));
  auto moved = eval::SealedTestSet::seal(kFixtureTest, kFixtureBytes);
  auto holder = std::move(moved);
  e.moved_from =
      snippets::error_text(eval::final_evaluation(std::move(moved), quarter, config));
  config.batch_size = 0;
  (void)eval::final_evaluation(std::move(holder), quarter, config);
  e.sealed_after_refused_config = holder.sealed();
  return {};
}

/// Every document of `set` without its BOS and EOS (the bigram frames them itself).
std::vector<llmfs::models::TokenSequence> documents_of(
    const training::ExampleSet& set) {
  std::vector<llmfs::models::TokenSequence> out;
  for (const auto& s : set.sequences)
    out.emplace_back(s.begin() + 1, s.end() - 1);
  return out;
}

}  // namespace

// region: bigram-loss
training::LossFunction bigram_loss(llmfs::models::BigramModel model) {
  return [model = std::move(model)](std::span<const Tensor>,
                                    const training::Batch& batch, bool)
             -> std::expected<training::LossAndGradients, training::ModelFailure> {
    double nats = 0.0;
    const auto& in = batch.inputs.ids;
    for (std::size_t p = 0; p < in.size(); ++p) {
      const auto prob = model.probability(in[p], batch.targets.ids[p]);
      if (!prob)
        return std::unexpected(training::ModelFailure{fmt::format("{}", prob.error())});
      nats -= std::log(*prob);
    }
    return training::LossAndGradients{nats / static_cast<double>(in.size()), {}};
  };
}
// endregion: bigram-loss

namespace {

/// Chapter 33's demo run again (same data, settings and seed) and the bigram with the α
/// of lowest validation loss; records the selection and the α choice in `e`.
struct Trained {
  training::TrainConfig config;       ///< B and T, for scoring
  training::TrainResult run;          ///< the decoder's run, with its selection
  llmfs::models::BigramModel bigram;  ///< fitted on the same documents, α chosen
};

[[nodiscard]] Step<Trained> train_contenders(Evidence& e) {
  using llmfs::text::Split;
  const auto train = LLMFS_TRY(
      ch33::corpus_set(Split::train, ch33::kDemoDocuments, ch33::kDemoContext, 0));
  const auto validation = LLMFS_TRY(ch33::corpus_set(
      Split::validation, 1, ch33::kDemoContext, ch33::kDemoValidation));
  const auto setup =
      LLMFS_TRY(ch33::demo_setup(ch33::kDemoModel, ch33::kDemoContext, ch33::kDemoBatch,
                                 ch33::kDemoSteps, ch33::kWarmup, ch33::kDemoEvery));
  auto optimizer = LLMFS_TRY_AT(
      "adamw",
      training::AdamW::create(ch33::kHyper, training::decoder_groups(
                                                ch33::kDemoModel, ch33::kWeightDecay)));
  auto run =
      LLMFS_TRY_AT("train", training::train(setup.values, optimizer,
                                            training::decoder_loss(ch33::kDemoModel),
                                            train.set, validation.set, setup.config));
  e.selected_step = run.selected.step();
  e.selected_validation = run.selected.loss();
  e.last_step = run.steps.size();
  // The bigram's α: the lowest validation loss, by chapter 33's rule
  const auto counted = LLMFS_TRY_AT(
      "bigram",
      llmfs::models::BigramModel::fit(documents_of(train.set), {258, 256, 257, 1.0}));
  training::BestStep best_alpha;
  for (std::size_t k = 0; k < kAlphas.size(); ++k) {
    auto smoothed = LLMFS_TRY_AT("bigram", counted.with_alpha(kAlphas[k]));
    e.alpha_validation[k] =
        LLMFS_TRY_AT("bigram validation",
                     training::validation_loss(bigram_loss(std::move(smoothed)), {},
                                               validation.set, setup.config));
    (void)best_alpha.offer(k, e.alpha_validation[k], {});
  }
  e.alpha = kAlphas[best_alpha.step()];
  auto bigram = LLMFS_TRY_AT("bigram", counted.with_alpha(e.alpha));
  return Trained{setup.config, std::move(run), std::move(bigram)};
}

/// Chapter 23's demo model again: its seed, sizes, AdamW and 80 steps on its training
/// examples; its score on Chapter 23's subset at the last step recorded in `e`.
[[nodiscard]] Step<void> train_ngram(Evidence& e) {
  const auto corpus = LLMFS_TRY(ch23::corpus_examples());
  llmfs::SplitMix64 rng(ch23::kSeed);
  auto model = LLMFS_TRY_AT(
      "ngram",
      llmfs::models::NgramMlp::create(
          {corpus.vocab, ch23::kContext, ch23::kEmbedding, ch23::kHidden}, rng));
  auto optimizer = LLMFS_TRY_AT(
      "ngram",
      training::AdamW::create(ch23::kHyper,
                              LLMFS_TRY_AT("ngram", llmfs::models::ngram_groups(
                                                        model, ch23::kWeightDecay))));
  const auto curve = LLMFS_TRY_AT(
      "ngram", llmfs::models::train_ngram(
                   model, optimizer, corpus.train, corpus.subset, corpus.subset_bytes,
                   {ch23::kBatch, ch23::kSteps, ch23::kSteps, ch23::kSeed, false}));
  e.ngram_subset_bpb = curve.back().validation_bpb;
  e.ngram = std::make_shared<const llmfs::models::NgramMlp>(std::move(model));
  const auto merges =
      LLMFS_TRY_AT("tokenizer", llmfs::text::read_merges(LLMFS_TOKENIZER_PATH));
  e.tokenizer = std::make_shared<const llmfs::text::Tokenizer>(
      LLMFS_TRY_AT("tokenizer", llmfs::text::Tokenizer::create(merges)));
  return {};
}

}  // namespace

// region: final-table
Step<Evidence> gather() {
  Evidence e;
  LLMFS_TRY(run_fixture(e));
  const Trained trained = LLMFS_TRY(train_contenders(e));
  LLMFS_TRY(train_ngram(e));
  // Seal the test partition, then open it once for every contender
  auto test = LLMFS_TRY(ch33::corpus_set(llmfs::text::Split::test, kTestDocuments,
                                         ch33::kDemoContext, kTestExamples));
  e.test_documents = test.documents;
  e.test_examples = test.set.examples.size();
  e.test_bytes = test.bytes;
  auto sealed = eval::SealedTestSet::seal(std::move(test.set), test.bytes);
  const auto& selected = trained.run.selected.values();
  const std::vector<eval::Contender> contenders{
      {"uniform", constant_loss(std::log(258.0)), {}},
      {"bigram", bigram_loss(trained.bigram), {}},
      {"decoder",
       training::decoder_loss(ch33::kDemoModel),
       {selected.begin(), selected.end()}},
      eval::ngram_contender("ngram", e.ngram, e.tokenizer, ch33::kDemoContext)};
  e.table = LLMFS_TRY_AT(
      "final", eval::final_evaluation(std::move(sealed), contenders, trained.config));
  // Exercises: the fixture with EOS spelled as one byte; ratios of the table
  const eval::Score eos_as_byte{e.fixture.score.total_nats, e.fixture.score.tokens, 6};
  e.exercises[0] = LLMFS_TRY_AT("exercise 1", eval::bits_per_byte(eos_as_byte));
  e.exercises[1] = e.table[1].metrics.bits_per_byte / e.table[0].metrics.bits_per_byte;
  e.exercises[2] = e.table[2].metrics.cross_entropy / std::log(2.0);
  e.exercises[3] = e.table[3].metrics.cross_entropy / std::log(2.0);
  e.exercises[4] = static_cast<double>(e.test_bytes) /
                   static_cast<double>(e.table[3].metrics.score.tokens);
  return e;
}
// endregion: final-table

}  // namespace ch34
