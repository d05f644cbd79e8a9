// Chapter 39
#include "corpus.hpp"

#include <algorithm>

#include <llmfs/text/merges_file.hpp>
#include <llmfs/text/windows.hpp>
#include <llmfs/training/decoder_loss.hpp>

namespace ch39 {

using llmfs::text::TokenId;

namespace {

[[nodiscard]] Step<Partition> encode(const llmfs::text::PartitionedCorpus& kjv,
                                     const std::vector<std::size_t>& indices,
                                     const llmfs::text::Tokenizer& tokenizer,
                                     std::size_t documents) {
  const std::size_t count =
      documents == 0 ? indices.size() : std::min(documents, indices.size());
  const llmfs::text::Specials specials{tokenizer.bos(), tokenizer.eos(),
                                       tokenizer.vocab_size()};
  Partition out;
  for (std::size_t k = 0; k < count; ++k) {
    const std::string& text = kjv.corpus.documents[indices[k]].text;
    const auto ids = tokenizer.encode(text);
    out.sequences.push_back(
        LLMFS_TRY_AT("frame", llmfs::text::document_sequence(ids, specials, k)));
    out.bytes += text.size();
    out.tokens += ids.size() + 1;
  }
  return out;
}

}  // namespace

Step<std::shared_ptr<const llmfs::text::Tokenizer>> load_tokenizer() {
  const auto merges =
      LLMFS_TRY_AT("read tokenizer", llmfs::text::read_merges(LLMFS_TOKENIZER_PATH));
  return std::make_shared<const llmfs::text::Tokenizer>(
      LLMFS_TRY_AT("tokenizer", llmfs::text::Tokenizer::create(merges)));
}

Step<Corpus> load_corpus(std::size_t documents) {
  const auto kjv = LLMFS_TRY_AT(
      "read corpus",
      llmfs::text::read_partitioned_corpus(LLMFS_CORPUS_PATH, LLMFS_PARTITIONS_PATH));
  Corpus out;
  out.tokenizer = LLMFS_TRY(load_tokenizer());
  out.train = LLMFS_TRY(encode(kjv, kjv.partitions.train, *out.tokenizer, documents));
  out.validation =
      LLMFS_TRY(encode(kjv, kjv.partitions.validation, *out.tokenizer, documents));
  out.test = LLMFS_TRY(encode(kjv, kjv.partitions.test, *out.tokenizer, documents));
  return out;
}

Step<llmfs::training::ExampleSet> windows(const Partition& partition,
                                          std::size_t context) {
  llmfs::training::ExampleSet set{partition.sequences, {}};
  set.examples = LLMFS_TRY_AT(
      "windows", llmfs::text::make_examples(set.sequences, {context, context}));
  return set;
}

Step<Nats> score_every_token(const llmfs::models::DecoderConfig& config,
                             std::span<const llmfs::tensor::Tensor> values,
                             const Partition& partition, std::size_t batch) {
  const std::size_t T = config.context_length;
  const auto loss = llmfs::training::decoder_loss(config);
  Nats out;
  // One forward pass over `rows` windows of `width` tokens; adds their summed nats
  auto score = [&](const std::vector<std::pair<std::size_t, std::size_t>>& rows,
                   std::size_t width) -> Step<void> {
    llmfs::training::Batch b;
    b.inputs = {rows.size(), width, {}};
    b.targets = {rows.size(), width, {}};
    for (const auto& [sequence, start] : rows) {
      const auto& s = partition.sequences[sequence];
      b.inputs.ids.insert(b.inputs.ids.end(), s.begin() + start,
                          s.begin() + start + width);
      b.targets.ids.insert(b.targets.ids.end(), s.begin() + start + 1,
                           s.begin() + start + width + 1);
    }
    const auto result = LLMFS_TRY_AT("score", loss(values, b, false));
    const std::size_t n = rows.size() * width;
    out.total += result.loss * static_cast<double>(n);
    out.tokens += n;
    return {};
  };
  // region: every-token
  // Full windows B at a time; each document's shorter last window on its own
  std::vector<std::pair<std::size_t, std::size_t>> full;
  for (std::size_t q = 0; q < partition.sequences.size(); ++q) {
    const std::size_t predicted = partition.sequences[q].size() - 1;
    std::size_t start = 0;
    for (; start + T <= predicted; start += T) {
      full.emplace_back(q, start);
      if (full.size() == batch) {
        LLMFS_TRY(score(full, T));
        full.clear();
      }
    }
    if (start < predicted) LLMFS_TRY(score({{q, start}}, predicted - start));
  }
  if (!full.empty()) LLMFS_TRY(score(full, T));
  return out;
}
// endregion: every-token

}  // namespace ch39
