// Chapter 34
#pragma once
/// \file
/// \brief The final evaluation of Chapter 34: the test partition is scored once, by the
/// model that selection chose, and the code makes a second scoring impossible. The
/// test examples live in a move-only SealedTestSet; final_evaluation() consumes it, and
/// a second call on the same (now empty) handle returns a typed error instead of
/// numbers. The metrics are Chapter 7's cross-entropy, perplexity and bits per byte.

#include <cstddef>
#include <expected>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <llmfs/core/error.hpp>
#include <llmfs/eval/metrics.hpp>
#include <llmfs/training/trainer.hpp>

namespace llmfs::eval {

// region: final-errors
/// Why a final evaluation gives no numbers.
enum class FinalErrorCode {
  already_scored,  ///< this test set was scored before: a second look is refused
  bad_config,      ///< B = 0 or T = 0
  stage_failed,    ///< the batches, the model or the metrics failed (see the cause)
};

/// The fixed description of a code, e.g. `"test set already scored"`.
[[nodiscard]] std::string_view describe(FinalErrorCode code) noexcept;

/// A final-evaluation error: code, stage (`"final evaluation"`), the numbers in the
/// detail, and for FinalErrorCode::stage_failed the lower error.
using FinalError = StageError<FinalErrorCode, FinalErrorCode::stage_failed,
                              std::variant<training::TrainingError, MetricsError>>;
// endregion: final-errors

// region: sealed-test-set
/// The test partition's examples, readable by final_evaluation() alone. Move-only:
/// a copy would be a second test set to look at. Moving leaves the source empty, so
/// the examples exist in exactly one handle, and scoring empties that one too.
class SealedTestSet {
 public:
  /// Seals `test`, whose predicted positions spell `bytes` UTF-8 bytes (for bits per
  /// byte; each predicted position is counted once when the stride is T).
  [[nodiscard]] static SealedTestSet seal(training::ExampleSet test, std::size_t bytes);

  SealedTestSet(const SealedTestSet&) = delete;             ///< no copies
  SealedTestSet& operator=(const SealedTestSet&) = delete;  ///< no copies
  SealedTestSet(SealedTestSet&& other) noexcept;  ///< takes the examples; `other` empty
  SealedTestSet& operator=(SealedTestSet&& other) noexcept;  ///< likewise
  ~SealedTestSet() = default;                                ///< drops the examples

  /// Whether this handle still holds the unscored examples.
  [[nodiscard]] bool sealed() const noexcept { return test_.has_value(); }

 private:
  SealedTestSet(training::ExampleSet test, std::size_t bytes)
      : test_(std::move(test)), bytes_(bytes) {}
  friend struct FinalAccess;

  std::optional<training::ExampleSet> test_;
  std::size_t bytes_ = 0;
};
// endregion: sealed-test-set

// region: final-api
/// One model in the final table: a name, its loss function and the parameter values to
/// score it at (the selected step's for the trained model; none for a baseline).
struct Contender {
  std::string name;                    ///< e.g. `decoder`, `bigram`
  training::LossFunction model;        ///< what computes its loss on a batch
  std::vector<tensor::Tensor> values;  ///< the parameters it is scored with
  /// Empty when the model predicts the examples' positions. For a model with its own
  /// tokenizer: the tokens it predicts over all the test examples; `model` then
  /// returns a batch's Σ −ln p over the batch's positions, so that loss × positions
  /// is still its total nats, and its cross-entropy is per token of its own.
  std::function<std::size_t(const training::ExampleSet&)> tokens{};
};

/// One row of the final table.
struct FinalScore {
  std::string name;  ///< the contender's name
  Metrics metrics;   ///< Chapter 7's three numbers and their sums
};

/// Scores every contender on `test`, in one opening: every test example in order, in
/// batches of `config.batch_size`, Σ loss·positions nats over Σ positions, with the
/// bytes given to seal(). Consumes `test` whatever happens after the configuration
/// check, so a failure halfway cannot be retried into a second look.
/// \return already_scored for an empty handle (scored or moved from), bad_config for
///         B = 0, T = 0 or no contender (the handle is then left sealed), or
///         stage_failed wrapping the batches', a model's or the metrics' error.
[[nodiscard]] std::expected<std::vector<FinalScore>, FinalError> final_evaluation(
    SealedTestSet&& test, std::span<const Contender> contenders,
    const training::TrainConfig& config);
// endregion: final-api

}  // namespace llmfs::eval
