// Chapter 5
#include "evidence.hpp"

#include <llmfs/text/merges_file.hpp>

namespace ch05 {

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

// region: count-split
// One split, one configuration: its examples, each counted for its document, and what
// they show (short documents, EOS targets). Then the same tokens as one concatenated
// stream, to count the windows that would cross.
[[nodiscard]] Step<SplitCount> count_split(const Sequences& sequences, Split split,
                                           WindowConfig config, TokenId eos,
                                           std::span<DocumentCount> documents) {
  SplitCount c{split, config, sequences.size()};
  for (std::size_t k = 0; k < sequences.size(); ++k) {
    c.tokens += sequences[k].size();
    c.too_short += sequences[k].size() < config.context + 1;
    documents[k].examples.push_back(0);
  }
  const auto examples =
      LLMFS_TRY_AT("enumerate", llmfs::text::make_examples(sequences, config));
  c.examples = examples.size();
  for (const Example& example : examples) {
    c.eos_targets +=
        llmfs::text::example_tokens(sequences, example, config).next == eos;
    ++documents[example.sequence].examples.back();
  }
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

// region: predict-windows
// The prediction: one document, byte by byte (zero merges), framed, and each of its
// examples spelled out; then exercise 1's counts, from the formula.
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
  for (std::size_t s = 1; s <= kExerciseContext + 1; ++s)
    e.exercise_strides.push_back(LLMFS_TRY_AT(
        "exercise 1",
        llmfs::text::example_count(kExerciseLength, {kExerciseContext, s})));
  return e;
}
// endregion: predict-windows

// region: count-corpus
// One tokenizer on a partitioned corpus (the fixture, the King James text): each
// split's documents encoded and framed once, then counted under every configuration.
[[nodiscard]] Step<CorpusCounts> count_corpus(
    const llmfs::text::PartitionedCorpus& text, const Tokenizer& tokenizer,
    std::span<const WindowConfig> configs) {
  const Specials specials = specials_of(tokenizer);
  CorpusCounts counts{fmt::format("M={} merges, BOS={}, EOS={}, V={}",
                                  tokenizer.merges().merges.size(), specials.bos,
                                  specials.eos, specials.vocab)};
  for (Split split : llmfs::text::kSplits) {
    const Sequences sequences = LLMFS_TRY_AT(
        "sequences", llmfs::text::split_sequences(text.corpus, text.partitions, split,
                                                  encoder_of(tokenizer), specials));
    const std::size_t first = counts.documents.size();
    for (std::size_t k = 0; k < sequences.size(); ++k) {
      const std::size_t index = llmfs::text::indices(text.partitions, split)[k];
      counts.documents.push_back(
          {text.corpus.documents[index].title, split, sequences[k].size()});
    }
    const std::span<DocumentCount> mine = std::span(counts.documents).subspan(first);
    for (WindowConfig config : configs)
      counts.splits.push_back(
          LLMFS_TRY(count_split(sequences, split, config, specials.eos, mine)));
  }
  return counts;
}
// endregion: count-corpus

// region: bad-inputs
// One bad input per windowing error, through the library.
std::vector<Outcome> bad_inputs() {
  using llmfs::text::document_sequence;
  using snippets::error_text;
  std::vector<Outcome> o;
  for (WindowConfig c : kBadConfigs)
    o.push_back({fmt::format("T{}_S{}", c.context, c.stride),
                 error_text(llmfs::text::example_count(10, c))});
  o.push_back(
      {"unknown_id", error_text(document_sequence(kUnknownId, kByteSpecials, 0))});
  o.push_back(
      {"special_in_text", error_text(document_sequence(kInnerEos, kByteSpecials, 0))});
  o.push_back(
      {"bad_specials", error_text(document_sequence(kUnknownId, kSameSpecials, 0))});
  return o;
}
// endregion: bad-inputs

}  // namespace

// The fixture byte by byte (prediction, documents, splits, errors), then the King James
// text twice: with zero merges and with the course tokenizer (Chapter 4).
Step<Evidence> gather_fixture() {
  const auto bytes = LLMFS_TRY_AT("zero merges", Tokenizer::create({}));
  Evidence e = LLMFS_TRY(predict({}, bytes));
  llmfs::text::PartitionedCorpus fixture{
      LLMFS_TRY_AT("fixture corpus",
                   llmfs::text::read_corpus(LLMFS_FIXTURE_CORPUS_PATH)),
      {}};
  fixture.partitions = LLMFS_TRY_AT("fixture partitions",
                                    llmfs::text::assign_partitions(fixture.corpus));
  e.fixture = LLMFS_TRY(count_corpus(fixture, bytes, kFixtureConfigs));
  e.errors = bad_inputs();
  return e;
}

Step<Evidence> gather() {
  Evidence e = LLMFS_TRY(gather_fixture());
  const auto kjv = LLMFS_TRY_AT(
      "course corpus",
      llmfs::text::read_partitioned_corpus(LLMFS_CORPUS_PATH, LLMFS_PARTITIONS_PATH));
  const auto none = LLMFS_TRY_AT("zero merges", Tokenizer::create({}));
  e.kjv_bytes = LLMFS_TRY(count_corpus(kjv, none, kCorpusConfigs));
  const auto merges =
      LLMFS_TRY_AT("course merges", llmfs::text::read_merges(LLMFS_TOKENIZER_PATH));
  const auto course = LLMFS_TRY_AT("course tokenizer", Tokenizer::create(merges));
  e.kjv_bpe = LLMFS_TRY(count_corpus(kjv, course, kCorpusConfigs));
  return e;
}

}  // namespace ch05
