// Chapter 33
#include "corpus_data.hpp"

#include <algorithm>

#include <llmfs/text/tokenizer.hpp>
#include <llmfs/text/windows.hpp>

namespace ch33 {

using llmfs::text::TokenId;

snippets::Step<CorpusSet> corpus_set(llmfs::text::Split split, std::size_t documents,
                                     std::size_t context, std::size_t limit) {
  static const auto kjv =
      llmfs::text::read_partitioned_corpus(LLMFS_CORPUS_PATH, LLMFS_PARTITIONS_PATH);
  if (!kjv) return llmfs::at_stage("read corpus", kjv.error());
  const auto bytes = LLMFS_TRY_AT("byte tokenizer", llmfs::text::Tokenizer::create({}));
  const auto& indices = split == llmfs::text::Split::train ? kjv->partitions.train
                        : split == llmfs::text::Split::validation
                            ? kjv->partitions.validation
                            : kjv->partitions.test;
  const std::size_t count =
      documents == 0 ? indices.size() : std::min(documents, indices.size());
  const llmfs::text::Specials specials{bytes.bos(), bytes.eos(), bytes.vocab_size()};
  CorpusSet out;
  out.documents = count;
  for (std::size_t k = 0; k < count; ++k) {
    const auto ids = bytes.encode(kjv->corpus.documents[indices[k]].text);
    out.set.sequences.push_back(
        LLMFS_TRY_AT("frame", llmfs::text::document_sequence(ids, specials, k)));
  }
  const llmfs::text::WindowConfig windows{context, context};
  out.set.examples =
      LLMFS_TRY_AT("windows", llmfs::text::make_examples(out.set.sequences, windows));
  if (limit != 0 && out.set.examples.size() > limit) out.set.examples.resize(limit);
  // Each predicted token once (stride T): its bytes, EOS and BOS spelling none
  for (const llmfs::text::Example& e : out.set.examples)
    for (std::size_t t = 1; t <= context; ++t) {
      const TokenId id = out.set.sequences[e.sequence][e.start + t];
      out.bytes += id < 256 ? 1 : 0;
    }
  return out;
}

}  // namespace ch33
