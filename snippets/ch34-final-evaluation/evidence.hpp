// Chapter 34
#pragma once
// Chapter 34's program: the sealed test set on the fixture, its refusals, and the final
// table of the King James test partition, gathered once, and the functions that render
// them.

#include <array>
#include <memory>
#include <string>
#include <vector>

#include <llmfs/eval/final_evaluation.hpp>
#include <llmfs/models/bigram.hpp>
#include <llmfs/models/ngram_mlp.hpp>
#include <llmfs/text/tokenizer.hpp>

#include "../ch23-a-neural-n-gram-model/evidence.hpp"
#include "../ch33-training-and-model-selection/evidence.hpp"
#include "../common/chapter.hpp"
#include "fixture.hpp"

namespace ch34 {

using snippets::Step;

/// Everything the report and the trace print.
struct Evidence {
  llmfs::eval::Metrics fixture;  ///< the 1/4 model on the fixture
  std::string second_scoring;    ///< the error of scoring the fixture again
  std::string moved_from;        ///< the error of scoring a moved-from handle
  bool sealed_after_refused_config = false;  ///< a refused B = 0 left the set sealed
  std::size_t selected_step = 0, last_step = 0;  ///< Chapter 33's demo run
  double selected_validation = 0.0;  ///< its validation loss at the selected step
  std::array<double, 3> alpha_validation{};  ///< the bigram's validation loss per α
  double alpha = 0.0;                        ///< the α selection kept
  std::size_t test_documents = 0, test_examples = 0, test_bytes = 0;
  double ngram_subset_bpb = 0.0;  ///< Chapter 23's demo model, on its own subset
  std::vector<llmfs::eval::FinalScore> table;  ///< uniform, bigram, decoder, n-gram
  /// The n-gram model and Chapter 4's tokenizer, for the tests' recomputation.
  std::shared_ptr<const llmfs::models::NgramMlp> ngram;
  std::shared_ptr<const llmfs::text::Tokenizer> tokenizer;
  /// EOS as a byte; bigram/uniform; decoder bits/token; n-gram bits/token and bytes
  /// per token.
  std::array<double, 5> exercises{};
};

/// The bigram as a loss function: the mean −ln P(target | input) over a batch's
/// positions (its input at (b, t) is the token before its target).
[[nodiscard]] llmfs::training::LossFunction bigram_loss(
    llmfs::models::BigramModel model);
/// Runs the whole chapter once.
[[nodiscard]] Step<Evidence> gather();

/// The report, one `key=value` line per fact.
[[nodiscard]] std::string render_report(const Evidence& evidence);
/// The trace records the diagram is drawn from.
[[nodiscard]] std::string render_trace(const Evidence& evidence);

}  // namespace ch34
