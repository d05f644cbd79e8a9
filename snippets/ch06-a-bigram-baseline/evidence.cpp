// Chapter 6
#include "evidence.hpp"

#include <limits>

namespace ch06 {

using llmfs::models::BigramConfig;
using llmfs::models::sample_document;

namespace {

std::string letters(const TokenSequence& tokens) {
  std::string text;
  for (TokenId id : tokens)  // a special drawn mid-document shows as <BOS>
    text += id < kFixtureBos ? token_name(id) : "<" + token_name(id) + ">";
  return text;
}

constexpr BigramConfig kFixtureConfig{kFixtureVocab, kFixtureBos, kFixtureEos,
                                      kFixtureAlpha};

// region: fixture-row
// One row of the table from the model's own queries: c(prev, next) for every next,
// c(prev), and the smoothed row P(· | prev).
[[nodiscard]] Step<Row> table_row(const BigramModel& model, TokenId prev) {
  Row row{prev, {}, 0, {}};
  for (std::size_t next = 0; next < model.vocab_size(); ++next)
    row.counts.push_back(
        LLMFS_TRY_AT("read model", model.count(prev, static_cast<TokenId>(next))));
  row.total = LLMFS_TRY_AT("read model", model.row_total(prev));
  row.probabilities = LLMFS_TRY_AT("read model", model.row(prev));
  return row;
}
// endregion: fixture-row

// region: fixture-refusals
// Configurations and inputs the formula cannot use, each refused with a typed error.
std::vector<Refusal> refusals(const std::vector<TokenSequence>& train) {
  const auto refuse = [&](std::string name, const BigramConfig& config,
                          std::span<const TokenSequence> docs) {
    return Refusal{std::move(name),
                   snippets::error_text(BigramModel::fit(docs, config))};
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<TokenSequence> bad_id{train[0], {1, 0, 5}};
  return {refuse("alpha_zero", {5, 3, 4, 0.0}, train),
          refuse("alpha_negative", {5, 3, 4, -1.0}, train),
          refuse("alpha_nan", {5, 3, 4, nan}, train),
          refuse("empty_vocabulary", {0, 0, 0, 1.0}, train),
          refuse("eos_out_of_range", {5, 3, 5, 1.0}, train),
          refuse("token_out_of_range", kFixtureConfig, bad_id)};
}
// endregion: fixture-refusals

}  // namespace

// region: fixture-score
// The validation document, framed BOS … EOS, one prediction per pair.
Step<std::vector<PairScore>> score_pairs(const BigramModel& model,
                                         const TokenSequence& tokens) {
  std::vector<PairScore> scored;
  TokenId prev = model.config().bos;
  for (std::size_t i = 0; i <= tokens.size(); ++i) {
    const TokenId next = i < tokens.size() ? tokens[i] : model.config().eos;
    const std::uint64_t count = LLMFS_TRY_AT("read model", model.count(prev, next));
    const std::uint64_t total = LLMFS_TRY_AT("read model", model.row_total(prev));
    const double p = LLMFS_TRY_AT("read model", model.probability(prev, next));
    scored.push_back({prev, next, count, total, p});
    prev = next;
  }
  return scored;
}
// endregion: fixture-score

// region: fit-fixture
// The whole hand fixture: fit on the two training documents, read back every row,
// score the validation document, and draw seeded samples.
Step<Fixture> fit_fixture() {
  Fixture f;
  f.train = encode_all(kTrain, encode_letters);
  f.validation = encode_all(kValidation, encode_letters);
  const BigramModel model =
      LLMFS_TRY_AT("fit fixture", BigramModel::fit(f.train, kFixtureConfig));
  f.pairs = model.pairs();
  f.distinct_pairs = model.distinct_pairs();
  for (std::size_t prev = 0; prev < kFixtureVocab; ++prev)
    f.rows.push_back(LLMFS_TRY(table_row(model, static_cast<TokenId>(prev))));
  f.scored = LLMFS_TRY(score_pairs(model, f.validation[0]));
  for (const PairScore& s : f.scored)
    f.likelihood *= s.probability;
  llmfs::SplitMix64 rng(kSampleSeed);
  for (std::size_t i = 0; i < kFixtureSamples; ++i)
    f.samples.push_back(letters(
        LLMFS_TRY_AT("sample fixture", sample_document(model, rng, kMaxSampleTokens))));
  f.refusals = refusals(f.train);
  return f;
}
// endregion: fit-fixture

// region: corpus-bigram
// One tokenization of the corpus: fit on the training partition, measure the two
// layouts' memory, and sample documents from the same seed.
[[nodiscard]] Step<CorpusBigram> fit_corpus(const EncodedCorpus& corpus) {
  const BigramModel model = LLMFS_TRY_AT(
      "fit " + corpus.name, BigramModel::fit(corpus.train.documents, corpus.config));
  CorpusBigram c{corpus.name,
                 model.vocab_size(),
                 corpus.train.documents.size(),
                 model.pairs(),
                 model.distinct_pairs(),
                 model.stored_bytes(),
                 model.dense_bytes(),
                 {}};
  llmfs::SplitMix64 rng(kSampleSeed);
  for (std::size_t i = 0; i < kCorpusSamples; ++i) {
    const TokenSequence tokens = LLMFS_TRY_AT(
        "sample " + corpus.name, sample_document(model, rng, kMaxCorpusSampleTokens));
    c.samples.push_back(corpus.decode(tokens));
  }
  return c;
}
// endregion: corpus-bigram

// region: exercises
// Exercise 1 is the fixture's row of `a`. α = 0.5 refits the same counts; the memory
// of a dense table at V = 4,096; and the mass the smoothed row of `a` gives to the
// next tokens never seen after `a` in training.
Step<Exercises> solve_exercises(const Fixture& f) {
  Exercises x;
  BigramConfig half = kFixtureConfig;
  half.alpha = kExerciseAlpha;
  const BigramModel smaller =
      LLMFS_TRY_AT("exercise 2", BigramModel::fit(f.train, half));
  x.p_n_after_a = LLMFS_TRY_AT("read model", smaller.probability(0, 2));
  x.p_eos_after_n = LLMFS_TRY_AT("read model", smaller.probability(2, kFixtureEos));
  x.dense_cells = kCourseVocab * kCourseVocab;
  x.dense_bytes = x.dense_cells * sizeof(std::uint64_t);
  const Row& a = f.rows[0];
  for (std::size_t next = 0; next < kFixtureVocab; ++next)
    if (a.counts[next] == 0) x.unseen_mass_after_a += a.probabilities[next];
  return x;
}
// endregion: exercises

// The chapter in one pass: the fixture, the corpus under both tokenizers, the
// exercises.
Step<Evidence> gather() {
  Evidence e;
  e.fixture = LLMFS_TRY(fit_fixture());
  const std::vector<EncodedCorpus> corpora = LLMFS_TRY(encode_corpus());
  for (const EncodedCorpus& corpus : corpora)
    e.corpus.push_back(LLMFS_TRY(fit_corpus(corpus)));
  e.exercises = LLMFS_TRY(solve_exercises(e.fixture));
  return e;
}

}  // namespace ch06
