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

// region: evaluation
// A bigram fitted on a training partition (chapter 6), scored on a validation
// partition beside the uniform model, and the same counts scored again with each
// pseudo-count of `alphas`.
[[nodiscard]] Step<Evaluation> evaluate(const BigramModel& model, std::string name,
                                        const std::vector<TokenSequence>& valid,
                                        std::size_t bytes,
                                        std::span<const double> alphas) {
  const auto score = LLMFS_TRY_AT("score " + name, score_bigram(model, valid, bytes));
  Evaluation e{std::move(name), model.vocab_size()};
  e.metrics = LLMFS_TRY_AT("metrics", summarize(score));
  e.uniform = LLMFS_TRY(uniform_metrics(score, model.vocab_size()));
  for (double alpha : alphas) {
    const BigramModel smoothed = LLMFS_TRY_AT("alpha", model.with_alpha(alpha));
    const auto s = LLMFS_TRY_AT("alpha", score_bigram(smoothed, valid, bytes));
    e.alphas.push_back(LLMFS_TRY_AT("alpha", summarize(s)));
  }
  return e;
}
// endregion: evaluation

// region: fixture-predictions
// The validation document under one tokenizer: its evaluation, and chapter 6's
// predictions, each with its bytes and its surprisal.
[[nodiscard]] Step<Evaluation> evaluate(const FixtureTokenizer& t) {
  const auto train = ch06::encode_all(ch06::kTrain, t.encode);
  const auto valid = ch06::encode_all(ch06::kValidation, t.encode);
  const BigramModel model =
      LLMFS_TRY_AT("fit " + t.name, BigramModel::fit(train, t.config));
  Evaluation e =
      LLMFS_TRY(evaluate(model, t.name, valid, ch06::kValidation[0].size(), {}));
  for (const ch06::PairScore& s : LLMFS_TRY(ch06::score_pairs(model, valid[0]))) {
    const std::string next = t.token_name(s.next);
    e.predictions.push_back({t.token_name(s.prev), next,
                             s.next == t.config.eos ? 0 : next.size(), s.probability,
                             -std::log(s.probability)});
  }
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
// King James corpus under both tokenizers (chapter 6's bigram, scored on the
// validation partition with every α of kAlphas), the exercises.
Step<Evidence> gather() {
  Evidence e;
  e.fixture = LLMFS_TRY(evaluate_fixture());
  e.refusals = refusals();
  for (const ch06::EncodedCorpus& corpus : LLMFS_TRY(ch06::encode_corpus())) {
    const BigramModel model = LLMFS_TRY_AT(
        "fit " + corpus.name, BigramModel::fit(corpus.train.documents, corpus.config));
    e.corpus.push_back(
        LLMFS_TRY(evaluate(model, corpus.name, corpus.validation.documents,
                           corpus.validation.bytes, kAlphas)));
  }
  e.exercises = LLMFS_TRY(solve_exercises());
  return e;
}

}  // namespace ch07
