// Chapter 5
#pragma once
// Chapter 5's program: (context, next token) examples cut from document sequences on
// the hand-sized fixture and on the King James text, every value its report and trace
// print gathered once from the library (src/llmfs/text/windows.hpp).

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include <llmfs/text/corpus.hpp>
#include <llmfs/text/partition.hpp>
#include <llmfs/text/tokenizer.hpp>
#include <llmfs/text/windows.hpp>

#include "../common/chapter.hpp"
#include "fixture.hpp"

namespace ch05 {

using llmfs::text::Split;
using snippets::Step;

/// The token sequences of one split, one per document, in corpus order.
using Sequences = std::vector<std::vector<TokenId>>;

/// One example of the prediction, as ids.
struct Window {
  std::size_t start = 0;         ///< position of the context's first token
  std::vector<TokenId> context;  ///< [T]
  TokenId next{};                ///< the target
};

/// One document: its sequence length and its examples under each configuration.
struct DocumentCount {
  std::string title;                    ///< the document
  Split split{};                        ///< its partition (Chapter 2)
  std::size_t n = 0;                    ///< BOS + tokens + EOS
  std::vector<std::size_t> examples{};  ///< [configs] examples of this sequence
};

/// The examples of one split under one configuration, and what they show.
struct SplitCount {
  Split split{};                   ///< which partition
  WindowConfig config{};           ///< T and S
  std::size_t documents = 0;       ///< sequences in the split
  std::size_t tokens = 0;          ///< Σ n over them
  std::size_t examples = 0;        ///< make_examples(...).size()
  std::size_t too_short = 0;       ///< sequences with n < T + 1 (no example)
  std::size_t eos_targets = 0;     ///< examples whose next token is EOS
  std::size_t stream_windows = 0;  ///< windows over the split as one stream
  std::size_t crossing = 0;        ///< ... of them spanning two documents
};

/// A bad input and the library's answer.
struct Outcome {
  std::string name;    ///< the case
  std::string answer;  ///< the error's message, or `accepted`
};

/// One tokenizer's view of a partitioned corpus: every split under every configuration,
/// and every document's examples.
struct CorpusCounts {
  std::string tokenizer;                   ///< `M merges, BOS, EOS, V`
  std::vector<SplitCount> splits{};        ///< split × configurations, in that order
  std::vector<DocumentCount> documents{};  ///< train, validation, test; corpus order
};

/// Everything the report and the trace print.
struct Evidence {
  std::vector<TokenId> predict_sequence;      ///< kPredictText framed, [15]
  std::vector<Window> predict_windows;        ///< its examples under kPredictConfig
  std::vector<std::size_t> exercise_strides;  ///< exercise 1: count for S = 1 … 5
  CorpusCounts fixture;                       ///< byte by byte, under kFixtureConfigs
  std::vector<Outcome> errors;                ///< one per windowing error
  CorpusCounts kjv_bytes;                     ///< with a tokenizer of zero merges
  CorpusCounts kjv_bpe;                       ///< with the course tokenizer
};

/// The fixture part of the chapter (everything but the King James text); the tests use
/// this, the demo adds the corpus.
[[nodiscard]] Step<Evidence> gather_fixture();
/// Runs the whole chapter once.
[[nodiscard]] Step<Evidence> gather();

/// The report, one `key=value` line per fact.
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The trace records the diagram is drawn from.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch05
