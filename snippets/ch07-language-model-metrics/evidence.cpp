// Chapter 7
#include "evidence.hpp"

#include <cmath>
#include <limits>
#include <numbers>

namespace ch07 {

using llmfs::eval::score_bigram;
using llmfs::eval::score_probabilities;
using llmfs::eval::summarize;
using llmfs::models::BigramConfig;
using llmfs::models::BigramModel;

namespace {

/// One of the fixture's two tokenizers: its encoder, its configuration, its names.
struct FixtureTokenizer {
  std::string name;
  TokenSequence (*encode)(std::string_view);
  std::string (*token_name)(TokenId);
  BigramConfig config;
};

// The uniform model on the same predictions: every token at 1/V.
[[nodiscard]] Step<Metrics> uniform_metrics(const llmfs::eval::Score& s,
                                            std::size_t vocab_size) {
  const std::vector<double> p(s.tokens, 1.0 / static_cast<double>(vocab_size));
  const auto score = LLMFS_TRY_AT("uniform", score_probabilities(p, s.bytes));
  return LLMFS_TRY_AT("uniform", summarize(score));
}

// region: fixture-predictions
// The validation document under one tokenizer: chapter 6's predictions, each with its
// bytes and its surprisal, then the three metrics of their sum.
[[nodiscard]] Step<Evaluation> evaluate(const FixtureTokenizer& t) {
  const auto train = ch06::encode_all(ch06::kTrain, t.encode);
  const auto valid = ch06::encode_all(ch06::kValidation, t.encode);
  const BigramModel model =
      LLMFS_TRY_AT("fit " + t.name, BigramModel::fit(train, t.config));
  Evaluation e{t.name, t.config.vocab_size, {}, {}, {}, {}};
  for (const ch06::PairScore& s : LLMFS_TRY(ch06::score_pairs(model, valid[0]))) {
    const std::string next = t.token_name(s.next);
    e.predictions.push_back({t.token_name(s.prev), next,
                             s.next == t.config.eos ? 0 : next.size(), s.probability,
                             -std::log(s.probability)});
  }
  const std::size_t bytes = ch06::kValidation[0].size();
  const auto score = LLMFS_TRY_AT("score " + t.name, score_bigram(model, valid, bytes));
  e.metrics = LLMFS_TRY_AT("metrics " + t.name, summarize(score));
  e.uniform = LLMFS_TRY(uniform_metrics(score, t.config.vocab_size));
  return e;
}
// endregion: fixture-predictions

}  // namespace

Step<std::vector<Evaluation>> evaluate_fixture() {
  const FixtureTokenizer tokenizers[] = {
      {"letters",
       ch06::encode_letters,
       ch06::token_name,
       {ch06::kFixtureVocab, ch06::kFixtureBos, ch06::kFixtureEos, 1.0}},
      {"letters_an",
       encode_merged,
       merged_name,
       {kMergedVocab, kMergedBos, kMergedEos, 1.0}}};
  std::vector<Evaluation> evaluations;
  for (const FixtureTokenizer& t : tokenizers)
    evaluations.push_back(LLMFS_TRY(evaluate(t)));
  return evaluations;
}

// region: refusals
// Metrics that are undefined, each refused with a typed error: nothing predicted, no
// text, a zero probability (an unsmoothed model meeting an unseen pair) and a NaN.
std::vector<Refusal> refusals() {
  using snippets::error_text;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<double> zero{0.5, 0.0}, not_a_number{nan};
  return {{"no_tokens", error_text(llmfs::eval::cross_entropy(llmfs::eval::Score{}))},
          {"no_bytes", error_text(llmfs::eval::bits_per_byte({2.0, 3, 0}))},
          {"zero_probability", error_text(score_probabilities(zero, 2))},
          {"nan_probability", error_text(score_probabilities(not_a_number, 1))}};
}
// endregion: refusals

// region: corpus-evaluation
// One tokenization of the King James corpus: the bigram fitted on the training
// partition (chapter 6), scored on the validation partition beside the uniform model,
// and the same counts scored again with smaller pseudo-counts.
[[nodiscard]] Step<Evaluation> evaluate_corpus(const ch06::EncodedCorpus& corpus) {
  const auto& valid = corpus.validation;
  const BigramModel model = LLMFS_TRY_AT(
      "fit " + corpus.name, BigramModel::fit(corpus.train.documents, corpus.config));
  const auto score = LLMFS_TRY_AT("score " + corpus.name,
                                  score_bigram(model, valid.documents, valid.bytes));
  Evaluation e{corpus.name, corpus.config.vocab_size, {}, {}, {}, {}};
  e.metrics = LLMFS_TRY_AT("metrics " + corpus.name, summarize(score));
  e.uniform = LLMFS_TRY(uniform_metrics(score, corpus.config.vocab_size));
  for (double alpha : kAlphas) {
    const BigramModel smoothed = LLMFS_TRY_AT("alpha", model.with_alpha(alpha));
    const auto s =
        LLMFS_TRY_AT("alpha", score_bigram(smoothed, valid.documents, valid.bytes));
    e.alphas.push_back(LLMFS_TRY_AT("alpha", summarize(s)));
  }
  return e;
}
// endregion: corpus-evaluation

// region: exercises
// 2: the unsmoothed estimate c(prev, next) / c(prev) along `ban` (chapter 6's counts),
// scored; 3: the uniform model over the 258 byte-level ids, in bits; 4: nats per token
// converted with a tokenizer's bytes per token.
Step<Exercises> solve_exercises() {
  Exercises x;
  for (const ch06::PairScore& s : LLMFS_TRY(ch06::fit_fixture()).scored)
    x.unsmoothed.push_back(static_cast<double>(s.count) / static_cast<double>(s.total));
  x.unsmoothed_score = snippets::error_text(
      score_probabilities(x.unsmoothed, ch06::kValidation[0].size()));
  x.uniform_bytes_bits =
      LLMFS_TRY_AT("exercise 3", llmfs::eval::uniform_cross_entropy(258)) /
      std::numbers::ln2;
  const llmfs::eval::Score thousand{
      1000 * kExerciseNatsPerToken, 1000,
      static_cast<std::size_t>(1000 * kExerciseBytesPerToken)};
  x.converted_bpb = LLMFS_TRY_AT("exercise 4", llmfs::eval::bits_per_byte(thousand));
  return x;
}
// endregion: exercises

// The chapter in one pass: the fixture under both tokenizers, the refusals, the
// corpus under both tokenizers, the exercises.
Step<Evidence> gather() {
  Evidence e;
  e.fixture = LLMFS_TRY(evaluate_fixture());
  e.refusals = refusals();
  const std::vector<ch06::EncodedCorpus> corpora = LLMFS_TRY(ch06::encode_corpus());
  for (const ch06::EncodedCorpus& corpus : corpora)
    e.corpus.push_back(LLMFS_TRY(evaluate_corpus(corpus)));
  e.exercises = LLMFS_TRY(solve_exercises());
  return e;
}

}  // namespace ch07
