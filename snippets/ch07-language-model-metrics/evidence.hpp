// Chapter 7
#pragma once
// Chapter 7's program: every value its report and trace print, gathered once from the
// library (src/llmfs/eval/metrics.hpp, src/llmfs/models/bigram.hpp) and chapter 6's
// program (its fixture's predictions, its corpus encoding), and the functions that
// render them.

#include <string>
#include <vector>

#include <llmfs/eval/metrics.hpp>

#include "../ch06-a-bigram-baseline/evidence.hpp"
#include "../common/chapter.hpp"
#include "fixture.hpp"

namespace ch07 {

using ch06::Refusal;
using llmfs::eval::Metrics;
using snippets::Step;

/// One predicted token: what it was conditioned on, its text's bytes, its
/// probability and its surprisal −ln p.
struct Prediction {
  std::string prev;          ///< the previous token's name
  std::string next;          ///< the predicted token's name
  std::size_t bytes = 0;     ///< UTF-8 bytes it spells (0 for EOS)
  double probability = 0.0;  ///< P(next | prev)
  double nats = 0.0;         ///< −ln P(next | prev)
};

/// A model scored on the validation text, and the uniform model over its vocabulary.
struct Evaluation {
  std::string name;                       ///< the tokenizer's name
  std::size_t vocab_size = 0;             ///< V
  std::vector<Prediction> predictions{};  ///< per token (the fixture only)
  Metrics metrics{};                      ///< the bigram's three numbers
  Metrics uniform{};                      ///< the uniform model on the same tokens
  std::vector<Metrics> alphas{};          ///< the corpus only: one per kAlphas entry
};

/// The answers of exercises 2 to 4, computed by the library (exercise 1's is the
/// fixture's letters evaluation).
struct Exercises {
  std::vector<double> unsmoothed;  ///< 2: c(prev, next) / c(prev) along `ban`
  std::string unsmoothed_score;    ///< 2: what scoring them gives
  double uniform_bytes_bits = 0;   ///< 3: log2 of 258, bits per byte-token, uniform
  double converted_bpb = 0;        ///< 4: 1.2 nats/token at 3.5 bytes/token
};

/// Everything the report and the trace print.
struct Evidence {
  std::vector<Evaluation> fixture;  ///< letters, then letters + `an`
  std::vector<Refusal> refusals;    ///< undefined metrics, refused
  std::vector<Evaluation> corpus;   ///< the King James validation partition
  Exercises exercises;              ///< the exercise answers
};

/// The fixture under both tokenizers (no corpus).
[[nodiscard]] Step<std::vector<Evaluation>> evaluate_fixture();
/// The refusals of undefined metrics.
[[nodiscard]] std::vector<Refusal> refusals();
/// The exercises (no corpus needed).
[[nodiscard]] Step<Exercises> solve_exercises();
/// Runs the whole chapter once, the corpus included.
[[nodiscard]] Step<Evidence> gather();

/// The report, one `key=value` line per fact.
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The trace records the diagram is drawn from.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch07
