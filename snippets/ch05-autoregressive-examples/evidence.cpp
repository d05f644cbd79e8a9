// Chapter 5
#include "evidence.hpp"

#include <algorithm>

namespace ch05 {

using llmfs::text::Corpus;
using llmfs::text::Example;
using llmfs::text::Tokenizer;

namespace {

// A tokenizer's ids for document_sequence(): its BOS, EOS and vocabulary size.
Specials specials_of(const Tokenizer& tokenizer) {
  return {tokenizer.bos(), tokenizer.eos(), tokenizer.vocab_size()};
}

// Its encode() as the Encoder split_sequences() calls.
llmfs::text::Encoder encoder_of(const Tokenizer& tokenizer) {
  return [&tokenizer](std::string_view text) { return tokenizer.encode(text); };
}

template <class T, class E>
Outcome outcome(std::string_view name, const std::expected<T, E>& result) {
  return Outcome{std::string(name),
                 result ? "ok" : fmt::format("error:{}", result.error())};
}

}  // namespace

// region: count-split
// One split, one configuration: the formula summed over documents, the enumeration
// counted, and what the enumeration shows (short documents, EOS targets). Then the
// same tokens as one concatenated stream, to count the windows that would cross.
Step<SplitCount> count_split(const Sequences& sequences, Split split,
                             WindowConfig config, TokenId eos) {
  SplitCount c{split, config, sequences.size()};
  for (const auto& sequence : sequences) {
    c.tokens += sequence.size();
    c.by_formula +=
        LLMFS_TRY_AT("count", llmfs::text::example_count(sequence.size(), config));
    c.too_short += sequence.size() < config.context + 1;
  }
  const auto examples =
      LLMFS_TRY_AT("enumerate", llmfs::text::make_examples(sequences, config));
  c.enumerated = examples.size();
  for (const Example& example : examples)
    c.eos_targets +=
        llmfs::text::example_tokens(sequences, example, config).next == eos;
  std::vector<std::size_t> owner;  // the document of each stream position
  for (std::size_t d = 0; d < sequences.size(); ++d)
    owner.insert(owner.end(), sequences[d].size(), d);
  for (std::size_t start = 0; start + config.context < owner.size();
       start += config.stride) {
    ++c.stream_windows;
    c.crossing += owner[start] != owner[start + config.context];
  }
  return c;
}
// endregion: count-split

namespace {

// region: predict-windows
// The prediction: one document, byte by byte (zero merges), framed, and each of its
// examples spelled out.
[[nodiscard]] Step<Evidence> predict(Evidence e, const Tokenizer& bytes) {
  e.predict_sequence = LLMFS_TRY_AT(
      "predict sequence", llmfs::text::document_sequence(bytes.encode(kPredictText),
                                                         specials_of(bytes), 0));
  const Sequences one{e.predict_sequence};
  for (const Example& x : LLMFS_TRY_AT(
           "predict windows", llmfs::text::make_examples(one, kPredictConfig))) {
    const auto tokens = llmfs::text::example_tokens(one, x, kPredictConfig);
    e.predict_windows.push_back(
        {x.start, {tokens.context.begin(), tokens.context.end()}, tokens.next});
  }
  e.predict_formula = LLMFS_TRY_AT(
      "predict count", llmfs::text::example_count(one[0].size(), kPredictConfig));
  for (std::size_t s = 1; s <= kExerciseContext + 1; ++s)
    e.exercise_strides.push_back(LLMFS_TRY_AT(
        "exercise 1",
        llmfs::text::example_count(kExerciseLength, {kExerciseContext, s})));
  return e;
}
// endregion: predict-windows

// region: fixture-counts
// Every fixture document under every configuration, by formula and by enumeration of
// that document alone; then every split of it.
[[nodiscard]] Step<Evidence> count_fixture(Evidence e, const Corpus& corpus,
                                           const llmfs::text::Partitions& partitions,
                                           const Tokenizer& bytes) {
  for (Split split : llmfs::text::kSplits) {
    const Sequences sequences = LLMFS_TRY_AT(
        "fixture sequences",
        llmfs::text::split_sequences(corpus, partitions, split, encoder_of(bytes),
                                     specials_of(bytes)));
    for (std::size_t k = 0; k < sequences.size(); ++k) {
      DocumentCount row{
          corpus.documents[llmfs::text::indices(partitions, split)[k]].title,
          split,
          sequences[k].size(),
          {},
          {}};
      for (WindowConfig config : kFixtureConfigs) {
        row.by_formula.push_back(
            LLMFS_TRY_AT("fixture count", llmfs::text::example_count(row.n, config)));
        row.enumerated.push_back(
            LLMFS_TRY_AT("fixture windows",
                         llmfs::text::make_examples({sequences[k]}, config))
                .size());
      }
      e.fixture_documents.push_back(row);
    }
    for (WindowConfig config : kFixtureConfigs)
      e.fixture_splits.push_back(
          LLMFS_TRY(count_split(sequences, split, config, bytes.eos())));
  }
  return e;
}
// endregion: fixture-counts

// region: count-corpus
// One tokenizer on the whole corpus: each split's documents encoded and framed once,
// then counted under every configuration; the training documents too short for T = 256.
[[nodiscard]] Step<CorpusCounts> count_corpus(const llmfs::text::PartitionedCorpus& kjv,
                                              const Tokenizer& tokenizer) {
  const Specials specials = specials_of(tokenizer);
  CorpusCounts counts{
      fmt::format("M={} merges, BOS={}, EOS={}, V={}", tokenizer.merges().merges.size(),
                  specials.bos, specials.eos, specials.vocab),
      {},
      {}};
  for (Split split : llmfs::text::kSplits) {
    const Sequences sequences =
        LLMFS_TRY_AT("course sequences",
                     llmfs::text::split_sequences(kjv.corpus, kjv.partitions, split,
                                                  encoder_of(tokenizer), specials));
    for (WindowConfig config : kCorpusConfigs)
      counts.splits.push_back(
          LLMFS_TRY(count_split(sequences, split, config, specials.eos)));
    for (std::size_t k = 0; split == Split::train && k < sequences.size(); ++k)
      if (sequences[k].size() < kCorpusConfigs[2].context + 1)
        counts.too_short.emplace_back(
            kjv.corpus.documents[kjv.partitions.train[k]].title, sequences[k].size());
  }
  return counts;
}
// endregion: count-corpus

// region: bad-inputs
// One bad input per windowing error, through the library.
std::vector<Outcome> bad_inputs() {
  std::vector<Outcome> o;
  for (WindowConfig c : kBadConfigs)
    o.push_back(outcome(fmt::format("T{}_S{}", c.context, c.stride),
                        llmfs::text::example_count(10, c)));
  o.push_back(outcome("unknown_id",
                      llmfs::text::document_sequence(kUnknownId, kByteSpecials, 0)));
  o.push_back(outcome("special_in_text",
                      llmfs::text::document_sequence(kInnerEos, kByteSpecials, 0)));
  o.push_back(outcome("bad_specials",
                      llmfs::text::document_sequence(kUnknownId, kSameSpecials, 0)));
  return o;
}
// endregion: bad-inputs

}  // namespace

// region: gather
// The fixture byte by byte (prediction, documents, splits, errors), then the King James
// text twice: with zero merges and with the course tokenizer (Chapter 4).
Step<Evidence> gather_fixture() {
  const auto bytes = LLMFS_TRY_AT("zero merges", Tokenizer::create({}));
  Evidence e = LLMFS_TRY(predict({}, bytes));
  const Corpus corpus = LLMFS_TRY_AT(
      "fixture corpus", llmfs::text::read_corpus(LLMFS_FIXTURE_CORPUS_PATH));
  const auto partitions =
      LLMFS_TRY_AT("fixture partitions", llmfs::text::assign_partitions(corpus));
  e = LLMFS_TRY(count_fixture(std::move(e), corpus, partitions, bytes));
  e.errors = bad_inputs();
  return e;
}

Step<Evidence> gather() {
  Evidence e = LLMFS_TRY(gather_fixture());
  const auto kjv = LLMFS_TRY_AT(
      "course corpus",
      llmfs::text::read_partitioned_corpus(LLMFS_CORPUS_PATH, LLMFS_PARTITIONS_PATH));
  const auto none = LLMFS_TRY_AT("zero merges", Tokenizer::create({}));
  e.kjv_bytes = LLMFS_TRY(count_corpus(kjv, none));
  const auto merges =
      LLMFS_TRY_AT("course merges", llmfs::text::read_merges(LLMFS_TOKENIZER_PATH));
  const auto course = LLMFS_TRY_AT("course tokenizer", Tokenizer::create(merges));
  e.kjv_bpe = LLMFS_TRY(count_corpus(kjv, course));
  return e;
}
// endregion: gather

}  // namespace ch05
