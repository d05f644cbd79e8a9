// Chapter 5
#include <utility>

#include <llmfs/core/try.hpp>
#include <llmfs/text/windows.hpp>

namespace llmfs::text {

std::string_view describe(WindowErrorCode code) noexcept {
  switch (code) {
    case WindowErrorCode::zero_context: return "context length is zero";
    case WindowErrorCode::zero_stride: return "stride is zero";
    case WindowErrorCode::stride_gap: return "stride leaves gaps";
    case WindowErrorCode::bad_specials: return "bad special tokens";
    case WindowErrorCode::unknown_id: return "token id outside the vocabulary";
    case WindowErrorCode::special_in_text: return "special token inside a document";
    case WindowErrorCode::partitions: return "the corpus or its partitions failed";
  }
  return "unknown window error";
}

namespace {

constexpr std::string_view kConfigStage = "window config";
constexpr std::string_view kSequenceStage = "document sequence";

}  // namespace

// region: window-config-checks
// T ≥ 1, S ≥ 1, and S ≤ T + 1: a window covers T + 1 tokens, so a longer stride would
// step over tokens that no example ever sees.
std::expected<void, WindowError> check_window_config(WindowConfig config) {
  const std::string numbers = fmt::format("T={}, S={}", config.context, config.stride);
  if (config.context == 0)
    return reject(WindowErrorCode::zero_context, kConfigStage, numbers);
  if (config.stride == 0)
    return reject(WindowErrorCode::zero_stride, kConfigStage, numbers);
  if (config.stride > config.context + 1)
    return reject(
        WindowErrorCode::stride_gap, kConfigStage,
        fmt::format("{}: S must be at most T + 1 = {}", numbers, config.context + 1));
  return {};
}
// endregion: window-config-checks

// region: example-count
// The formula: the last start s must leave room for T context tokens and the next one,
// s + T ≤ n − 1, and starts are 0, S, 2S, …, so there are ⌊(n − T − 1)/S⌋ + 1 of them.
std::expected<std::size_t, WindowError> example_count(std::size_t n,
                                                      WindowConfig config) {
  LLMFS_TRY(check_window_config(config));
  if (n < config.context + 1) return 0;
  return (n - config.context - 1) / config.stride + 1;
}
// endregion: example-count

namespace {

// region: sequence-checks
// The specials are two distinct ids of the vocabulary, and a document's own tokens are
// ordinary ids: in the vocabulary, and neither BOS nor EOS.
[[nodiscard]] std::expected<void, WindowError> check_specials(Specials s) {
  const auto in_vocab = [&](TokenId id) {
    return id >= 0 && static_cast<std::size_t>(id) < s.vocab;
  };
  if (s.bos == s.eos || !in_vocab(s.bos) || !in_vocab(s.eos))
    return reject(WindowErrorCode::bad_specials, kSequenceStage,
                  fmt::format("BOS={}, EOS={}, V={}", s.bos, s.eos, s.vocab));
  return {};
}

[[nodiscard]] std::expected<void, WindowError> check_token(TokenId id, Specials s,
                                                           std::size_t document,
                                                           std::size_t position) {
  if (id < 0 || static_cast<std::size_t>(id) >= s.vocab)
    return reject(WindowErrorCode::unknown_id, kSequenceStage,
                  fmt::format("document {}, token {}: id {}, V={}", document, position,
                              id, s.vocab));
  if (id == s.bos || id == s.eos)
    return reject(WindowErrorCode::special_in_text, kSequenceStage,
                  fmt::format("document {}, token {}: id {} is {}", document, position,
                              id, id == s.bos ? "BOS" : "EOS"));
  return {};
}
// endregion: sequence-checks

}  // namespace

// region: document-sequence
// BOS, the document's tokens, EOS: the model learns to begin from nothing and to say
// when a document ends, and no window reaches into the next document.
std::expected<std::vector<TokenId>, WindowError> document_sequence(
    std::span<const TokenId> tokens, Specials specials, std::size_t document) {
  LLMFS_TRY(check_specials(specials));
  for (std::size_t i = 0; i < tokens.size(); ++i)
    LLMFS_TRY(check_token(tokens[i], specials, document, i));
  std::vector<TokenId> sequence;
  sequence.reserve(tokens.size() + 2);
  sequence.push_back(specials.bos);
  sequence.insert(sequence.end(), tokens.begin(), tokens.end());
  sequence.push_back(specials.eos);
  return sequence;
}
// endregion: document-sequence

// region: make-examples
// Window by window, sequence by sequence: a start is taken while its next token is
// still inside the sequence. No window ever spans two sequences.
std::expected<std::vector<Example>, WindowError> make_examples(
    const std::vector<std::vector<TokenId>>& sequences, WindowConfig config) {
  LLMFS_TRY(check_window_config(config));
  std::vector<Example> examples;
  for (std::size_t d = 0; d < sequences.size(); ++d)
    for (std::size_t start = 0; start + config.context < sequences[d].size();
         start += config.stride)
      examples.push_back({d, start});
  return examples;
}

ExampleTokens example_tokens(const std::vector<std::vector<TokenId>>& sequences,
                             const Example& example, WindowConfig config) {
  const std::vector<TokenId>& sequence = sequences[example.sequence];
  return {std::span(sequence).subspan(example.start, config.context),
          sequence[example.start + config.context]};
}
// endregion: make-examples

// region: split-sequences
// Each document of the split, in corpus order: its text encoded, then framed.
std::expected<std::vector<std::vector<TokenId>>, WindowError> split_sequences(
    const Corpus& corpus, const Partitions& partitions, Split split,
    const Encoder& encode, Specials specials) {
  std::vector<std::vector<TokenId>> sequences;
  for (std::size_t d : indices(partitions, split))
    sequences.push_back(
        LLMFS_TRY(document_sequence(encode(corpus.documents[d].text), specials, d)));
  return sequences;
}

std::expected<std::vector<std::vector<TokenId>>, WindowError> read_split_sequences(
    const std::filesystem::path& corpus_path,
    const std::filesystem::path& manifest_path, Split split, const Encoder& encode,
    Specials specials) {
  const PartitionedCorpus both = LLMFS_TRY_AT(
      "split sequences", read_partitioned_corpus(corpus_path, manifest_path));
  return split_sequences(both.corpus, both.partitions, split, encode, specials);
}
// endregion: split-sequences

}  // namespace llmfs::text
