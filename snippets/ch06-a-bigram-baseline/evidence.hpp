// Chapter 6
#pragma once
// Chapter 6's program: every value its report and trace print, gathered once from the
// library (src/llmfs/models/bigram.hpp), and the functions that render them.

#include <cstdint>
#include <string>
#include <vector>

#include <llmfs/models/bigram.hpp>

#include "../common/chapter.hpp"
#include "corpus_tokens.hpp"
#include "fixture.hpp"

namespace ch06 {

using llmfs::models::BigramModel;
using snippets::Step;

/// One row of the fixture's table: c(prev, ·), c(prev) and P(· | prev).
struct Row {
  TokenId prev = 0;                   ///< the conditioning token
  std::vector<std::uint64_t> counts;  ///< [V] c(prev, next)
  std::uint64_t total = 0;            ///< c(prev)
  std::vector<double> probabilities;  ///< [V] P(next | prev)
};

/// One predicted token of a validation document.
struct PairScore {
  TokenId prev = 0;          ///< the token before
  TokenId next = 0;          ///< the token predicted
  std::uint64_t count = 0;   ///< c(prev, next) in training
  std::uint64_t total = 0;   ///< c(prev)
  double probability = 0.0;  ///< P(next | prev)
};

/// A case the library must refuse, and its error's text.
struct Refusal {
  std::string name;  ///< the report key's suffix
  std::string text;  ///< the formatted error
};

/// The hand fixture, fitted and scored.
struct Fixture {
  std::vector<TokenSequence> train;       ///< kTrain, encoded
  std::vector<TokenSequence> validation;  ///< kValidation, encoded
  std::uint64_t pairs = 0;                ///< training pairs counted
  std::size_t distinct_pairs = 0;         ///< stored entries
  std::vector<Row> rows;                  ///< [V], one per conditioning token
  std::vector<PairScore> scored;          ///< the validation document's predictions
  double likelihood = 1.0;                ///< the product of their probabilities
  std::vector<std::string> samples;       ///< seeded samples, as letters
  std::vector<Refusal> refusals;          ///< bad α, V and token ids, refused
};

/// The bigram fitted on one tokenization of the King James training partition.
struct CorpusBigram {
  std::string name;                  ///< `bytes` or `bpe4096`
  std::size_t vocab_size = 0;        ///< V
  std::size_t documents = 0;         ///< training documents
  std::uint64_t pairs = 0;           ///< training pairs (tokens + one EOS per document)
  std::size_t distinct_pairs = 0;    ///< stored entries
  std::size_t stored_bytes = 0;      ///< the sparse layout's memory
  std::size_t dense_bytes = 0;       ///< a dense [V,V] table's memory
  std::vector<std::string> samples;  ///< seeded samples, decoded to text
};

/// The answers of exercises 2 to 4, computed by the library (exercise 1's, the row of
/// `a`, is the fixture's first row).
struct Exercises {
  double p_n_after_a = 0.0;          ///< 2: P(n | a) with α = 0.5
  double p_eos_after_n = 0.0;        ///< 2: P(EOS | n) with α = 0.5
  std::size_t dense_cells = 0;       ///< 3: V² for V = 4,096
  std::size_t dense_bytes = 0;       ///< 3: at 8 bytes per count
  double unseen_mass_after_a = 0.0;  ///< 4: P of the next tokens never seen after `a`
};

/// Everything the report and the trace print.
struct Evidence {
  Fixture fixture;                   ///< the hand fixture
  std::vector<CorpusBigram> corpus;  ///< bytes, then the 4,096-token tokenizer
  Exercises exercises;               ///< the exercise answers
};

/// The hand fixture: fit, rows, validation, samples and refusals (no corpus).
[[nodiscard]] Step<Fixture> fit_fixture();
/// The validation document `tokens`, framed BOS … EOS, one prediction per pair.
[[nodiscard]] Step<std::vector<PairScore>> score_pairs(const BigramModel& model,
                                                       const TokenSequence& tokens);
/// The exercises, from the fitted fixture (no corpus needed).
[[nodiscard]] Step<Exercises> solve_exercises(const Fixture& fixture);
/// Runs the whole chapter once, the corpus included.
[[nodiscard]] Step<Evidence> gather();

/// The report, one `key=value` line per fact.
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The trace records the diagram is drawn from.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch06
