// Chapter 6
#include "corpus_tokens.hpp"

#include <llmfs/text/merges_file.hpp>
#include <llmfs/text/partition.hpp>
#include <llmfs/text/tokenizer.hpp>

namespace ch06 {

using llmfs::models::TokenId;
using llmfs::text::Tokenizer;

namespace {

// region: encode-corpus
// One partition through one tokenizer: each document's text (the verse lines under its
// heading) becomes its tokens; the bytes are the UTF-8 size of those texts.
EncodedPartition encode_partition(const llmfs::text::Corpus& corpus,
                                  const std::vector<std::size_t>& indices,
                                  const Tokenizer& tokenizer) {
  EncodedPartition partition;
  for (std::size_t index : indices) {
    const std::string& text = corpus.documents[index].text;
    partition.documents.push_back(tokenizer.encode(text));
    partition.bytes += text.size();
  }
  return partition;
}

// The same corpus as bytes (a tokenizer with zero merges, V = 258) and with the
// course's 4,096-token tokenizer. A special drawn mid-sample decodes as <BOS>/<EOS>.
[[nodiscard]] snippets::Step<EncodedCorpus> encode_with(
    const llmfs::text::PartitionedCorpus& kjv, std::string name, Tokenizer tokenizer) {
  const auto shared = std::make_shared<const Tokenizer>(std::move(tokenizer));
  EncodedCorpus encoded{
      std::move(name),
      {shared->vocab_size(), shared->bos(), shared->eos(), 1.0},
      encode_partition(kjv.corpus, kjv.partitions.train, *shared),
      encode_partition(kjv.corpus, kjv.partitions.validation, *shared),
      {}};
  encoded.decode = [shared](std::span<const TokenId> ids) {
    std::string text;
    for (TokenId id : ids)
      text += id == shared->bos()   ? std::string("<BOS>")
              : id == shared->eos() ? std::string("<EOS>")
                                    : std::string(shared->token_bytes(id));
    return text;
  };
  return encoded;
}
// endregion: encode-corpus

}  // namespace

snippets::Step<std::vector<EncodedCorpus>> encode_corpus() {
  const auto kjv = LLMFS_TRY_AT(
      "read corpus",
      llmfs::text::read_partitioned_corpus(LLMFS_CORPUS_PATH, LLMFS_PARTITIONS_PATH));
  const auto merges =
      LLMFS_TRY_AT("read tokenizer", llmfs::text::read_merges(LLMFS_TOKENIZER_PATH));
  auto bytes = LLMFS_TRY_AT("byte tokenizer", Tokenizer::create({}));
  auto bpe = LLMFS_TRY_AT("course tokenizer", Tokenizer::create(merges));
  std::vector<EncodedCorpus> corpora;
  corpora.push_back(LLMFS_TRY(encode_with(kjv, "bytes", std::move(bytes))));
  corpora.push_back(LLMFS_TRY(encode_with(kjv, "bpe4096", std::move(bpe))));
  return corpora;
}

}  // namespace ch06
